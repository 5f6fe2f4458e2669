//! PGN import and export. Import reads real-world PGN: tag pairs, move
//! numbers, comments (`{...}` and `;` to the end of the line), NAGs (`$1`)
//! and annotation marks (`!?`), variations (skipped), `%` escape lines, and
//! several games per file. Every move is replayed and checked; a record that
//! goes on after our rules would have ended it (the 100-ply counter) is
//! replayed to its end, and [`Replayed::ended_at`] says where our rules ended it.

use crate::notation::san;
use crate::rules::Cumisitha;
use crate::rules::START_FEN;
use tabula_core::record::{parse_tag, replay_log};
use tabula_core::{Game, GameLog, MoveError, NoOptions, Player, RecordError, RecordProblem, Replayed, Status};

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
fn tokenize(text: &str) -> Result<Vec<RawGame>, RecordError> {
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
                let tag = parse_tag(t).ok_or_else(|| {
                    RecordError::syntax(format!("malformed tag pair '{t}' (expected [Name \"value\"])"))
                        .at_line(line_no)
                })?;
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
                    return Err(RecordError::syntax("'}' closes a comment that was never opened").at_line(line_no));
                }
                ')' => {
                    if depth == 0 {
                        let why = "')' closes a variation that was never opened";
                        return Err(RecordError::syntax(why).at_line(line_no));
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
                    // SAN's en passant suffix, written as a word of its own ("exd6 e.p.").
                    if tok.is_empty() || tok == "..." || tok.eq_ignore_ascii_case("e.p.") {
                        continue;
                    }
                    cur.moves.push((line_no, tok.to_string()));
                }
            }
        }
    }
    if let Some(l) = in_comment {
        return Err(RecordError::syntax("a comment opened with '{' is never closed").at_line(l));
    }
    if depth > 0 {
        return Err(RecordError::syntax("a variation opened with '(' is never closed"));
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
pub fn import(text: &str) -> Result<Vec<Replayed<Cumisitha>>, RecordError> {
    let raw = tokenize(text)?;
    let mut out = Vec::new();
    for (gi, g) in raw.into_iter().enumerate() {
        let n = gi + 1;
        let at = |line: usize, e: RecordError| e.in_game(n).at_line(line);
        if let Some(v) = tag(&g.tags, "Variant") {
            let v_low = v.to_ascii_lowercase();
            if !matches!(v_low.as_str(), "cumisitha" | "standard" | "chess" | "from position" | "") {
                let why = format!("the record is for the variant '{v}', not Cumisitha");
                return Err(at(g.first_line, RecordError::syntax(why)));
            }
        }
        let mut state = match tag(&g.tags, "FEN") {
            Some(fen) => Cumisitha::from_position(fen, &NoOptions)
                .map_err(|e| at(g.first_line, RecordError::syntax(format!("bad FEN tag '{fen}': {e}"))))?,
            None => Cumisitha::new(&NoOptions),
        };
        let mut ended_at = state.status().is_over().then_some(0u32);
        let mut applied = 0u32;
        for (line, text) in &g.moves {
            let refused = |e: MoveError| at(*line, RecordError::new(e).at_move(applied as usize + 1));
            let mv = state.parse_move(text).map_err(|e| refused(MoveError::malformed(text, e.message)))?;
            state.play_chess(mv).map_err(|e| refused(MoveError::illegal(text, e.reason)))?;
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
        return Err(RecordError::new(RecordProblem::Empty));
    }
    Ok(out)
}

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Write a game as PGN with SAN moves and a `[Variant "Cumisitha"]` tag.
pub fn export(log: &GameLog) -> Result<String, RecordError> {
    let end = replay_log::<Cumisitha>(log)?;
    let start = match &log.start_position {
        Some(p) => Cumisitha::from_position(p, &NoOptions).map_err(RecordError::position)?,
        None => Cumisitha::new(&NoOptions),
    };
    let result = match log.result.as_deref() {
        Some("white") => "1-0",
        Some("black") => "0-1",
        Some("draw") => "1/2-1/2",
        Some(other) if is_result(other) => other,
        Some(other) => return Err(RecordError::syntax(format!("unknown result '{other}' (white, black or draw)"))),
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
        let mv = state.check_move(text).map_err(|e| RecordError::new(e).at_move(i + 1))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::{GameMeta, Status};

    /// Morphy vs Duke Karl / Count Isouard, Paris 1858 (the "Opera Game"),
    /// with comments, NAGs, a variation and a move number glued to its move.
    const OPERA: &str = r#"[Event "Paris"]
[Site "Paris FRA"]
[Date "1858.??.??"]
[White "Paul Morphy"]
[Black "Duke Karl / Count Isouard"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 {This is a weak move already.} 4. dxe5 Bxf3 5. Qxf3
dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 $1 b5?! (9... Qb4 10. Qxb4) 10. Nxb5
cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 15. Bxd7+ Nxd7
16.Qb8+ ; the queen sacrifice
Nxb8 17. Rd8# 1-0
"#;

    /// Anderssen vs Kieseritzky, London 1851 (the "Immortal Game").
    const IMMORTAL: &str =
        "[Event \"London\"]\n[White \"Adolf Anderssen\"]\n[Black \"Lionel Kieseritzky\"]\n[Result \"1-0\"]\n\n\
1.e4 e5 2.f4 exf4 3.Bc4 Qh4+ 4.Kf1 b5 5.Bxb5 Nf6 6.Nf3 Qh6 7.d3 Nh5 8.Nh4 Qg5 9.Nf5 c6 10.g4 Nf6 \
11.Rg1 cxb5 12.h4 Qg6 13.h5 Qg5 14.Qf3 Ng8 15.Bxf4 Qf6 16.Nc3 Bc5 17.Nd5 Qxb2 18.Bd6 Bxg1 \
19.e5 Qxa1+ 20.Ke2 Na6 21.Nxg7+ Kd8 22.Qf6+ Nxf6 23.Be7# 1-0\n";

    /// Anderssen vs Dufresne, Berlin 1852 (the "Evergreen Game"): Nge7, Nbd2
    /// and Rad1 need disambiguation.
    const EVERGREEN: &str =
        "[Event \"Berlin\"]\n[White \"Adolf Anderssen\"]\n[Black \"Jean Dufresne\"]\n[Result \"1-0\"]\n\n\
1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. b4 Bxb4 5. c3 Ba5 6. d4 exd4 7. O-O d3 8. Qb3 Qf6 \
9. e5 Qg6 10. Re1 Nge7 11. Ba3 b5 12. Qxb5 Rb8 13. Qa4 Bb6 14. Nbd2 Bb7 15. Ne4 Qf5 \
16. Bxd3 Qh5 17. Nf6+ gxf6 18. exf6 Rg8 19. Rad1 Qxf3 20. Rxe7+ Nxe7 21. Qxd7+ Kxd7 \
22. Bf5+ Ke8 23. Bd7+ Kf8 24. Bxe7# 1-0\n";

    fn san_tokens(pgn: &str) -> Vec<String> {
        let body: String = pgn.lines().filter(|l| !l.starts_with('[')).collect::<Vec<_>>().join(" ");
        body.split_whitespace()
            .filter(|t| !is_result(t))
            .map(|t| t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.').to_string())
            .filter(|t| !t.is_empty() && !is_result(t))
            .collect()
    }

    /// Import, check the result, export again and compare move for move.
    fn round_trip(pgn: &str, plies: usize, winner: Player) {
        let games = import(pgn).unwrap();
        assert_eq!(games.len(), 1);
        let g = &games[0];
        assert_eq!(g.moves, plies);
        let o = g.state.status().outcome().expect("the game is over");
        assert_eq!((o.winner, o.reason), (Some(winner), "checkmate"));
        assert!(g.notes.is_empty(), "{:?}", g.notes);
        // Rebuild the UCI move list, as the server stores it.
        let mut s = Cumisitha::new(&NoOptions);
        let mut uci = Vec::new();
        let raw = tokenize(pgn).unwrap();
        for (_, t) in &raw[0].moves {
            let m = s.parse_move(t).unwrap();
            uci.push(s.format_move(m));
            s.play(m);
        }
        let log =
            GameLog { game: "cumisitha".into(), moves: uci, players: ["A".into(), "B".into()], ..Default::default() };
        let out = Cumisitha::export(&log).unwrap();
        assert!(out.contains("[Variant \"Cumisitha\"]"));
        assert!(out.contains("[Result \"1-0\"]"));
        let ours: Vec<String> = san_tokens(&out);
        let theirs: Vec<String> = raw[0].moves.iter().map(|(_, t)| t.clone()).collect();
        assert_eq!(ours, theirs);
        // And the export reads back to the same position.
        let back = import(&out).unwrap();
        assert_eq!(back[0].state.position(), g.state.position());
    }

    #[test]
    fn master_games_round_trip() {
        round_trip(OPERA, 33, Player::First);
        round_trip(IMMORTAL, 45, Player::First);
        round_trip(EVERGREEN, 47, Player::First);
    }

    #[test]
    fn several_games_in_one_file() {
        let text = format!("{OPERA}\n{IMMORTAL}\n{EVERGREEN}");
        let games = import(&text).unwrap();
        assert_eq!(games.len(), 3);
        assert_eq!(tag(&games[1].tags, "Black"), Some("Lionel Kieseritzky"));
        assert_eq!(games.iter().map(|g| g.moves).collect::<Vec<_>>(), vec![33, 45, 47]);
    }

    #[test]
    fn records_that_go_past_the_counter_say_where_our_rules_ended_them() {
        let pgn = "[Variant \"Cumisitha\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 97 60\"]\n\n\
60. Kd1 Kd8 61. Ke1 Ke8 62. e4 Kd7 *\n";
        let g = &import(pgn).unwrap()[0];
        assert_eq!(g.moves, 6);
        assert_eq!(g.ended_at, Some(3));
        assert!(g.notes[0].contains("after ply 3"), "{:?}", g.notes);
        assert_eq!(g.state.status(), Status::Ongoing);
        // A drawn-by-repetition record plays on under our rules: noted.
        let pgn = "[Result \"1/2-1/2\"]\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n";
        let g = &import(pgn).unwrap()[0];
        assert!(g.notes[0].contains("not over under Cumisitha rules"), "{:?}", g.notes);
    }

    #[test]
    fn export_from_a_position_writes_fen_and_black_first_numbering() {
        let log = GameLog {
            game: "cumisitha".into(),
            start_position: Some("4k3/8/8/8/8/8/4P3/4K3 b - - 3 40".into()),
            moves: vec!["e8d7".into(), "e2e4".into()],
            ..Default::default()
        };
        let out = export(&log).unwrap();
        assert!(out.contains("[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 3 40\"]"), "{out}");
        assert!(out.contains("40... Kd7 41. e4 *"), "{out}");
    }

    #[test]
    fn broken_pgn_gets_clear_errors() {
        let err = |t: &str| import(t).unwrap_err().to_string();
        assert!(
            err("1. e4 e5 2. Ke3").contains("game 1, line 1, move 3: malformed move 'Ke3'"),
            "{}",
            err("1. e4 e5 2. Ke3")
        );
        assert!(err("[White \"x\"]\n\n1. e4 {never closed\n").contains("line 3: a comment opened"));
        assert!(err("1. e4 (1. d4 e5").contains("never closed"));
        assert!(err("1. e4 e5)").contains("never opened"));
        assert!(err("1. e4 }").contains("never opened"));
        assert!(err("[White \"x\n1. e4").contains("line 1: malformed tag"));
        assert!(err("[Variant \"Crazyhouse\"]\n1. e4").contains("variant 'Crazyhouse'"));
        assert!(err("[FEN \"8/8/8 w - - 0 1\"]\n1. e4").contains("bad FEN tag"));
        assert!(err("").contains("no game"));
        assert!(err("[Event \"x\"]\n1. e4 e5 2. Qxf7+ Ke7 *").contains("move 3: malformed move 'Qxf7+'"));
    }
}
