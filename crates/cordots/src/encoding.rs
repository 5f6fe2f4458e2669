//! Cordots' integer actions and observation planes (see
//! `tabula_core::encoding` and `docs/python.md`).
//!
//! **Actions** (4352): squares are numbered `a1 = 0, b1 = 1, …, h8 = 63`
//! and directions `0` north (towards rank 8), `1` east, `2` south, `3` west.
//! - `0..256`: a step `4 * from + d` that makes no back-row sacrifice.
//! - `256..4352`: a step that ends in the forced sacrifice,
//!   `256 + 64 * (4 * b + d) + restore`, where `b` numbers the base-row
//!   square the Victim arrives on (`a1..h1` are `0..7`, `a8..h8` are
//!   `8..15`), `d` is the direction of the step and `restore` the square of
//!   the Victim replaced by a Capturer.
//!
//! **Observation**: 9 planes of 8×8 (row 0 is rank 1, column 0 file a),
//! from the point of view of `player`: see [`PLANES`].

use crate::rules::{Cordots, Move, CAPTURER, NO_SQUARE, VICTIM};
use tabula_core::encoding::Encoding;
use tabula_core::{Game, Player};

/// The observation planes, in order.
pub const PLANES: [&str; 9] = [
    "own Capturers",
    "own Victims",
    "opponent Capturers",
    "opponent Victims",
    "own reserve / 8 (all squares)",
    "opponent reserve / 8",
    "repetitions of this position before now / 2",
    "plies / ply cap (zero when there is no cap)",
    "ones when player is to move",
];

const STEPS: u32 = 256;
/// The size of the action space.
pub const ACTIONS: usize = STEPS as usize + 16 * 4 * 64;

/// The square one step from `s` in direction `d`, if on the board.
fn step(s: u8, d: u32) -> Option<u8> {
    let (file, rank) = (s % 8, s / 8);
    match d {
        0 if rank < 7 => Some(s + 8),
        1 if file < 7 => Some(s + 1),
        2 if rank > 0 => Some(s - 8),
        3 if file > 0 => Some(s - 1),
        _ => None,
    }
}

/// The direction of a step from `from` to `to`.
fn direction(from: u8, to: u8) -> Option<u32> {
    (0..4).find(|&d| step(from, d) == Some(to))
}

/// The base-row number of a square (`a1..h1` 0..7, `a8..h8` 8..15).
fn base_row_index(s: u8) -> Option<u32> {
    match s / 8 {
        0 => Some(s as u32),
        7 => Some(8 + (s % 8) as u32),
        _ => None,
    }
}

impl Encoding for Cordots {
    fn observation_planes() -> &'static [&'static str] {
        &PLANES
    }

    fn num_distinct_actions(_options: &Self::Options) -> usize {
        ACTIONS
    }

    fn observation_shape(_options: &Self::Options) -> [usize; 3] {
        [PLANES.len(), 8, 8]
    }

    fn max_game_length(options: &Self::Options) -> Option<u32> {
        options.ply_cap()
    }

    fn action_of(&self, mv: Move) -> Option<u32> {
        if mv.from >= 64 || mv.to >= 64 {
            return None;
        }
        let d = direction(mv.from, mv.to)?;
        match mv.restore() {
            None if mv.restore == NO_SQUARE => Some(4 * mv.from as u32 + d),
            None => None,
            Some(r) => {
                let b = base_row_index(mv.to)?;
                Some(STEPS + 64 * (4 * b + d) + r as u32)
            }
        }
    }

    fn move_of(&self, action: u32) -> Option<Move> {
        if action < STEPS {
            let from = (action / 4) as u8;
            return step(from, action % 4).map(|to| Move::step(from, to));
        }
        if action as usize >= ACTIONS {
            return None;
        }
        let a = action - STEPS;
        let (restore, d, b) = ((a % 64) as u8, (a / 64) % 4, a / 256);
        let to = if b < 8 { b as u8 } else { 56 + (b - 8) as u8 };
        // The step arrives on `to` from the opposite direction.
        let from = step(to, (d + 2) % 4)?;
        Some(Move::sacrifice(from, to, restore))
    }

    fn write_observation(&self, player: Player, out: &mut [f32]) {
        out.fill(0.0);
        for (side, who) in [player, player.other()].into_iter().enumerate() {
            for (k, kind) in [CAPTURER, VICTIM].into_iter().enumerate() {
                let plane = &mut out[(2 * side + k) * 64..][..64];
                let mut bits = self.pieces(who, kind);
                while bits != 0 {
                    plane[bits.trailing_zeros() as usize] = 1.0;
                    bits &= bits - 1;
                }
            }
            out[(4 + side) * 64..][..64].fill(self.reserve(who) as f32 / 8.0);
        }
        out[6 * 64..7 * 64].fill(self.repetitions().saturating_sub(1) as f32 / 2.0);
        if let Some(cap) = self.options().ply_cap() {
            out[7 * 64..8 * 64].fill(self.plies() as f32 / cap as f32);
        }
        if self.to_move() == player {
            out[8 * 64..9 * 64].fill(1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::CordotsOptions;
    use tabula_core::encoding::check_encoding;

    #[test]
    fn the_laws_hold_on_random_games() {
        let start = Cordots::new(&CordotsOptions::default());
        for seed in 0..30 {
            check_encoding(&start, seed, 300, 20).unwrap();
        }
    }

    #[test]
    fn a_sacrifice_has_its_own_action() {
        // White's Victim on c7 steps to c8 with a Capturer in reserve: the
        // sacrifice is forced and names the Victim to restore.
        let g = Cordots::from_position("cc6/2V5/8/8/8/8/V7/C7 w 1 0", &CordotsOptions::default()).unwrap();
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let sac = g.parse_move("c7-c8=a2").unwrap();
        assert!(moves.contains(&sac), "{moves:?}");
        let a = g.action_of(sac).unwrap();
        assert_eq!(a, STEPS + 64 * (4 * (8 + 2)) + 8);
        assert_eq!(g.move_of(a), Some(sac));
        assert_eq!(g.action_of(g.parse_move("a2-a3").unwrap()), Some(4 * 8));
    }
}
