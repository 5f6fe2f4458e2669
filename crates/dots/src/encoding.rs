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
        out[..8 * n].fill(0.0);
        let opponent = player.other();
        // Each point asks the engine only what can be true of it: a solid
        // point (active dot or territory) whether it is grounded, an empty
        // one outside territories whose base it lies in (and it is playable).
        for y in 1..=h {
            let row = (y - 1) * w;
            for x in 1..=w {
                let i = row + x - 1;
                let p = self.point(x, y).expect("on the board");
                let dot = self.dot_at(p);
                if let Some((who, false)) = dot {
                    out[if who == player { i } else { n + i }] = 1.0;
                }
                let solid = match self.territory_at(p) {
                    Some(owner) => {
                        out[if owner == player { 2 * n + i } else { 3 * n + i }] = 1.0;
                        true
                    }
                    None => dot.is_some(),
                };
                if solid {
                    if self.is_grounded(p) {
                        out[6 * n + i] = 1.0;
                    }
                } else {
                    out[7 * n + i] = 1.0;
                    if self.enclosed_by(p, player) {
                        out[4 * n + i] = 1.0;
                    }
                    if self.enclosed_by(p, opponent) {
                        out[5 * n + i] = 1.0;
                    }
                }
            }
        }
        out[8 * n..9 * n].fill(if self.to_move() == player { 1.0 } else { 0.0 });
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
    fn the_planes_agree_with_the_engine() {
        let mut d = Dots::new(&DotsOptions::sized(12, 9));
        let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(3);
        let mut moves = Vec::new();
        let mut obs = vec![0.0; 9 * 108];
        for _ in 0..80 {
            d.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            d.play(moves[rand::Rng::random_range(&mut rng, 0..moves.len())]);
            let me = d.to_move();
            d.write_observation(me, &mut obs);
            for a in 0..108u32 {
                let p = d.move_of(a).unwrap();
                let i = a as usize;
                let on = |plane: usize| obs[plane * 108 + i] == 1.0;
                assert_eq!(on(0), d.dot_at(p) == Some((me, false)));
                assert_eq!(on(1), d.dot_at(p) == Some((me.other(), false)));
                assert_eq!(on(2), d.territory_at(p) == Some(me));
                assert_eq!(on(3), d.territory_at(p) == Some(me.other()));
                assert_eq!(on(7), d.is_playable(p));
                let empty = d.dot_at(p).is_none() && d.territory_at(p).is_none();
                assert_eq!(on(4), empty && d.enclosed_by(p, me));
                assert_eq!(on(5), empty && d.enclosed_by(p, me.other()));
                assert_eq!(on(6), !empty && d.is_grounded(p));
                assert!(on(8));
            }
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
