//! The Cordots evaluation: material by type, with Victims weighed by the
//! tie-breaker as the untimed cap nears, the tie-breaker lead near the cap,
//! reserves, threats and mobility.

use crate::bitboard::*;
use crate::rules::{Cordots, CAPTURER, VICTIM};
use tabula_core::{Game, Player};

/// Evaluation weights, in centi-pieces.
///
/// On the board both piece types move and capture alike; a Victim differs
/// only in counting for the tie-breaker (the untimed ply cap, a match clock's
/// expiry) and in the back-row sacrifice, which costs two Victims for one
/// Capturer. So a Victim is worth a Capturer plus a tie-breaker bonus that
/// grows as the cap nears, and near the cap who leads the tie-breaker counts
/// on its own.
#[derive(Debug, Clone, Copy)]
pub struct Weights {
    /// A piece on the board (both types).
    pub capturer: i32,
    /// A Victim's worth beyond a Capturer's at the start of a game...
    pub victim_bonus_early: i32,
    /// ...and at the ply cap (in between it grows linearly with the plies).
    pub victim_bonus_late: i32,
    /// Leading the tie-breaker, at the cap; it fades in over the last
    /// `tiebreak_window` plies.
    pub tiebreak: i32,
    /// The plies before the cap over which the tie-breaker lead fades in.
    pub tiebreak_window: i32,
    /// A reserve Capturer its side can still bring back by a sacrifice.
    pub usable_reserve: i32,
    /// A reserve Capturer that cannot come back (no Victims or no Capturer left).
    pub idle_reserve: i32,
    /// Per rank a Victim has advanced from its own base row.
    pub victim_progress: i32,
    /// The side to move can capture at least one piece now.
    pub capture_now: i32,
    /// Each further piece the side to move could capture.
    pub capture_more: i32,
    /// Each piece of the side to move that the opponent threatens.
    pub threatened: i32,
    /// Each possible step.
    pub mobility: i32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            capturer: 100,
            victim_bonus_early: 30,
            victim_bonus_late: 150,
            tiebreak: 300,
            tiebreak_window: 40,
            usable_reserve: 5,
            idle_reserve: 0,
            victim_progress: 0,
            capture_now: 70,
            capture_more: 12,
            threatened: 25,
            mobility: 2,
        }
    }
}

/// The plies a game without a cap (a clocked mode) is assumed to have played
/// when weighing Victims: halfway.
const UNCAPPED_PLIES_LEFT: u32 = 150;
/// The untimed ply cap, for weighing Victims by the plies left.
const CAP: u32 = crate::options::PLY_CAP;

/// The pieces of `defender` that `attacker` can capture with one step:
/// flanked on one side by an attacker, with the square on the other side
/// empty and reachable by an attacker.
#[inline]
pub fn capturable(attacker: Bitboard, defender: Bitboard, empty: Bitboard) -> Bitboard {
    let reach = empty & neighbours(attacker);
    defender
        & ((east(attacker) & west(reach))
            | (west(attacker) & east(reach))
            | (north(attacker) & south(reach))
            | (south(attacker) & north(reach)))
}

/// Number of (piece, direction) steps a side has.
#[inline]
fn mobility(own: Bitboard, empty: Bitboard) -> i32 {
    (0..4).map(|d| movers(own, empty, d).count_ones() as i32).sum()
}

/// The Cordots evaluation: material by type (Victims weighed by the
/// tie-breaker as the cap nears), the tie-breaker lead near the cap,
/// reserves, Victims' progress, threatened pieces and mobility.
#[derive(Debug, Clone, Default)]
pub struct CordotsEval {
    /// The weights.
    pub weights: Weights,
}

impl CordotsEval {
    /// Plies until the untimed cap (a clocked game counts as halfway).
    pub fn plies_left(&self, g: &Cordots) -> u32 {
        match g.options().ply_cap() {
            Some(cap) => cap.saturating_sub(g.plies()),
            None => UNCAPPED_PLIES_LEFT,
        }
    }

    /// A Victim's worth beyond a Capturer's with `left` plies to the cap.
    fn victim_bonus(&self, left: u32) -> i32 {
        let w = &self.weights;
        let done = CAP.saturating_sub(left.min(CAP)) as i32;
        w.victim_bonus_early + (w.victim_bonus_late - w.victim_bonus_early) * done / CAP as i32
    }

    /// The static part for one side (no threats).
    fn side_score(&self, g: &Cordots, side: Player, empty: Bitboard, victim_bonus: i32) -> i32 {
        let w = &self.weights;
        let capturers = g.pieces(side, CAPTURER);
        let victims = g.pieces(side, VICTIM);
        let mut score =
            (capturers | victims).count_ones() as i32 * w.capturer + victims.count_ones() as i32 * victim_bonus;
        let usable = capturers != 0 && victims.count_ones() >= 2;
        score += g.reserve(side) as i32 * if usable { w.usable_reserve } else { w.idle_reserve };
        if w.victim_progress != 0 {
            // Ranks advanced, summed over Victims: rank index for White, 7 - rank for Black.
            let mut progress = 0;
            for r in 0..8 {
                let n = (victims & (RANK_1 << (8 * r))).count_ones() as i32;
                progress += n * if side == Player::First { r } else { 7 - r };
            }
            score += progress * w.victim_progress;
        }
        score += mobility(capturers | victims, empty) * w.mobility;
        score
    }

    /// The score without the side to move's own capture chances (which a
    /// quiescence search plays out instead).
    pub fn quiet_score(&self, g: &Cordots) -> i32 {
        let w = &self.weights;
        let me = g.to_move();
        let (own, theirs) = (g.occupied_by(me), g.occupied_by(me.other()));
        let empty = !(own | theirs);
        let left = self.plies_left(g);
        let bonus = self.victim_bonus(left);
        let mut score = self.side_score(g, me, empty, bonus) - self.side_score(g, me.other(), empty, bonus);
        if (left as i32) < w.tiebreak_window {
            if let Some(leader) = g.tiebreak() {
                let t = w.tiebreak * (w.tiebreak_window - left as i32) / w.tiebreak_window;
                score += if leader == me { t } else { -t };
            }
        }
        score -= capturable(theirs, own, empty).count_ones() as i32 * w.threatened;
        score
    }

    /// From the point of view of the side to move.
    pub fn score(&self, g: &Cordots) -> i32 {
        let w = &self.weights;
        let me = g.to_move();
        let (own, theirs) = (g.occupied_by(me), g.occupied_by(me.other()));
        let empty = !(own | theirs);
        let mut score = self.quiet_score(g);
        let mine_to_take = capturable(own, theirs, empty).count_ones() as i32;
        if mine_to_take > 0 {
            score += w.capture_now + (mine_to_take - 1) * w.capture_more;
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CordotsOptions;

    fn pos(p: &str) -> Cordots {
        Cordots::from_position(p, &CordotsOptions::default()).unwrap()
    }

    #[test]
    fn capturable_sees_one_step_sandwiches() {
        // White C on c4, black v on d4, e4 empty, white V on e3 can step to e4.
        let g = pos("c7/8/8/8/2Cv4/4V3/8/8 w 0 0");
        let w = g.occupied_by(Player::First);
        let b = g.occupied_by(Player::Second);
        assert_eq!(capturable(w, b, !(w | b)), bit(27));
        // Without the white piece that can reach e4, nothing is capturable.
        let g = pos("c7/8/8/8/2Cv4/8/8/V7 w 0 0");
        let w = g.occupied_by(Player::First);
        let b = g.occupied_by(Player::Second);
        assert_eq!(capturable(w, b, !(w | b)), 0);
    }
}
