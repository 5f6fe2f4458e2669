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

use crate::error::{RecordError, RecordProblem};
use crate::game::{Game, GameMeta, Status};
use crate::options::GameOptions;

/// A game as the server stores it: everything in string form.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct GameLog {
    /// The game's registry id.
    pub game: String,
    /// Its options as `key=value` pairs.
    pub options: Vec<(String, String)>,
    /// The start position, when not the standard start.
    pub start_position: Option<String>,
    /// The moves in the game's notation.
    pub moves: Vec<String>,
    /// Display names of the two seats.
    pub players: [String; 2],
    /// A player name (`white`, `x`...), `draw`, or `None` while unfinished.
    pub result: Option<String>,
    /// How it ended, e.g. `checkmate`.
    pub reason: Option<String>,
    /// ISO date, e.g. `2026-11-30`.
    pub date: Option<String>,
}

/// A record replayed by a game: the state after its last move.
#[derive(Debug, Clone)]
pub struct Replayed<G> {
    /// The state after the last move.
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

/// Play `moves` (in the game's notation) from `start` (a position in the
/// game's notation, or the standard start when `None`), checking each one.
/// Every move list in Tabula is replayed through here.
///
/// ```
/// use tabula_core::{example::TicTacToe, record::replay, Game, NoOptions};
/// let state: TicTacToe = replay(&NoOptions, None, &["4", "0"]).unwrap();
/// assert_eq!(state.plies(), 2);
/// let err = replay::<TicTacToe>(&NoOptions, None, &["4", "4"]).unwrap_err();
/// assert_eq!(err.move_no, Some(2));
/// assert_eq!(err.to_string(), "move 2: illegal move '4': not a legal move in this position");
/// ```
pub fn replay<G: Game>(options: &G::Options, start: Option<&str>, moves: &[impl AsRef<str>]) -> Result<G, RecordError> {
    let mut state = match start {
        Some(p) => G::from_position(p, options).map_err(RecordError::position)?,
        None => G::new(options),
    };
    for (i, text) in moves.iter().enumerate() {
        let mv = state.check_move(text.as_ref()).map_err(|e| RecordError::new(e).at_move(i + 1))?;
        state.play(mv);
    }
    Ok(state)
}

/// Split a list of moves as people type it: separated by spaces or commas.
/// The en passant suffix of chess SAN, written as a word of its own
/// (`exd6 e.p.`), stays with its move: it is the one annotation people
/// separate from the move.
///
/// ```
/// assert_eq!(tabula_core::record::split_moves("b2 a2, b2-b3"), ["b2", "a2", "b2-b3"]);
/// assert_eq!(tabula_core::record::split_moves("exd6 e.p. Nf6"), ["exd6 e.p.", "Nf6"]);
/// ```
pub fn split_moves(text: &str) -> Vec<&str> {
    let mut moves: Vec<&str> = Vec::new();
    let offset = |word: &str| word.as_ptr() as usize - text.as_ptr() as usize;
    for word in text.split(|c: char| c.is_whitespace() || c == ',').filter(|m| !m.is_empty()) {
        match moves.last_mut() {
            Some(last) if word.eq_ignore_ascii_case("e.p.") => {
                *last = &text[offset(last)..offset(word) + word.len()];
            }
            _ => moves.push(word),
        }
    }
    moves
}

/// Replay a log into a state, checking every move.
pub fn replay_log<G: Game>(log: &GameLog) -> Result<G, RecordError> {
    let options = G::Options::from_pairs(&log.options).map_err(RecordError::new)?;
    replay(&options, log.start_position.as_deref(), &log.moves)
}

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Write a log in the text record format.
pub fn export_text<G: GameMeta>(log: &GameLog) -> Result<String, RecordError> {
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

/// One game of a text record as read, before it is replayed.
#[derive(Default)]
struct RawGame {
    tags: Vec<(String, String)>,
    /// Each move with its line.
    moves: Vec<(usize, String)>,
}

impl RawGame {
    /// Replay this game, the `number`-th of the file.
    fn replay<G: GameMeta>(self, number: usize) -> Result<Replayed<G>, RecordError> {
        let in_game = |e: RecordError| e.in_game(number);
        let mut options = Vec::new();
        let mut position = None;
        for (k, v) in &self.tags {
            match k.as_str() {
                "Option" => options.push(crate::options::parse_pair(v).map_err(|e| in_game(RecordError::new(e)))?),
                "Position" => position = Some(v.as_str()),
                "Game" if v != G::ID => {
                    let why = format!("the record is for '{v}', not '{}'", G::ID);
                    return Err(in_game(RecordError::syntax(why)));
                }
                _ => {}
            }
        }
        let opts = G::Options::from_pairs(&options).map_err(|e| in_game(RecordError::new(e)))?;
        let texts: Vec<&str> = self.moves.iter().map(|(_, m)| m.as_str()).collect();
        let state = replay::<G>(&opts, position, &texts).map_err(|mut e| {
            e.line = e.move_no.map(|n| self.moves[n - 1].0);
            in_game(e)
        })?;
        Ok(Replayed { state, tags: self.tags, moves: texts.len(), ended_at: None, notes: Vec::new() })
    }
}

/// Read every game of a text record and replay it.
pub fn import_text<G: GameMeta>(text: &str) -> Result<Vec<Replayed<G>>, RecordError> {
    let mut games = Vec::new();
    let mut cur = RawGame::default();
    let mut in_moves = false;
    let flush = |cur: &mut RawGame, games: &mut Vec<Replayed<G>>| -> Result<(), RecordError> {
        let game = std::mem::take(cur);
        if !game.tags.is_empty() || !game.moves.is_empty() {
            games.push(game.replay::<G>(games.len() + 1)?);
        }
        Ok(())
    };
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('[') {
            if in_moves {
                flush(&mut cur, &mut games)?;
                in_moves = false;
            }
            let tag =
                parse_tag(line).ok_or_else(|| RecordError::syntax(format!("malformed tag '{line}'")).at_line(n + 1))?;
            cur.tags.push(tag);
            continue;
        }
        in_moves = true;
        for tok in line.split_whitespace() {
            let is_number = tok.ends_with('.') && tok[..tok.len() - 1].chars().all(|c| c.is_ascii_digit());
            let is_result = tok == "*" || tok == "draw" || G::PLAYERS.contains(&tok);
            if !is_number && !is_result {
                cur.moves.push((n + 1, tok.to_string()));
            }
        }
    }
    flush(&mut cur, &mut games)?;
    if games.is_empty() {
        return Err(RecordError::new(RecordProblem::Empty));
    }
    Ok(games)
}
