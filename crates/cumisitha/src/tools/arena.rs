//! A match between Tabula's engine (in process) and an external UCI engine
//! (a child process such as Debian's `stockfish`), adjudicated by Cumisitha
//! rules: checkmate wins, stalemate and the 100-ply counter draw, and a
//! repetition plays on. Openings come from a fixed book, each played once
//! with each colour, so a run is reproducible up to the engines' timing.

use crate::ai::{Engine, Limits};
use crate::notation::{format_uci, parse_uci};
use crate::rules::Cumisitha;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use tabula_core::uci::{UciEngine, UciError};
use tabula_core::{Game, NoOptions, Player, Status};

/// Twenty common openings (UCI moves from the start), each played with both
/// colours so that neither side profits from the book.
pub const OPENINGS: &[(&str, &str)] = &[
    ("Italian", "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5"),
    ("Ruy Lopez", "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6"),
    ("Sicilian Open", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6"),
    ("French", "e2e4 e7e6 d2d4 d7d5"),
    ("Caro-Kann", "e2e4 c7c6 d2d4 d7d5"),
    ("Queen's Gambit Declined", "d2d4 d7d5 c2c4 e7e6"),
    ("Slav", "d2d4 d7d5 c2c4 c7c6"),
    ("King's Indian", "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7"),
    ("Nimzo-Indian", "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4"),
    ("English", "c2c4 e7e5 b1c3 g8f6"),
    ("Scandinavian", "e2e4 d7d5 e4d5 d8d5"),
    ("Pirc", "e2e4 d7d6 d2d4 g8f6 b1c3 g7g6"),
    ("Scotch", "e2e4 e7e5 g1f3 b8c6 d2d4 e5d4"),
    ("London", "d2d4 d7d5 g1f3 g8f6 c1f4"),
    ("Dutch", "d2d4 f7f5 g2g3 g8f6"),
    ("Reti", "g1f3 d7d5 c2c4"),
    ("Alekhine", "e2e4 g8f6 e4e5 f6d5"),
    ("Petrov", "e2e4 e7e5 g1f3 g8f6"),
    ("Grunfeld", "d2d4 g8f6 c2c4 g7g6 b1c3 d7d5"),
    ("Sicilian Alapin", "e2e4 c7c5 c2c3 d7d5"),
];

/// How to run a match.
#[derive(Debug, Clone)]
pub struct ArenaConfig {
    /// The external engine's program and arguments.
    pub command: Vec<String>,
    /// `setoption` pairs sent to it, e.g. ("Skill Level", "3").
    pub options: Vec<(String, String)>,
    /// Fixed time per move for both engines.
    pub movetime: Duration,
    /// Games to play (each opening twice, once with each colour).
    pub games: usize,
    /// Our transposition table size.
    pub hash_mb: usize,
}

/// One finished game.
#[derive(Debug, Clone)]
pub struct ArenaGame {
    /// The game's number, from 1.
    pub number: usize,
    /// The opening's name.
    pub opening: &'static str,
    /// Whether our engine had White.
    pub tabula_white: bool,
    /// 1, 0.5 or 0 for Tabula.
    pub tabula_score: f64,
    /// How it ended.
    pub reason: String,
    /// Plies played.
    pub plies: u32,
    /// The moves in UCI, opening included.
    pub moves: Vec<String>,
    /// The final position.
    pub final_fen: String,
}

/// What a match found.
#[derive(Debug, Clone, Default)]
pub struct ArenaReport {
    /// Every game played.
    pub games: Vec<ArenaGame>,
    /// Our wins.
    pub wins: usize,
    /// Draws.
    pub draws: usize,
    /// Our losses.
    pub losses: usize,
    /// Our search's nodes and time over the match.
    pub nodes: u64,
    /// Time our engine searched.
    pub search_time: Duration,
}

impl ArenaReport {
    /// Our score, 0 to 1.
    pub fn score(&self) -> f64 {
        if self.games.is_empty() {
            return 0.0;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games.len() as f64
    }
    /// Our engine's nodes per second.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.search_time.as_secs_f64().max(1e-9)) as u64
    }
}

/// Why a match against an external engine stopped.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// Talking to the external engine failed.
    #[error(transparent)]
    Engine(#[from] UciError),
    /// A line of the opening book was refused (a bug in the book).
    #[error("opening {0}: {1}")]
    Opening(&'static str, tabula_core::MoveError),
    /// Our engine found no move although the game goes on (a bug).
    #[error("our engine found no move in an ongoing game")]
    NoMove,
}

/// Play the match; `progress` hears each finished game.
pub fn run(
    config: &ArenaConfig,
    progress: &mut dyn FnMut(&ArenaGame, &ArenaReport),
) -> Result<ArenaReport, ArenaError> {
    let mut ext = UciEngine::start(&config.command)?;
    ext.handshake(&config.options)?;
    let mut engine = Engine::new(config.hash_mb);
    let mut report = ArenaReport::default();
    let ms = config.movetime.as_millis();
    for g in 0..config.games {
        let (opening, book) = OPENINGS[(g / 2) % OPENINGS.len()];
        let tabula_white = g % 2 == 0;
        let tabula = if tabula_white { Player::First } else { Player::Second };
        engine.new_game();
        ext.new_game()?;
        let mut state = Cumisitha::new(&NoOptions);
        let mut moves: Vec<String> = Vec::new();
        for m in book.split_whitespace() {
            let mv = state.check_move(m).map_err(|e| ArenaError::Opening(opening, e))?;
            state.play(mv);
            moves.push(m.to_string());
        }
        let mut forfeit: Option<(Player, String)> = None;
        while !state.status().is_over() {
            let mv = if state.to_move() == tabula {
                let t = config.movetime.saturating_sub(Duration::from_millis(5));
                let r =
                    engine.search(state.board(), Limits::movetime(t), Arc::new(AtomicBool::new(false)), &mut |_| {});
                report.nodes += r.nodes;
                report.search_time += r.time;
                r.best.ok_or(ArenaError::NoMove)?
            } else {
                let position = format!("position startpos moves {}", moves.join(" "));
                let wait = config.movetime + Duration::from_secs(10);
                let text = ext.best_move(&position, &format!("go movetime {ms}"), wait)?;
                let text = text.as_str();
                match parse_uci(state.board(), text) {
                    Ok(mv) if state.board().is_legal(mv) => mv,
                    _ => {
                        forfeit = Some((tabula, format!("{} played an illegal move '{text}'", ext.name())));
                        break;
                    }
                }
            };
            moves.push(format_uci(state.board(), mv));
            state.play(mv);
        }
        let (tabula_score, reason) = match (forfeit, state.status()) {
            (Some((winner, why)), _) => (if winner == tabula { 1.0 } else { 0.0 }, why),
            (None, Status::Over(o)) => (o.score_for(tabula), o.reason.to_string()),
            (None, Status::Ongoing) => (0.5, "unfinished".to_string()),
        };
        match tabula_score {
            s if s > 0.75 => report.wins += 1,
            s if s < 0.25 => report.losses += 1,
            _ => report.draws += 1,
        }
        let game = ArenaGame {
            number: g + 1,
            opening,
            tabula_white,
            tabula_score,
            reason,
            plies: moves.len() as u32,
            moves,
            final_fen: state.position().unwrap_or_default(),
        };
        report.games.push(game.clone());
        progress(&game, &report);
    }
    Ok(report)
}

/// One game as PGN, for inspecting a match afterwards.
pub fn game_pgn(game: &ArenaGame, engine_name: &str) -> Result<String, tabula_core::RecordError> {
    let (white, black) = if game.tabula_white { ("Tabula", engine_name) } else { (engine_name, "Tabula") };
    let log = tabula_core::GameLog {
        game: "cumisitha".into(),
        moves: game.moves.clone(),
        players: [white.to_string(), black.to_string()],
        reason: Some(game.reason.clone()),
        ..Default::default()
    };
    crate::notation::pgn::export(&log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opening_book_is_legal() {
        for (name, line) in OPENINGS {
            let mut s = Cumisitha::new(&NoOptions);
            for m in line.split_whitespace() {
                let mv = s.check_move(m).unwrap_or_else(|e| panic!("{name}: {e}"));
                s.play(mv);
            }
        }
    }

    #[test]
    fn a_missing_engine_is_a_clear_error() {
        let config = ArenaConfig {
            command: vec!["/nonexistent/engine".into()],
            options: vec![],
            movetime: Duration::from_millis(10),
            games: 1,
            hash_mb: 1,
        };
        let err = run(&config, &mut |_, _| {}).unwrap_err().to_string();
        assert!(err.contains("cannot start '/nonexistent/engine'"), "{err}");
    }
}
