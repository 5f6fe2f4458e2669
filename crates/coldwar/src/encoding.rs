//! Cold War's integer actions and observation planes (see
//! `tabula_core::encoding` and `docs/python.md`).
//!
//! **Actions** (117): squares are numbered `a1 = 0, b1 = 1, c1 = 2, a2 = 3,
//! … c3 = 8` and directions `0` north (towards rank 3), `1` east, `2`
//! south, `3` west.
//! - `0..9`: place on square `s` (create or bolster a base).
//! - `9 + 4 s + d`: transfer a piece from `s` to its neighbour in direction `d`.
//! - `45 + 4 s + d`: attack the neighbour in direction `d`.
//! - `81 + 4 s + d`: conquer the neighbour in direction `d` (3 against 1).
//!
//! Actions that point off the board are never legal.
//!
//! **Observation**: 8 planes of 3×3 (row 0 is rank 1, column 0 file a),
//! from the point of view of `player`: see [`PLANES`].

use crate::rules::{cells_of_index, code, ColdWar, Move, Square, BOARDS, POW7};
use crate::solve::{Eval, Table};
use tabula_core::encoding::Encoding;
use tabula_core::{Game, NoOptions, Player};

/// The observation planes, in order.
pub const PLANES: [&str; 8] = [
    "own base of 1 piece",
    "own base of 2 pieces",
    "own base of 3 pieces",
    "opponent base of 1 piece",
    "opponent base of 2 pieces",
    "opponent base of 3 pieces",
    "empty square",
    "ones when player is to move",
];

/// The size of the action space.
pub const ACTIONS: usize = 9 + 3 * 36;

/// The neighbour of `s` in direction `d` (north, east, south, west).
fn neighbour(s: Square, d: usize) -> Option<Square> {
    let (file, rank) = (s % 3, s / 3);
    match d {
        0 if rank < 2 => Some(s + 3),
        1 if file < 2 => Some(s + 1),
        2 if rank > 0 => Some(s - 3),
        3 if file > 0 => Some(s - 1),
        _ => None,
    }
}

/// The direction from `s` to its neighbour `t`.
fn direction(s: Square, t: Square) -> Option<u32> {
    (0..4).find(|&d| neighbour(s, d) == Some(t)).map(|d| d as u32)
}

/// The solution's entry for board `index` (see [`ColdWar::board_index`])
/// with X to move, or `None` when `index >= BOARDS`. A position with O to
/// move has the value of the colour-swapped board with X to move
/// ([`swapped_board_index`]).
pub fn table_entry(table: &Table, index: u32) -> Option<Eval> {
    (index < BOARDS).then(|| table.eval_cells(&cells_of_index(index), Player::First))
}

/// The board index of the position with the colours swapped: X's bases
/// become O's and O's become X's.
pub fn swapped_board_index(game: &ColdWar) -> u32 {
    game.cells().iter().zip(POW7).map(|(&c, w)| code(-c) as u32 * w).sum()
}

/// The index into the solution (X to move) that holds the value of this
/// position for its side to move.
pub fn table_index(game: &ColdWar) -> u32 {
    match game.to_move() {
        Player::First => game.board_index(),
        Player::Second => swapped_board_index(game),
    }
}

impl Encoding for ColdWar {
    fn observation_planes() -> &'static [&'static str] {
        &PLANES
    }

    fn num_distinct_actions(_options: &NoOptions) -> usize {
        ACTIONS
    }

    fn observation_shape(_options: &NoOptions) -> [usize; 3] {
        [PLANES.len(), 3, 3]
    }

    fn max_game_length(_options: &NoOptions) -> Option<u32> {
        Some(crate::rules::PLY_CAP)
    }

    fn action_of(&self, mv: Move) -> Option<u32> {
        let pair = |base: u32, s: Square, t: Square| {
            if s >= 9 {
                return None;
            }
            direction(s, t).map(|d| base + 4 * s as u32 + d)
        };
        match mv {
            Move::Place(s) => (s < 9).then_some(s as u32),
            Move::Transfer(s, t) => pair(9, s, t),
            Move::Attack(s, t) => pair(45, s, t),
            Move::Conquer(s, t) => pair(81, s, t),
        }
    }

    fn move_of(&self, action: u32) -> Option<Move> {
        let a = action as usize;
        if a < 9 {
            return Some(Move::Place(a as Square));
        }
        if a >= ACTIONS {
            return None;
        }
        let (kind, rest) = ((a - 9) / 36, (a - 9) % 36);
        let s = (rest / 4) as Square;
        let t = neighbour(s, rest % 4)?;
        Some(match kind {
            0 => Move::Transfer(s, t),
            1 => Move::Attack(s, t),
            _ => Move::Conquer(s, t),
        })
    }

    fn write_observation(&self, player: Player, out: &mut [f32]) {
        out.fill(0.0);
        for s in 0..9u8 {
            let plane = match self.cell(s) {
                (None, _) => 6,
                (Some(p), n) => (if p == player { 0 } else { 3 }) + n.clamp(1, 3) as usize - 1,
            };
            out[plane * 9 + s as usize] = 1.0;
        }
        if self.to_move() == player {
            out[63..72].fill(1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::encoding::check_encoding;

    #[test]
    fn the_laws_hold_on_random_games() {
        let start = ColdWar::new(&NoOptions);
        for seed in 0..30 {
            check_encoding(&start, seed, 300, 1).unwrap();
        }
    }

    #[test]
    fn the_table_index_swaps_colours_for_o() {
        let g = ColdWar::from_position("X3.O1/.X1./... O", &NoOptions).unwrap();
        let swapped = ColdWar::from_position("O3.X1/.O1./... X", &NoOptions).unwrap();
        assert_eq!(table_index(&g), swapped.board_index());
        assert_eq!(table_index(&swapped), swapped.board_index());
    }

    #[test]
    fn actions_follow_the_documented_layout() {
        let g = ColdWar::new(&NoOptions);
        let act = |text: &str| g.action_of(g.parse_move(text).unwrap()).unwrap();
        assert_eq!(act("b2"), 4);
        assert_eq!(act("b2-b3"), 9 + 4 * 4);
        assert_eq!(act("b2xc2"), 45 + 4 * 4 + 1);
        assert_eq!(act("a1>a2"), 81);
        assert_eq!(g.move_of(9 + 3), None, "a1 has no western neighbour");
    }
}
