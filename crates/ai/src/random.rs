//! Uniformly random legal play, and random playouts for benchmarks.

use crate::Rng;
use rand::Rng as _;
use tabula_core::{Agent, Game, Status, ThinkContext};

/// Plays a uniformly random legal move.
pub struct RandomAgent<G: Game> {
    rng: Rng,
    moves: Vec<G::Move>,
}

impl<G: Game> RandomAgent<G> {
    pub fn new(seed: u64) -> Self {
        RandomAgent { rng: crate::rng(seed), moves: Vec::new() }
    }
}

impl<G: Game> Agent<G> for RandomAgent<G> {
    fn choose(&mut self, state: &G, _ctx: &ThinkContext) -> G::Move {
        state.legal_moves(&mut self.moves);
        self.moves[self.rng.random_range(0..self.moves.len())]
    }
    fn describe(&self) -> String {
        "uniformly random legal moves".into()
    }
}

/// Play random legal moves until the game ends or `max_plies` more plies
/// were played. Returns the plies played. `moves` is a reusable buffer, so
/// a playout allocates nothing once it has grown.
#[inline]
pub fn random_playout<G: Game>(state: &mut G, rng: &mut Rng, moves: &mut Vec<G::Move>, max_plies: u32) -> u32 {
    let mut n = 0;
    while n < max_plies {
        if state.status() != Status::Ongoing {
            break;
        }
        state.legal_moves(moves);
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.random_range(0..moves.len())];
        state.play(m);
        n += 1;
    }
    n
}
