//! The `perfect` level: plays from the solution table.

use crate::board::{ColdWar, Move};
use crate::cache::shared_table;
use crate::solve::Table;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tabula_core::{Agent, Game, ThinkContext};

/// Plays the fastest win, the longest loss, or else a drawing move,
/// choosing at random (by its seed) among equally good moves.
pub struct PerfectAgent {
    table: &'static Table,
    rng: SmallRng,
}

impl PerfectAgent {
    /// An agent on the process-wide table (read or solved on first use).
    pub fn new(seed: u64) -> Self {
        Self::with_table(shared_table(), seed)
    }

    pub fn with_table(table: &'static Table, seed: u64) -> Self {
        PerfectAgent { table, rng: SmallRng::seed_from_u64(seed) }
    }
}

impl Agent<ColdWar> for PerfectAgent {
    fn choose(&mut self, state: &ColdWar, _ctx: &ThinkContext) -> Move {
        let best = self.table.best_moves(state);
        if best.is_empty() {
            // Only a finished board has no best move, and agents are only
            // asked on ongoing games; fall back to any legal move.
            let mut moves = Vec::new();
            state.legal_moves(&mut moves);
            return moves[self.rng.random_range(0..moves.len())];
        }
        best[self.rng.random_range(0..best.len())]
    }

    fn describe(&self) -> String {
        "perfect play from the solution table".to_string()
    }
}
