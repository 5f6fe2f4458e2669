//! Uniformly random legal play.

use crate::Rng;
use rand::Rng as _;
use tabula_core::{Agent, Game, ThinkContext};

/// Plays a uniformly random legal move.
pub struct RandomAgent<G: Game> {
    rng: Rng,
    moves: Vec<G::Move>,
}

impl<G: Game> RandomAgent<G> {
    /// An agent whose choices follow from `seed`.
    ///
    /// ```
    /// use tabula_ai::RandomAgent;
    /// use tabula_core::{example::TicTacToe, Agent, Game, NoOptions, ThinkContext};
    /// let g = TicTacToe::new(&NoOptions);
    /// let pick = |seed| RandomAgent::new(seed).choose(&g, &ThinkContext::default());
    /// assert_eq!(pick(7), pick(7));
    /// assert!(pick(7) < 9);
    /// ```
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
