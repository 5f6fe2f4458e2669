//! Dots' integer actions and observation planes (see
//! `tabula_core::encoding` and `docs/python.md`).
//!
//! **Actions** (`width * height`): the point `x-y` (1-based, as in the
//! notation) is action `(y - 1) * width + (x - 1)`.
//!
//! **Observation**: 9 planes of `height` rows by `width` columns (row
//! `y - 1`, column `x - 1`), from the point of view of `player`: see
//! [`PLANES`].

use crate::options::DotsOptions;
use crate::rules::{Dots, Point};
use tabula_core::encoding::Encoding;
use tabula_core::{Game, Player};

/// The observation planes, in order.
pub const PLANES: [&str; 9] = [
    "own active dots",
    "opponent active dots",
    "own territory (captured dots and empty points inside)",
    "opponent territory",
    "empty points inside an own base (the opponent cannot play there without being captured)",
    "empty points inside an opponent base",
    "grounded points (active dots and territory connected to the edge)",
    "playable points",
    "ones when player is to move",
];

impl Encoding for Dots {
    fn observation_planes() -> &'static [&'static str] {
        &PLANES
    }

    fn num_distinct_actions(options: &DotsOptions) -> usize {
        let [_, h, w] = Self::observation_shape(options);
        w * h
    }

    fn observation_shape(options: &DotsOptions) -> [usize; 3] {
        // The engine clamps the sides the same way.
        let w = options.width.clamp(crate::options::MIN_SIDE, crate::options::MAX_SIDE) as usize;
        let h = options.height.clamp(crate::options::MIN_SIDE, crate::options::MAX_SIDE) as usize;
        [PLANES.len(), h, w]
    }

    fn max_game_length(options: &DotsOptions) -> Option<u32> {
        // Every move fills a point.
        Some(Self::num_distinct_actions(options) as u32)
    }

    fn action_of(&self, mv: Point) -> Option<u32> {
        let (x, y) = self.xy(mv);
        self.point(x, y).filter(|&p| p == mv)?;
        Some(((y - 1) * self.width() + (x - 1)) as u32)
    }

    fn move_of(&self, action: u32) -> Option<Point> {
        let w = self.width();
        let a = action as usize;
        if a >= w * self.height() {
            return None;
        }
        self.point(a % w + 1, a / w + 1)
    }

    fn write_observation(&self, player: Player, out: &mut [f32]) {
        let (w, h) = (self.width(), self.height());
        let n = w * h;
        out.fill(0.0);
        let opponent = player.other();
        for y in 1..=h {
            for x in 1..=w {
                let i = (y - 1) * w + (x - 1);
                let p = self.point(x, y).expect("on the board");
                if let Some((who, false)) = self.dot_at(p) {
                    out[if who == player { i } else { n + i }] = 1.0;
                }
                match self.territory_at(p) {
                    Some(owner) => out[if owner == player { 2 * n + i } else { 3 * n + i }] = 1.0,
                    None if self.dot_at(p).is_none() => {
                        if self.enclosed_by(p, player) {
                            out[4 * n + i] = 1.0;
                        }
                        if self.enclosed_by(p, opponent) {
                            out[5 * n + i] = 1.0;
                        }
                    }
                    None => {}
                }
                if self.is_grounded(p) {
                    out[6 * n + i] = 1.0;
                }
                if self.is_playable(p) {
                    out[7 * n + i] = 1.0;
                }
            }
        }
        if self.to_move() == player {
            out[8 * n..9 * n].fill(1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::encoding::check_encoding;

    #[test]
    fn the_laws_hold_on_random_games() {
        for (seed, (w, h)) in [(10, 10), (39, 32), (7, 12), (64, 64)].into_iter().enumerate() {
            let start = Dots::new(&DotsOptions::sized(w, h));
            check_encoding(&start, seed as u64, 5000, 97).unwrap();
        }
    }

    #[test]
    fn actions_number_points_row_by_row() {
        let d = Dots::new(&DotsOptions::sized(20, 10));
        assert_eq!(Dots::num_distinct_actions(d.options()), 200);
        let p = d.parse_move("3-2").unwrap();
        assert_eq!(d.action_of(p), Some(20 + 2));
        assert_eq!(d.move_of(22), Some(p));
        assert_eq!(d.move_of(200), None);
        let mut obs = vec![0.0; 9 * 200];
        d.write_observation(Player::First, &mut obs);
        // The cross: blue on (10, 5) and (11, 6), red on (11, 5) and (10, 6).
        assert_eq!(obs[4 * 20 + 9], 1.0);
        assert_eq!(obs[200 + 4 * 20 + 10], 1.0);
        assert_eq!(obs[7 * 200 + 4 * 20 + 9], 0.0, "an occupied point is not playable");
    }
}
