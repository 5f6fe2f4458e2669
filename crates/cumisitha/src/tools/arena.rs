//! A match between Tabula's engine (in process) and an external UCI engine
//! (a child process such as Debian's `stockfish`, or an older build of
//! `tabula uci` for self-play), adjudicated by Cumisitha rules: checkmate
//! wins, stalemate and the 100-ply counter draw, and a repetition plays on.
//!
//! Openings come from a fixed book of fifty, optionally followed by a few
//! seeded random plies; each opening is played twice, once with each colour
//! (a *pair*). Games can run several at a time, each worker with its own
//! engines. With an [`Sprt`] the match stops as soon as the sequential
//! probability ratio test accepts one of its hypotheses, judged on the
//! pentanomial distribution of the pairs' results.

use crate::ai::see::see_ge;
use crate::ai::{Engine, Limits};
use crate::notation::{format_uci, parse_uci};
use crate::rules::Cumisitha;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tabula_core::uci::{UciEngine, UciError};
use tabula_core::{Game, NoOptions, Player, Status};
use tabula_ratings::match_stats as stats;
pub use tabula_ratings::match_stats::{Interval, Sprt, SprtState};

/// Fifty common openings (UCI moves from the start), each played with both
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
    ("Queen's Gambit Accepted", "d2d4 d7d5 c2c4 d5c4"),
    ("Semi-Slav", "d2d4 d7d5 c2c4 c7c6 g1f3 g8f6 b1c3 e7e6"),
    ("Catalan", "d2d4 g8f6 c2c4 e7e6 g2g3 d7d5"),
    ("Queen's Indian", "d2d4 g8f6 c2c4 e7e6 g1f3 b7b6"),
    ("Bogo-Indian", "d2d4 g8f6 c2c4 e7e6 g1f3 f8b4"),
    ("Benoni", "d2d4 g8f6 c2c4 c7c5 d4d5 e7e6"),
    ("Benko Gambit", "d2d4 g8f6 c2c4 c7c5 d4d5 b7b5"),
    ("Trompowsky", "d2d4 g8f6 c1g5"),
    ("Sicilian Najdorf", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6"),
    ("Sicilian Dragon", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 g7g6"),
    ("Sicilian Taimanov", "e2e4 c7c5 g1f3 e7e6 d2d4 c5d4 f3d4 b8c6"),
    ("Sicilian Closed", "e2e4 c7c5 b1c3 b8c6 g2g3"),
    ("Sicilian Kan", "e2e4 c7c5 g1f3 e7e6 d2d4 c5d4 f3d4 a7a6"),
    ("French Winawer", "e2e4 e7e6 d2d4 d7d5 b1c3 f8b4"),
    ("French Advance", "e2e4 e7e6 d2d4 d7d5 e4e5 c7c5"),
    ("Caro-Kann Advance", "e2e4 c7c6 d2d4 d7d5 e4e5 c8f5"),
    ("Two Knights", "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6"),
    ("Four Knights", "e2e4 e7e5 g1f3 b8c6 b1c3 g8f6"),
    ("King's Gambit", "e2e4 e7e5 f2f4 e5f4"),
    ("Vienna", "e2e4 e7e5 b1c3 g8f6"),
    ("Philidor", "e2e4 e7e5 g1f3 d7d6"),
    ("Modern", "e2e4 g7g6 d2d4 f8g7"),
    ("English Symmetrical", "c2c4 c7c5 g1f3 g8f6"),
    ("King's Indian Attack", "g1f3 d7d5 g2g3 g8f6 f1g2"),
    ("Bird", "f2f4 d7d5 g1f3"),
    ("Larsen", "b2b3 e7e5 c1b2"),
    ("Colle", "d2d4 d7d5 g1f3 g8f6 e2e3"),
    ("Ruy Lopez Berlin", "e2e4 e7e5 g1f3 b8c6 f1b5 g8f6"),
    ("Evans Gambit", "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 b2b4"),
    ("Scandinavian Modern", "e2e4 d7d5 e4d5 g8f6"),
];

/// How long each engine thinks about a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveLimit {
    /// A fixed time per move (UCI `go movetime`).
    Movetime(Duration),
    /// A fixed number of nodes (UCI `go nodes`): fair and reproducible on a
    /// busy machine.
    Nodes(u64),
    /// A fixed depth (UCI `go depth`).
    Depth(i32),
}

impl MoveLimit {
    fn go(&self) -> String {
        match self {
            MoveLimit::Movetime(t) => format!("go movetime {}", t.as_millis()),
            MoveLimit::Nodes(n) => format!("go nodes {n}"),
            MoveLimit::Depth(d) => format!("go depth {d}"),
        }
    }

    fn limits(&self) -> Limits {
        match *self {
            // Keep a few milliseconds for answering, as `tabula uci` does.
            MoveLimit::Movetime(t) => Limits::movetime(t.saturating_sub(Duration::from_millis(5))),
            MoveLimit::Nodes(n) => Limits { nodes: Some(n), ..Limits::default() },
            MoveLimit::Depth(d) => Limits::depth(d),
        }
    }

    fn answer_timeout(&self) -> Duration {
        match self {
            MoveLimit::Movetime(t) => *t + Duration::from_secs(10),
            _ => Duration::from_secs(600),
        }
    }
}

impl std::fmt::Display for MoveLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveLimit::Movetime(t) => write!(f, "{} ms/move", t.as_millis()),
            MoveLimit::Nodes(n) => write!(f, "{n} nodes/move"),
            MoveLimit::Depth(d) => write!(f, "depth {d}/move"),
        }
    }
}

/// How to run a match.
#[derive(Debug, Clone)]
pub struct ArenaConfig {
    /// The external engine's program and arguments.
    pub command: Vec<String>,
    /// `setoption` pairs sent to it, e.g. ("Skill Level", "3").
    pub options: Vec<(String, String)>,
    /// How long both engines think per move.
    pub limit: MoveLimit,
    /// The number of games (the most, with an SPRT).
    pub games: usize,
    /// Our transposition table size.
    pub hash_mb: usize,
    /// Games played at the same time, each by its own pair of engines.
    pub concurrency: usize,
    /// Random plies played after the book line (0 for the book alone).
    pub random_plies: u32,
    /// Seed of the random plies.
    pub seed: u64,
    /// Stop when this test decides.
    pub sprt: Option<Sprt>,
}

impl Default for ArenaConfig {
    fn default() -> Self {
        ArenaConfig {
            command: vec!["stockfish".into()],
            options: Vec::new(),
            limit: MoveLimit::Movetime(Duration::from_millis(100)),
            games: 40,
            hash_mb: 32,
            concurrency: 1,
            random_plies: 0,
            seed: 1,
            sprt: None,
        }
    }
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
    /// Finished games in the order they were numbered.
    pub games: Vec<ArenaGame>,
    /// Our wins.
    pub wins: usize,
    /// Draws.
    pub draws: usize,
    /// Our losses.
    pub losses: usize,
    /// Finished pairs by Tabula's points in them: 0, ½, 1, 1½, 2.
    pub pentanomial: [u32; 5],
    /// Our search's nodes and wall time over the match.
    pub nodes: u64,
    /// Time our engine searched.
    pub search_time: Duration,
    /// CPU time of our process (both engines' threads when in process).
    pub cpu_ours: Duration,
    /// CPU time of the opponents' processes.
    pub cpu_theirs: Duration,
    /// The SPRT's state after the last pair, when one runs.
    pub sprt: Option<SprtState>,
    /// Wall time of the match.
    pub wall: Duration,
}

impl ArenaReport {
    /// Our score, 0 to 1.
    pub fn score(&self) -> f64 {
        if self.games.is_empty() {
            return 0.0;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games.len() as f64
    }

    /// Tabula's score with a 95% confidence interval, from the games.
    pub fn score_interval(&self) -> Interval {
        stats::trinomial_interval(self.wins, self.draws, self.losses)
    }

    /// The score with the 95% interval the Elo difference is read from:
    /// from the pairs when there are some (colour and opening effects
    /// cancel in a pair), else from the games. Print it with
    /// [`stats::format_elo`], which says ±inf where no finite difference fits.
    pub fn elo_basis(&self) -> Interval {
        let pairs: u32 = self.pentanomial.iter().sum();
        if pairs >= 2 {
            stats::pentanomial_interval(&self.pentanomial)
        } else {
            self.score_interval()
        }
    }

    /// Our engine's nodes per second.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.search_time.as_secs_f64().max(1e-9)) as u64
    }
}

/// Why a match against an external engine stopped.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// Starting or talking to the external engine failed.
    #[error(transparent)]
    Engine(#[from] UciError),
    /// A line of the opening book was refused (a bug in the book).
    #[error("opening {0}: {1}")]
    Opening(&'static str, tabula_core::MoveError),
    /// No game asked for.
    #[error("a match needs at least one game")]
    NoGames,
    /// The random plies after an opening never left a level position.
    #[error("no balanced opening found after {opening} with {plies} random plies")]
    NoBalancedOpening {
        /// The book line.
        opening: &'static str,
        /// The random plies asked for.
        plies: u32,
    },
    /// Our engine found no move although the game goes on (a bug).
    #[error("our engine found no move in an ongoing game")]
    NoMove,
}

/// Start the external engine, set its options and wait until it is ready.
fn start_engine(config: &ArenaConfig) -> Result<UciEngine, ArenaError> {
    let mut ext = UciEngine::start(&config.command)?;
    ext.handshake(&config.options)?;
    Ok(ext)
}

/// The CPU time an engine's process has used so far (Linux only; zero
/// elsewhere).
fn engine_cpu_time(ext: &UciEngine) -> Duration {
    proc_cpu_time(ext.id()).unwrap_or_default()
}

/// User plus system CPU time of a process from `/proc/PID/stat`, counted in
/// the kernel's USER_HZ ticks (100 per second on Linux).
fn proc_cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces; the fields after it are plain.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// The opening of pair `pair`: a book line, then `random_plies` seeded random
/// moves after which material is level, the side to move is not in check and
/// has no capture that wins material by static exchange (so that neither
/// colour starts a piece up).
pub fn opening(pair: usize, random_plies: u32, seed: u64) -> Result<(&'static str, Vec<String>), ArenaError> {
    let (name, line) = OPENINGS[pair % OPENINGS.len()];
    let mut book = Cumisitha::new(&NoOptions);
    let mut moves = Vec::new();
    for m in line.split_whitespace() {
        let mv = book.check_move(m).map_err(|e| ArenaError::Opening(name, e))?;
        book.play(mv);
        moves.push(m.to_string());
    }
    if random_plies == 0 {
        return Ok((name, moves));
    }
    let mut rng = SmallRng::seed_from_u64(seed ^ (pair as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut legal = Vec::new();
    for _attempt in 0..1000 {
        let mut state = book.clone();
        let mut extra = Vec::new();
        for _ in 0..random_plies {
            if state.status().is_over() {
                break;
            }
            legal.clear();
            state.legal_moves(&mut legal);
            let mv = legal[rng.random_range(0..legal.len())];
            extra.push(format_uci(state.board(), mv));
            state.play(mv);
        }
        if balanced(&state) {
            moves.extend(extra);
            return Ok((name, moves));
        }
    }
    Err(ArenaError::NoBalancedOpening { opening: name, plies: random_plies })
}

fn balanced(state: &Cumisitha) -> bool {
    use cozy_chess::{Color, Piece};
    if state.status().is_over() || !state.board().checkers().is_empty() {
        return false;
    }
    let b = state.board();
    let material = |c: Color| -> i32 {
        [(Piece::Pawn, 1), (Piece::Knight, 3), (Piece::Bishop, 3), (Piece::Rook, 5), (Piece::Queen, 9)]
            .iter()
            .map(|&(p, v)| v * b.colored_pieces(c, p).len() as i32)
            .sum()
    };
    if material(Color::White) != material(Color::Black) {
        return false;
    }
    let them = b.colors(!b.side_to_move());
    let mut wins_material = false;
    b.generate_moves(|pm| {
        for m in pm {
            if them.has(m.to) && see_ge(b, m, 1) {
                wins_material = true;
            }
        }
        wins_material
    });
    !wins_material
}

/// What a worker sends back.
enum Done {
    Game(ArenaGame, u64, Duration),
    Failed(ArenaError),
    /// The worker has finished; its opponent used this much CPU.
    Exit(Duration),
}

/// Play one game; `None` when the match was stopped meanwhile.
fn play_game(
    config: &ArenaConfig,
    number: usize,
    engine: &mut Engine,
    ext: &mut UciEngine,
    stop: &AtomicBool,
) -> Result<Option<(ArenaGame, u64, Duration)>, ArenaError> {
    let pair = number / 2;
    let (opening, book) = opening(pair, config.random_plies, config.seed)?;
    let tabula_white = number.is_multiple_of(2);
    let tabula = if tabula_white { Player::First } else { Player::Second };
    engine.new_game();
    ext.new_game()?;
    let mut state = Cumisitha::new(&NoOptions);
    for m in &book {
        let mv = state.check_move(m).map_err(|e| ArenaError::Opening(opening, e))?;
        state.play(mv);
    }
    let mut moves = book;
    let (mut nodes, mut time) = (0, Duration::ZERO);
    let mut forfeit: Option<(Player, String)> = None;
    while !state.status().is_over() {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let mv = if state.to_move() == tabula {
            let r = engine.search(state.board(), config.limit.limits(), Arc::new(AtomicBool::new(false)), &mut |_| {});
            nodes += r.nodes;
            time += r.time;
            r.best.ok_or(ArenaError::NoMove)?
        } else {
            let position = format!("position startpos moves {}", moves.join(" "));
            let text = ext.best_move(&position, &config.limit.go(), config.limit.answer_timeout())?;
            match parse_uci(state.board(), &text) {
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
    let game = ArenaGame {
        number: number + 1,
        opening,
        tabula_white,
        tabula_score,
        reason,
        plies: moves.len() as u32,
        moves,
        final_fen: state.position().unwrap_or_default(),
    };
    Ok(Some((game, nodes, time)))
}

/// One worker: its own engines, games taken from `next` until the match is
/// over or stopped.
fn worker(config: &ArenaConfig, next: &AtomicUsize, stop: &AtomicBool, tx: mpsc::Sender<Done>) {
    let mut ext = match start_engine(config) {
        Ok(e) => e,
        Err(e) => {
            let _ = tx.send(Done::Failed(e));
            return;
        }
    };
    let mut engine = Engine::new(config.hash_mb);
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let number = next.fetch_add(1, Ordering::SeqCst);
        if number >= config.games {
            break;
        }
        match play_game(config, number, &mut engine, &mut ext, stop) {
            Ok(Some((game, nodes, time))) => {
                if tx.send(Done::Game(game, nodes, time)).is_err() {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                let _ = tx.send(Done::Failed(e));
                break;
            }
        }
    }
    let _ = tx.send(Done::Exit(engine_cpu_time(&ext)));
}

/// Play the match; `progress` hears each finished game (in the order they
/// finish), with the report so far.
pub fn run(
    config: &ArenaConfig,
    progress: &mut dyn FnMut(&ArenaGame, &ArenaReport),
) -> Result<ArenaReport, ArenaError> {
    if config.games == 0 {
        return Err(ArenaError::NoGames);
    }
    // Check the openings before starting anything.
    for pair in 0..config.games.div_ceil(2) {
        opening(pair, config.random_plies, config.seed)?;
    }
    let began = Instant::now();
    let cpu_began = cpu_time::ProcessTime::now();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel();
    let mut report = ArenaReport::default();
    let mut failure = None;
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.clamp(1, 64) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || worker(config, next, stop, tx));
        }
        drop(tx);
        let mut half_pairs: HashMap<usize, f64> = HashMap::new();
        for done in rx {
            let (game, nodes, time) = match done {
                Done::Game(g, n, t) => (g, n, t),
                Done::Failed(e) => {
                    stop.store(true, Ordering::Relaxed);
                    failure.get_or_insert(e);
                    continue;
                }
                Done::Exit(cpu) => {
                    report.cpu_theirs += cpu;
                    continue;
                }
            };
            if stop.load(Ordering::Relaxed) {
                continue; // decided already: later games do not count
            }
            report.nodes += nodes;
            report.search_time += time;
            match game.tabula_score {
                s if s > 0.75 => report.wins += 1,
                s if s < 0.25 => report.losses += 1,
                _ => report.draws += 1,
            }
            let pair = (game.number - 1) / 2;
            if let Some(first) = half_pairs.remove(&pair) {
                report.pentanomial[((first + game.tabula_score) * 2.0).round() as usize] += 1;
                if let Some(sprt) = &config.sprt {
                    let state = sprt.state(&report.pentanomial);
                    if state.decided().is_some() {
                        stop.store(true, Ordering::Relaxed);
                    }
                    report.sprt = Some(state);
                }
            } else {
                half_pairs.insert(pair, game.tabula_score);
            }
            let pos = report.games.partition_point(|g| g.number < game.number);
            report.games.insert(pos, game.clone());
            report.wall = began.elapsed();
            progress(&game, &report);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    report.wall = began.elapsed();
    report.cpu_ours = cpu_began.elapsed();
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
    fn the_opening_book_is_legal_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for (name, line) in OPENINGS {
            let mut s = Cumisitha::new(&NoOptions);
            for m in line.split_whitespace() {
                let mv = s.check_move(m).unwrap_or_else(|e| panic!("{name}: {e}"));
                s.play(mv);
            }
            assert!(seen.insert(s.board().hash()), "{name} repeats another opening");
        }
        assert_eq!(OPENINGS.len(), 50);
    }

    #[test]
    fn random_plies_are_seeded_and_balanced() {
        let a = opening(3, 4, 7).unwrap();
        assert_eq!(a, opening(3, 4, 7).unwrap(), "the same seed gives the same opening");
        assert_eq!(a.1.len(), OPENINGS[3].1.split_whitespace().count() + 4);
        let differs = (0..20).any(|pair| opening(pair, 4, 7).unwrap().1 != opening(pair, 4, 8).unwrap().1);
        assert!(differs, "another seed gives other openings");
        let mut s = Cumisitha::new(&NoOptions);
        for m in &a.1 {
            let mv = s.check_move(m).unwrap();
            s.play(mv);
        }
        assert!(balanced(&s));
    }

    #[test]
    fn a_missing_engine_is_a_clear_error() {
        let config = ArenaConfig {
            command: vec!["/nonexistent/engine".into()],
            limit: MoveLimit::Movetime(Duration::from_millis(10)),
            games: 1,
            hash_mb: 1,
            ..ArenaConfig::default()
        };
        let err = run(&config, &mut |_, _| {}).unwrap_err().to_string();
        assert!(err.contains("cannot start '/nonexistent/engine'"), "{err}");
    }

    #[test]
    fn cpu_time_of_this_process_is_readable() {
        assert!(proc_cpu_time(std::process::id()).is_some());
    }
}
