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

/// Plays a uniformly random legal move a share of the time and lets another
/// agent choose otherwise: the bottom rungs of a level ladder, where even a
/// one-ply search is too strong for a beginner.
pub struct WithRandomMoves<G: Game> {
    inner: Box<dyn Agent<G>>,
    share: f64,
    rng: Rng,
    moves: Vec<G::Move>,
}

impl<G: Game> WithRandomMoves<G> {
    /// `inner`, but a random move `share` of the time (0 to 1), drawn from `seed`.
    ///
    /// ```
    /// use tabula_ai::{RandomAgent, WithRandomMoves};
    /// use tabula_core::{example::TicTacToe, Agent, Game, NoOptions, ThinkContext};
    /// let g = TicTacToe::new(&NoOptions);
    /// // Never random: the inner agent's move, whatever the seed.
    /// let inner: Box<dyn Agent<TicTacToe>> = Box::new(RandomAgent::new(3));
    /// let mut never = WithRandomMoves::new(inner, 0.0, 1);
    /// assert_eq!(never.choose(&g, &ThinkContext::default()), RandomAgent::new(3).choose(&g, &ThinkContext::default()));
    /// assert!(never.describe().ends_with("(a random move 0% of the time)"));
    /// ```
    pub fn new(inner: Box<dyn Agent<G>>, share: f64, seed: u64) -> Self {
        WithRandomMoves { inner, share: share.clamp(0.0, 1.0), rng: crate::rng(seed), moves: Vec::new() }
    }
}

impl<G: Game> Agent<G> for WithRandomMoves<G> {
    fn choose(&mut self, state: &G, ctx: &ThinkContext) -> G::Move {
        // Draw every move, random or not, so a seed replays the same game.
        if self.rng.random::<f64>() < self.share {
            state.legal_moves(&mut self.moves);
            if !self.moves.is_empty() {
                return self.moves[self.rng.random_range(0..self.moves.len())];
            }
        }
        self.inner.choose(state, ctx)
    }
    fn describe(&self) -> String {
        format!("{} (a random move {}% of the time)", self.inner.describe(), (self.share * 100.0).round())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::example::TicTacToe;
    use tabula_core::NoOptions;

    /// Always the first legal move.
    struct First;
    impl Agent<TicTacToe> for First {
        fn choose(&mut self, state: &TicTacToe, _ctx: &ThinkContext) -> u8 {
            let mut moves = Vec::new();
            state.legal_moves(&mut moves);
            moves[0]
        }
        fn describe(&self) -> String {
            "first".into()
        }
    }

    #[test]
    fn the_share_of_random_moves_is_the_one_asked_for() {
        let g = TicTacToe::new(&NoOptions);
        let first = First.choose(&g, &ThinkContext::default());
        for (share, low, high) in [(0.0, 0, 0), (0.3, 2_400, 3_600), (1.0, 9_000, 11_000)] {
            let mut agent = WithRandomMoves::new(Box::new(First), share, 5);
            // A random move is the first one a ninth of the time.
            let other = (0..10_000).filter(|_| agent.choose(&g, &ThinkContext::default()) != first).count();
            let random = other * 9 / 8;
            assert!((low..=high).contains(&random), "share {share}: about {random} random moves of 10000");
        }
    }
}
