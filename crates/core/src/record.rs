//! Game records: the string-level log that the server stores and exports,
//! and the default text record format for games without a standard one.
//!
//! The text format is PGN-like:
//! ```text
//! [Game "coldwar"]
//! [Option "key=value"]
//! [Position "X3.O1/.X1./... O"]
//! [Result "x"]
//!
//! b2 a2 b2-b3 ...
//! ```
//! Several games may follow one another; each starts with its tags.

use crate::game::{Game, GameMeta, Status};
use crate::options::GameOptions;

/// A game as the server stores it: everything in string form.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct GameLog {
    pub game: String,
    pub options: Vec<(String, String)>,
    /// The start position, when not the standard start.
    pub start_position: Option<String>,
    pub moves: Vec<String>,
    /// Display names of the two seats.
    pub players: [String; 2],
    /// A player name (`white`, `x`...), `draw`, or `None` while unfinished.
    pub result: Option<String>,
    pub reason: Option<String>,
    /// ISO date, e.g. `2026-11-30`.
    pub date: Option<String>,
}

/// A record replayed by a game: the state after its last move.
#[derive(Debug, Clone)]
pub struct Replayed<G> {
    pub state: G,
    /// The record's header tags, as read.
    pub tags: Vec<(String, String)>,
    /// Moves applied.
    pub moves: usize,
    /// The ply after which our rules would have ended the game, when the
    /// record goes on past it (other sites end games differently).
    pub ended_at: Option<u32>,
    /// Anything worth telling the user about the record.
    pub notes: Vec<String>,
}

/// Replay a log into a state, checking every move.
pub fn replay_log<G: Game>(log: &GameLog) -> Result<G, String> {
    let options = G::Options::from_pairs(&log.options).map_err(|e| e.to_string())?;
    let mut state = match &log.start_position {
        Some(p) => G::from_position(p, &options).map_err(|e| format!("bad position: {e}"))?,
        None => G::new(&options),
    };
    for (i, text) in log.moves.iter().enumerate() {
        let mv = state.check_move(text).map_err(|e| format!("move {}: {e}", i + 1))?;
        state.play(mv);
    }
    Ok(state)
}

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Write a log in the text record format.
pub fn export_text<G: GameMeta>(log: &GameLog) -> Result<String, String> {
    let state = replay_log::<G>(log)?;
    let mut out = String::new();
    out.push_str(&format!("[Game \"{}\"]\n", G::ID));
    for (k, v) in &log.options {
        out.push_str(&format!("[Option \"{}={}\"]\n", quote(k), quote(v)));
    }
    if let Some(p) = &log.start_position {
        out.push_str(&format!("[Position \"{}\"]\n", quote(p)));
    }
    for (i, name) in log.players.iter().enumerate() {
        if !name.is_empty() {
            out.push_str(&format!("[{} \"{}\"]\n", capitalize(G::PLAYERS[i]), quote(name)));
        }
    }
    if let Some(d) = &log.date {
        out.push_str(&format!("[Date \"{}\"]\n", quote(d)));
    }
    let result = match (&log.result, state.status()) {
        (Some(r), _) => r.clone(),
        (None, Status::Over(o)) => o.winner.map_or("draw".to_string(), |w| G::PLAYERS[w.index()].to_string()),
        (None, Status::Ongoing) => "*".to_string(),
    };
    out.push_str(&format!("[Result \"{}\"]\n", quote(&result)));
    if let Some(r) = &log.reason {
        out.push_str(&format!("[Reason \"{}\"]\n", quote(r)));
    }
    out.push('\n');
    let mut line = String::new();
    for (i, m) in log.moves.iter().enumerate() {
        if i % 2 == 0 {
            let n = format!("{}. ", i / 2 + 1);
            if line.len() + n.len() + m.len() > 78 {
                out.push_str(line.trim_end());
                out.push('\n');
                line.clear();
            }
            line.push_str(&n);
        }
        line.push_str(m);
        line.push(' ');
    }
    line.push_str(&result);
    out.push_str(line.trim_end());
    out.push('\n');
    Ok(out)
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Parse a `[Key "value"]` tag line.
pub fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    let (key, rest) = inner.split_once(char::is_whitespace)?;
    let rest = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            value.extend(chars.next());
        } else {
            value.push(c);
        }
    }
    Some((key.to_string(), value))
}

/// Read every game of a text record and replay it.
pub fn import_text<G: GameMeta>(text: &str) -> Result<Vec<Replayed<G>>, String> {
    let mut games = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut moves: Vec<(usize, String)> = Vec::new();
    let mut in_moves = false;
    let flush = |tags: &mut Vec<(String, String)>,
                 moves: &mut Vec<(usize, String)>,
                 games: &mut Vec<Replayed<G>>|
     -> Result<(), String> {
        if tags.is_empty() && moves.is_empty() {
            return Ok(());
        }
        let mut options = Vec::new();
        let mut position = None;
        for (k, v) in tags.iter() {
            match k.as_str() {
                "Option" => {
                    let (k, v) = crate::options::parse_pair(v).map_err(|e| format!("game {}: {e}", games.len() + 1))?;
                    options.push((k, v));
                }
                "Position" => position = Some(v.clone()),
                "Game" if v != G::ID => {
                    return Err(format!("game {}: the record is for '{v}', not '{}'", games.len() + 1, G::ID))
                }
                _ => {}
            }
        }
        let opts = G::Options::from_pairs(&options).map_err(|e| format!("game {}: {e}", games.len() + 1))?;
        let mut state = match &position {
            Some(p) => {
                G::from_position(p, &opts).map_err(|e| format!("game {}: bad position: {e}", games.len() + 1))?
            }
            None => G::new(&opts),
        };
        let mut applied = 0;
        for (line, m) in moves.iter() {
            let mv = state
                .check_move(m)
                .map_err(|e| format!("game {}, line {line}, move {}: {e}", games.len() + 1, applied + 1))?;
            state.play(mv);
            applied += 1;
        }
        games.push(Replayed { state, tags: std::mem::take(tags), moves: applied, ended_at: None, notes: Vec::new() });
        moves.clear();
        Ok(())
    };
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('[') {
            if in_moves {
                flush(&mut tags, &mut moves, &mut games)?;
                in_moves = false;
            }
            let tag = parse_tag(line).ok_or_else(|| format!("line {}: malformed tag '{line}'", n + 1))?;
            tags.push(tag);
            continue;
        }
        in_moves = true;
        for tok in line.split_whitespace() {
            let is_number = tok.ends_with('.') && tok[..tok.len() - 1].chars().all(|c| c.is_ascii_digit());
            let is_result = tok == "*" || tok == "draw" || G::PLAYERS.contains(&tok);
            if !is_number && !is_result {
                moves.push((n + 1, tok.to_string()));
            }
        }
    }
    flush(&mut tags, &mut moves, &mut games)?;
    if games.is_empty() {
        return Err("the record holds no game".to_string());
    }
    Ok(games)
}
