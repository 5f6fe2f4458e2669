//! Checks every game must pass, shared by the games' own tests and the
//! workspace's property tests. Each returns a description of the first
//! violation found.

use crate::game::{Game, Status};
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
pub fn check_random_game<G: Game>(start: &G, seed: u64, max_plies: u32) -> Result<u32, String> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut state = start.clone();
    let mut moves = Vec::new();
    let mut plies = 0;
    loop {
        let here = || format!("{} seed {seed} ply {plies}", G::ID);
        state.legal_moves(&mut moves);
        match state.status() {
            Status::Ongoing if moves.is_empty() => return Err(format!("{}: ongoing with no legal move", here())),
            Status::Over(_) if !moves.is_empty() => {
                return Err(format!("{}: over but {} legal moves", here(), moves.len()))
            }
            _ => {}
        }
        if state.hash() != state.hash_from_scratch() {
            return Err(format!(
                "{}: incremental hash {:x} != from scratch {:x}",
                here(),
                state.hash(),
                state.hash_from_scratch()
            ));
        }
        for &m in &moves {
            let text = state.format_move(m);
            match state.parse_move(&text) {
                Ok(back) if back == m => {}
                Ok(back) => return Err(format!("{}: '{text}' parses to {back:?}, not {m:?}", here())),
                Err(e) => return Err(format!("{}: '{text}' does not parse: {e}", here())),
            }
        }
        if let Some(p) = state.position() {
            match G::from_position(&p, state.options()) {
                Ok(back) => {
                    if back.position().as_deref() != Some(p.as_str()) {
                        return Err(format!("{}: position '{p}' reads back as {:?}", here(), back.position()));
                    }
                    if back.hash() != state.hash() {
                        return Err(format!("{}: position '{p}' reads back with another hash", here()));
                    }
                }
                Err(e) => return Err(format!("{}: own position '{p}' refused: {e}", here())),
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
            return Err(format!("{}: a clone played {m:?} differently", here()));
        }
        plies += 1;
    }
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
