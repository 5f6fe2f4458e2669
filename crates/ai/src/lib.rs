//! AIs that work on any [`tabula_core::Game`]: random play, MCTS (UCT) with
//! optional per-game playout policies, and negamax alpha-beta for games that
//! give an evaluation. None of this code knows a particular game.

#![warn(missing_docs)]

pub mod alphabeta;
pub mod levels;
pub mod mcts;
pub mod random;

pub use alphabeta::{AlphaBeta, AlphaBetaConfig, Evaluator};
pub use levels::Budget;
pub use mcts::{Mcts, MctsConfig, Parallelism, Policy, RandomPolicy};
pub use random::{RandomAgent, WithRandomMoves};

/// The random generator every AI uses: small, fast and seedable, so a seed
/// makes a whole match reproducible.
pub type Rng = rand::rngs::SmallRng;

/// A generator from a seed.
pub fn rng(seed: u64) -> Rng {
    use rand::SeedableRng;
    Rng::seed_from_u64(seed)
}
