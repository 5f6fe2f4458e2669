//! The checks every game must pass, in one place: each game crate's
//! `tests/conformance.rs` calls [`random_sim_test`] (OpenSpiel's
//! `RandomSimTest`) on a few start positions, and feeds arbitrary strings
//! to [`feed_parsers`].

use crate::game::{Game, LevelSpec, Status};
use crate::options::GameOptions;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Play one random legal game from `start` (up to `max_plies`), checking at
/// every ply that:
/// - the status agrees with the legal moves (over exactly when none),
/// - a clone plays on exactly like the original,
/// - the incremental hash equals the hash from scratch,
/// - every legal move formats and parses back to itself,
/// - the position string (if any) round-trips with the same hash.
pub fn check_random_game<G: Game>(start: &G, seed: u64, max_plies: u32) -> Result<u32, ConformanceError> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut state = start.clone();
    let mut moves = Vec::new();
    let mut plies = 0;
    loop {
        let fail = |what: String| Err(ConformanceError { game: G::ID, seed, ply: plies, what });
        state.legal_moves(&mut moves);
        match state.status() {
            Status::Ongoing if moves.is_empty() => return fail("ongoing with no legal move".into()),
            Status::Over(_) if !moves.is_empty() => return fail(format!("over but {} legal moves", moves.len())),
            _ => {}
        }
        if state.hash() != state.hash_from_scratch() {
            let (h, scratch) = (state.hash(), state.hash_from_scratch());
            return fail(format!("incremental hash {h:x} != from scratch {scratch:x}"));
        }
        for &m in &moves {
            let text = state.format_move(m);
            match state.parse_move(&text) {
                Ok(back) if back == m => {}
                Ok(back) => return fail(format!("'{text}' parses to {back:?}, not {m:?}")),
                Err(e) => return fail(format!("'{text}' does not parse: {e}")),
            }
        }
        if let Some(p) = state.position() {
            match G::from_position(&p, state.options()) {
                Ok(back) if back.position().as_deref() != Some(p.as_str()) => {
                    return fail(format!("position '{p}' reads back as {:?}", back.position()))
                }
                Ok(back) if back.hash() != state.hash() => {
                    return fail(format!("position '{p}' reads back with another hash"))
                }
                Ok(_) => {}
                Err(e) => return fail(format!("own position '{p}' refused: {e}")),
            }
        }
        if moves.is_empty() || plies >= max_plies {
            return Ok(plies);
        }
        let m = moves[rng.random_range(0..moves.len())];
        let mut copy = state.clone();
        state.play(m);
        copy.play(m);
        if copy.hash() != state.hash() || copy.status() != state.status() || copy.position() != state.position() {
            return fail(format!("a clone played {m:?} differently"));
        }
        plies += 1;
    }
}

/// A broken invariant found by [`check_random_game`]: in which game, from
/// which seed, at which ply, and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{game} seed {seed} ply {ply}: {what}")]
pub struct ConformanceError {
    /// The game's id.
    pub game: &'static str,
    /// The seed of the random game.
    pub seed: u64,
    /// The ply where the invariant broke.
    pub ply: u32,
    /// What broke.
    pub what: String,
}

/// OpenSpiel's `RandomSimTest`: from each start, `games` random games (seeds
/// `seed`, `seed + 1`, ...) of at most `max_plies` plies each checked by
/// [`check_random_game`], then 200 near-miss strings fed to every parser
/// (none may panic). Every game crate runs this once, in its
/// `tests/conformance.rs`.
///
/// ```
/// use tabula_core::{conformance::random_sim_test, example::TicTacToe, Game, NoOptions};
/// random_sim_test(&[TicTacToe::new(&NoOptions)], 1, 10, 9).unwrap();
/// ```
pub fn random_sim_test<G: Game>(starts: &[G], seed: u64, games: u32, max_plies: u32) -> Result<(), ConformanceError> {
    for start in starts {
        for i in 0..games as u64 {
            check_random_game(start, seed.wrapping_add(i), max_plies)?;
        }
        for text in near_miss_strings(seed, 200) {
            feed_parsers(start, &text);
        }
    }
    Ok(())
}

/// Feed `text` to every parser of the game; none may panic. Returns the
/// number of parsers that accepted it (for the curious).
pub fn feed_parsers<G: Game>(state: &G, text: &str) -> usize {
    let mut accepted = 0;
    accepted += state.parse_move(text).is_ok() as usize;
    accepted += state.check_move(text).is_ok() as usize;
    accepted += G::from_position(text, state.options()).is_ok() as usize;
    if let Some((k, v)) = text.split_once('=') {
        let mut o = G::Options::default();
        accepted += o.set(k, v).is_ok() as usize;
    }
    accepted
}

/// Random strings that look a little like moves and positions, to fuzz
/// parsers with more than noise.
pub fn near_miss_strings(seed: u64, count: usize) -> Vec<String> {
    const PIECES: &[&str] = &[
        "a",
        "b",
        "c",
        "h",
        "i",
        "z",
        "1",
        "2",
        "3",
        "8",
        "9",
        "0",
        "-",
        "x",
        ">",
        "=",
        "/",
        ".",
        " ",
        "X",
        "O",
        "q",
        "K",
        "e2e4",
        "b2",
        "a1-a2",
        "20-16",
        "w",
        "b",
        "64",
        "99999999999",
        "-1",
        "é",
        "\u{0}",
        "=f2",
        "O-O",
        "#",
        "+",
    ];
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let n = rng.random_range(0..8);
            (0..n).map(|_| PIECES[rng.random_range(0..PIECES.len())]).collect()
        })
        .collect()
}

/// Check a game's rated levels against the ratings table they came from:
/// one rating per level (a level added or removed means measuring again),
/// every level rated, and `random`, the first level, at 0.
///
/// ```
/// use tabula_core::{conformance::check_level_ratings, LevelSpec};
///
/// let ratings = [("random", 0), ("easy", 420)];
/// let levels = LevelSpec::rated(vec![LevelSpec::new("random", ""), LevelSpec::new("easy", "")], &ratings);
/// assert_eq!(check_level_ratings(&levels, &ratings), Ok(()));
/// assert!(check_level_ratings(&levels[..1], &ratings).is_err());
/// ```
pub fn check_level_ratings(levels: &[LevelSpec], ratings: &[(&str, i32)]) -> Result<(), String> {
    if levels.len() != ratings.len() {
        return Err("a level was added or removed: measure the ratings again".into());
    }
    if let Some(level) = levels.iter().find(|level| level.elo.is_none()) {
        return Err(format!("{} has no rating", level.id));
    }
    match levels.first() {
        Some(first) if first.id == "random" && first.elo == Some(0) => Ok(()),
        _ => Err("random, the first level, anchors the scale at 0".into()),
    }
}
