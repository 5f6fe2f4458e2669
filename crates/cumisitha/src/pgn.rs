//! PGN import and export. Import reads real-world PGN: tag pairs, move
//! numbers, comments (`{...}` and `;` to the end of the line), NAGs (`$1`)
//! and annotation marks (`!?`), variations (skipped), `%` escape lines, and
//! several games per file. Every move is replayed and checked; a record that
//! goes on after our rules would have ended it (the 100-ply counter) is
//! replayed to its end, and [`Replayed::ended_at`] says where our rules ended it.

use crate::game::Cumisitha;
use crate::rules::START_FEN;
use crate::san;
use tabula_core::record::{parse_tag, replay_log};
use tabula_core::{Game, GameLog, NoOptions, Player, Replayed, Status};

/// One game as read from the file, before replaying.
#[derive(Debug, Default)]
struct RawGame {
    tags: Vec<(String, String)>,
    /// (line, text) of each move.
    moves: Vec<(usize, String)>,
    result: Option<String>,
    first_line: usize,
}

impl RawGame {
    fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.moves.is_empty() && self.result.is_none()
    }
}

fn is_result(tok: &str) -> bool {
    matches!(tok, "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*")
}

/// Split the file into games of tags and move tokens.
fn tokenize(text: &str) -> Result<Vec<RawGame>, String> {
    let mut games = Vec::new();
    let mut cur = RawGame { first_line: 1, ..RawGame::default() };
    let mut depth = 0usize; // variation nesting
    let mut in_comment: Option<usize> = None; // line where a `{` comment opened
    for (idx, raw_line) in text.lines().enumerate() {
        let line_no = idx + 1;
        let line = raw_line.trim_start_matches('\u{feff}');
        if in_comment.is_none() && depth == 0 {
            let t = line.trim();
            if t.starts_with('%') {
                continue;
            }
            if t.starts_with('[') {
                // A tag after movetext starts the next game.
                if !cur.moves.is_empty() || cur.result.is_some() {
                    games.push(std::mem::take(&mut cur));
                    cur.first_line = line_no;
                }
                if cur.is_empty() {
                    cur.first_line = line_no;
                }
                let tag = parse_tag(t)
                    .ok_or_else(|| format!("line {line_no}: malformed tag pair '{t}' (expected [Name \"value\"])"))?;
                cur.tags.push(tag);
                continue;
            }
        }
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if in_comment.is_some() {
                if c == '}' {
                    in_comment = None;
                }
                i += 1;
                continue;
            }
            match c {
                '{' => {
                    in_comment = Some(line_no);
                    i += 1;
                }
                ';' => break,
                '(' => {
                    depth += 1;
                    i += 1;
                }
                '}' => {
                    return Err(format!("line {line_no}: '}}' closes a comment that was never opened"));
                }
                ')' => {
                    if depth == 0 {
                        return Err(format!("line {line_no}: ')' closes a variation that was never opened"));
                    }
                    depth -= 1;
                    i += 1;
                }
                c if c.is_whitespace() => i += 1,
                _ => {
                    let start = i;
                    while i < chars.len() && !chars[i].is_whitespace() && !"{}();".contains(chars[i]) {
                        i += 1;
                    }
                    if depth > 0 {
                        continue;
                    }
                    let tok: String = chars[start..i].iter().collect();
                    if tok.starts_with('$') {
                        continue;
                    }
                    if is_result(&tok) {
                        cur.result = Some(tok);
                        games.push(std::mem::take(&mut cur));
                        cur.first_line = line_no;
                        continue;
                    }
                    // Strip a move number, "12." or "12..." (possibly glued to the move).
                    let digits = tok.chars().take_while(|c| c.is_ascii_digit()).count();
                    let rest = &tok[digits..];
                    let after_dots = rest.trim_start_matches('.');
                    let tok = if digits > 0 && after_dots.len() < rest.len() {
                        after_dots
                    } else if digits > 0 && rest.is_empty() {
                        // A bare number without a dot: tolerated as a move number.
                        ""
                    } else {
                        tok.as_str()
                    };
                    let tok = tok.trim_end_matches(['!', '?']);
                    if tok.is_empty() || tok == "..." {
                        continue;
                    }
                    cur.moves.push((line_no, tok.to_string()));
                }
            }
        }
    }
    if let Some(l) = in_comment {
        return Err(format!("line {l}: a comment opened with '{{' is never closed"));
    }
    if depth > 0 {
        return Err("a variation opened with '(' is never closed".into());
    }
    if !cur.is_empty() {
        games.push(cur);
    }
    Ok(games)
}

fn tag<'a>(tags: &'a [(String, String)], key: &str) -> Option<&'a str> {
    tags.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.as_str())
}

fn result_of(status: Status) -> &'static str {
    match status {
        Status::Ongoing => "*",
        Status::Over(o) => match o.winner {
            Some(Player::First) => "1-0",
            Some(Player::Second) => "0-1",
            None => "1/2-1/2",
        },
    }
}

/// Read every game of a PGN file and replay it.
pub fn import(text: &str) -> Result<Vec<Replayed<Cumisitha>>, String> {
    let raw = tokenize(text)?;
    let mut out = Vec::new();
    for (gi, g) in raw.into_iter().enumerate() {
        let n = gi + 1;
        let at = |line: usize| format!("game {n} (line {line})");
        if let Some(v) = tag(&g.tags, "Variant") {
            let v_low = v.to_ascii_lowercase();
            if !matches!(v_low.as_str(), "cumisitha" | "standard" | "chess" | "from position" | "") {
                return Err(format!("{}: the record is for the variant '{v}', not Cumisitha", at(g.first_line)));
            }
        }
        let mut state = match tag(&g.tags, "FEN") {
            Some(fen) => Cumisitha::from_position(fen, &NoOptions)
                .map_err(|e| format!("{}: bad FEN tag '{fen}': {e}", at(g.first_line)))?,
            None => Cumisitha::new(&NoOptions),
        };
        let mut ended_at = state.status().is_over().then_some(0u32);
        let mut applied = 0u32;
        for (line, text) in &g.moves {
            let mv =
                state.parse_move(text).map_err(|e| format!("{}, ply {}: '{text}': {e}", at(*line), applied + 1))?;
            state
                .play_chess(mv)
                .map_err(|e| format!("{}, ply {}: illegal move '{text}': {e}", at(*line), applied + 1))?;
            applied += 1;
            if ended_at.is_none() && state.status().is_over() {
                ended_at = Some(applied);
            }
        }
        let mut notes = Vec::new();
        // `ended_at` only when the record goes on past the end.
        let ended_at = match ended_at {
            Some(p) if p < applied => {
                notes.push(format!(
                    "Cumisitha rules end this game after ply {p} (100-ply counter); the record goes on for {} more plies",
                    applied - p
                ));
                Some(p)
            }
            _ => None,
        };
        let ours = result_of(state.status());
        if let Some(theirs) = g.result.as_deref().or(tag(&g.tags, "Result")) {
            let theirs = if theirs == "½-½" { "1/2-1/2" } else { theirs };
            if theirs != "*" && theirs != ours {
                let why = match state.status() {
                    Status::Ongoing => "the game is not over under Cumisitha rules".to_string(),
                    Status::Over(o) => format!("Cumisitha rules give {ours} ({})", o.reason),
                };
                notes.push(format!("the record's result is {theirs}; {why}"));
            }
        }
        if g.moves.is_empty() && g.tags.is_empty() {
            continue;
        }
        out.push(Replayed { state, tags: g.tags, moves: applied as usize, ended_at, notes });
    }
    if out.is_empty() {
        return Err("the PGN holds no game".into());
    }
    Ok(out)
}

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Write a game as PGN with SAN moves and a `[Variant "Cumisitha"]` tag.
pub fn export(log: &GameLog) -> Result<String, String> {
    let end = replay_log::<Cumisitha>(log)?;
    let start = match &log.start_position {
        Some(p) => Cumisitha::from_position(p, &NoOptions).map_err(|e| format!("bad position: {e}"))?,
        None => Cumisitha::new(&NoOptions),
    };
    let result = match log.result.as_deref() {
        Some("white") => "1-0",
        Some("black") => "0-1",
        Some("draw") => "1/2-1/2",
        Some(other) if is_result(other) => other,
        Some(other) => return Err(format!("unknown result '{other}' (white, black or draw)")),
        None => result_of(end.status()),
    };
    let date = log.date.as_deref().map(|d| d.replace('-', ".")).unwrap_or_else(|| "????.??.??".into());
    let mut out = String::new();
    let name = |i: usize| if log.players[i].is_empty() { "?".to_string() } else { log.players[i].clone() };
    for (k, v) in [
        ("Event", "Tabula game".to_string()),
        ("Site", "Tabula".to_string()),
        ("Date", date),
        ("Round", "-".to_string()),
        ("White", name(0)),
        ("Black", name(1)),
        ("Result", result.to_string()),
        ("Variant", "Cumisitha".to_string()),
    ] {
        out.push_str(&format!("[{k} \"{}\"]\n", quote(&v)));
    }
    let start_fen = start.position().unwrap_or_default();
    if start_fen != START_FEN {
        out.push_str("[SetUp \"1\"]\n");
        out.push_str(&format!("[FEN \"{}\"]\n", quote(&start_fen)));
    }
    let reason = log.reason.clone().or_else(|| end.status().outcome().map(|o| o.reason.to_string()));
    if let Some(r) = reason {
        out.push_str(&format!("[Termination \"{}\"]\n", quote(&r)));
    }
    out.push('\n');
    let mut state = start;
    let mut scratch = Vec::new();
    let mut tokens = Vec::new();
    for (i, text) in log.moves.iter().enumerate() {
        let mv = state.check_move(text).map_err(|e| format!("move {}: {e}", i + 1))?;
        let number = state.board().fullmove_number();
        let white = state.board().side_to_move() == cozy_chess::Color::White;
        if white {
            tokens.push(format!("{number}."));
        } else if i == 0 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(san::format_san(state.board(), mv, &mut scratch));
        state.play(mv);
    }
    tokens.push(result.to_string());
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push('\n');
    Ok(out)
}
