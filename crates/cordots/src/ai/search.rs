//! What the Cordots alpha-beta knows beyond the generic search
//! ([`tabula_ai::AlphaBeta`]): the evaluation, move ordering (captures,
//! then killers and history, moves that die and sacrifices last), captures
//! that survive as the quiescence search's noisy moves, a table key that
//! knows the plies left to the cap, and repetitions scored as draws. Game
//! ends (eliminations, no move, repetition, the untimed ply cap with its
//! tie-breaker) come from [`Cordots::status`], so the search sees the exact
//! tie-breaker result whenever the cap is within its reach.

use crate::ai::CordotsEval;
use crate::rules::{Cordots, Move};
use tabula_ai::alphabeta::{Evaluator, OrderHints};
use tabula_core::Game;

/// A side passes in the search only with at least this many pieces...
const PASS_MIN_PIECES: u32 = 5;
/// ...and this many plies before the cap.
const PASS_MIN_PLIES_LEFT: u32 = 50;

impl Evaluator<Cordots> for CordotsEval {
    const QUIESCENCE: bool = true;
    const HISTORY_SLOTS: usize = 64 * 64;

    fn evaluate(&mut self, state: &Cordots) -> i32 {
        self.score(state)
    }

    /// Near the ply cap the value of a position depends on the plies left,
    /// so they are mixed into the key there.
    fn key(&self, g: &Cordots) -> u64 {
        let plies_left = self.plies_left(g);
        if plies_left < 64 {
            g.hash() ^ (plies_left as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        } else {
            g.hash()
        }
    }

    /// The table move, captures (more first), killers, then by history;
    /// moves that die on arrival and sacrifices last.
    fn order(&mut self, g: &Cordots, moves: &mut [Move], hints: &OrderHints<Move>) {
        moves.sort_by_cached_key(|&m| {
            if Some(m) == hints.tt_move {
                return i32::MIN;
            }
            let r = g.resolve(m.from, m.to);
            let n = r.captured.count_ones() as i32;
            let mut key = if n > 0 { -1_000_000_000 - n * 1_000_000 } else { hints.key(m, self.history_slot(m)) };
            if r.dies {
                key += 1_500_000_000;
            }
            if r.sacrifice {
                key = key.saturating_add(500_000_000);
            }
            key
        });
    }

    fn is_quiet(&self, g: &Cordots, m: Move) -> bool {
        g.resolve(m.from, m.to).captured == 0
    }

    fn history_slot(&self, m: Move) -> Option<usize> {
        Some(m.from as usize * 64 + m.to as usize)
    }

    /// A position seen before can be repeated again: score it a draw, so
    /// the side ahead makes progress and the side behind seeks it.
    fn is_search_draw(&self, g: &Cordots) -> bool {
        g.repetitions() >= 2
    }

    /// Passing is sound where having to move is no burden: not with few
    /// pieces left, and not near the cap, where the plies left decide.
    fn pass(&self, g: &mut Cordots) -> bool {
        let me = g.to_move();
        if g.occupied_by(me).count_ones() < PASS_MIN_PIECES || self.plies_left(g) < PASS_MIN_PLIES_LEFT {
            return false;
        }
        g.pass_for_search();
        true
    }

    fn stand_pat(&mut self, g: &Cordots) -> i32 {
        self.quiet_score(g)
    }

    /// Captures that survive, more captured first.
    fn noisy_moves(&mut self, g: &Cordots, moves: &mut Vec<Move>) {
        moves.retain(|m| {
            let r = g.resolve(m.from, m.to);
            r.captured != 0 && !r.sacrifice
        });
        moves.sort_by_cached_key(|m| -(g.resolve(m.from, m.to).captured.count_ones() as i32));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CordotsOptions;
    use tabula_ai::alphabeta::{AlphaBeta, AlphaBetaConfig};
    use tabula_core::ThinkContext;

    fn pos(p: &str) -> Cordots {
        Cordots::from_position(p, &CordotsOptions::default()).unwrap()
    }

    fn config(depth: u32) -> AlphaBetaConfig {
        AlphaBetaConfig { time: None, max_depth: depth, tt_bits: 12, ..AlphaBetaConfig::default() }
    }

    fn best(g: &Cordots, depth: u32) -> String {
        let mut s = AlphaBeta::new(config(depth), CordotsEval::default());
        g.format_move(s.search(g, &ThinkContext::default()))
    }

    /// d3-d4 takes a black Victim (c4); e4-e5 takes two black Capturers
    /// (e6 with e7, f5 with g5). Victims stand 2 to 2.
    const CHOICE: &str = "v6c/4C3/4c3/5cC1/1Cv1C3/3C4/8/V6V w 0 0";

    #[test]
    fn takes_more_material_far_from_the_cap() {
        assert_eq!(best(&pos(CHOICE), 2), "e4-e5");
    }

    #[test]
    fn takes_the_tie_breaker_win_at_the_cap() {
        // The move reaches ply 300: only the Victim capture wins there.
        let g = pos(CHOICE).with_plies(299);
        assert_eq!(best(&g, 1), "d3-d4");
        assert_eq!(best(&g, 3), "d3-d4");
    }

    #[test]
    fn near_the_cap_a_victim_is_worth_more_than_two_capturers() {
        // Beyond the search's reach of the cap, the evaluation must see it.
        let g = pos(CHOICE).with_plies(280);
        assert_eq!(best(&g, 2), "d3-d4");
    }

    #[test]
    fn does_not_sacrifice_two_victims_for_a_capturer() {
        // b7-b8 would force the sacrifice: b8 goes, a1 becomes a Capturer.
        let g = pos("c7/1V6/8/8/8/8/4v3/V3C2c w 1 0");
        let sq = |s| crate::bitboard::parse_square(s).unwrap();
        assert!(g.resolve(sq("b7"), sq("b8")).sacrifice);
        for depth in 1..=4 {
            let m = best(&g, depth);
            assert!(!m.contains('='), "depth {depth} chose {m}");
        }
    }

    /// The nodes a search with `config` visits from the start to finish its depth.
    fn nodes_to_depth(config: AlphaBetaConfig) -> u64 {
        let depth = config.max_depth;
        let mut s = AlphaBeta::new(config, CordotsEval::default());
        s.search(&Cordots::new(&CordotsOptions::default()), &ThinkContext::default());
        assert_eq!(s.stats.depth, depth);
        s.stats.nodes
    }

    #[test]
    fn late_move_reductions_reach_a_depth_with_fewer_nodes() {
        let reduced = nodes_to_depth(AlphaBetaConfig { late_move_reductions: true, ..config(7) });
        let full = nodes_to_depth(AlphaBetaConfig { late_move_reductions: false, ..config(7) });
        assert!(reduced * 3 < full * 2, "{reduced} nodes with reductions, {full} without");
    }

    #[test]
    fn null_moves_reach_a_depth_with_fewer_nodes() {
        let pruned = nodes_to_depth(AlphaBetaConfig { null_move: true, ..config(8) });
        let full = nodes_to_depth(AlphaBetaConfig { null_move: false, ..config(8) });
        assert!(pruned * 5 < full * 4, "{pruned} nodes with null moves, {full} without");
    }

    #[test]
    fn no_pass_near_the_cap_or_with_few_pieces() {
        let eval = CordotsEval::default();
        let mut near_cap = Cordots::new(&CordotsOptions::default()).with_plies(260);
        assert!(!eval.pass(&mut near_cap));
        let mut few = pos("c7/8/8/8/2Cv4/4V3/8/7V w 0 0");
        assert!(!eval.pass(&mut few));
        let mut start = Cordots::new(&CordotsOptions::default());
        assert!(eval.pass(&mut start));
        assert_eq!(start.to_move(), tabula_core::Player::Second);
    }

    #[test]
    fn quiescence_sees_the_recapture() {
        // e3-e4 takes e5 (with e6), but then f3-e3 takes d3 (with c3) and
        // e2 (with e1): two Victims for a Capturer. At depth 1 only the
        // capture search sees it.
        let g = pos("7c/8/4C3/4c3/8/2cVCc2/4V3/C3c3 w 0 0");
        let config = AlphaBetaConfig { quiescence: false, ..config(1) };
        let mut plain = AlphaBeta::new(config.clone(), CordotsEval::default());
        assert_eq!(g.format_move(plain.search(&g, &ThinkContext::default())), "e3-e4");
        let mut q = AlphaBeta::new(AlphaBetaConfig { quiescence: true, ..config }, CordotsEval::default());
        assert_ne!(g.format_move(q.search(&g, &ThinkContext::default())), "e3-e4");
    }
}
