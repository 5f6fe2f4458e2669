//! The MCTS playout policy for Cold War's search levels.
//!
//! Uniformly random games almost never end (a random playout runs into
//! the 500-ply cap in most games), so plain playouts say little. This policy
//! plays a short random stretch on the bare board, takes an immediate win
//! when one is there (only possible when the mover holds 8 squares), and
//! otherwise scores the board by squares and pieces held.

use crate::rules::{ColdWar, Move};
use tabula_ai::mcts::terminal_value;
use tabula_ai::{Policy, Rng};
use tabula_core::{Game, Player};

/// Cold War playouts: short random playouts scored by squares and pieces held.
#[derive(Clone)]
pub struct ColdWarPolicy {
    moves: Vec<Move>,
    /// Random plies before the board is scored.
    pub max_plies: u32,
}

impl Default for ColdWarPolicy {
    fn default() -> Self {
        ColdWarPolicy { moves: Vec::with_capacity(64), max_plies: 24 }
    }
}

/// The value of a board for X, in 0..1, from squares and pieces held.
pub fn heuristic_value(board: &ColdWar) -> f64 {
    let (mut squares, mut pieces) = (0i32, 0i32);
    for c in board.cells() {
        squares += c.signum() as i32;
        pieces += c as i32;
    }
    let score = 0.5 * squares as f64 + 0.15 * pieces as f64;
    1.0 / (1.0 + (-score).exp())
}

fn win_value(winner: Player) -> f64 {
    if winner == Player::First {
        1.0
    } else {
        0.0
    }
}

impl Policy<ColdWar> for ColdWarPolicy {
    fn playout(&mut self, state: &mut ColdWar, rng: &mut Rng) -> f64 {
        use rand::Rng as _;
        if state.status().is_over() {
            return terminal_value(state);
        }
        // A bare board: no history to copy, so the playout allocates
        // nothing. Repetition cannot matter within a short stretch.
        let mut board = ColdWar::bare(state.board_index(), state.to_move());
        for _ in 0..self.max_plies {
            let mover = board.to_move();
            board.board_moves(&mut self.moves);
            if board.squares_of(mover) == 8 {
                for &m in &self.moves {
                    let mut next = board.clone();
                    next.apply_to_board(m);
                    if next.mover_holds_all() {
                        return win_value(mover);
                    }
                }
            }
            let m = self.moves[rng.random_range(0..self.moves.len())];
            board.apply_to_board(m);
        }
        heuristic_value(&board)
    }
}
