//! Cordots AIs: an evaluation for alpha-beta, an evaluation-guided MCTS
//! policy, and the levels users pick from.

use crate::bitboard::*;
use crate::game::{Cordots, Move, CAPTURER, VICTIM};
use crate::search::{SearchConfig, Searcher};
use std::time::Duration;
use tabula_ai::alphabeta::{AlphaBeta, AlphaBetaConfig, Evaluator};
use tabula_ai::mcts::{Mcts, MctsConfig, Policy};
use tabula_ai::{RandomAgent, Rng};
use tabula_core::{Agent, Game, LevelSpec, Player};

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
    pub capturer: i32,
    /// A Victim's worth beyond a Capturer's at the start of a game...
    pub victim_bonus_early: i32,
    /// ...and at the ply cap (in between it grows linearly with the plies).
    pub victim_bonus_late: i32,
    /// Leading the tie-breaker, at the cap; it fades in over the last
    /// `tiebreak_window` plies.
    pub tiebreak: i32,
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

impl Evaluator<Cordots> for CordotsEval {
    fn evaluate(&mut self, state: &Cordots) -> i32 {
        self.score(state)
    }

    fn order(&mut self, state: &Cordots, moves: &mut [Move]) {
        // Captures first (more first), then quiet moves, moves that die last.
        moves.sort_by_cached_key(|m| {
            let r = state.resolve(m.from, m.to);
            let gain = r.captured.count_ones() as i32 * 10;
            -(gain - if r.dies { 5 } else { 0 })
        });
    }
}

/// MCTS leaves valued by blending the evaluation of the leaf (squashed to a
/// win probability for White) with the result of a random playout from it.
/// The playout sees what the evaluation cannot (the tie-breaker at the cap,
/// eliminations); the evaluation cuts the playout's noise.
pub struct EvalPolicy {
    /// Longest playout; past it the position is judged by the tie-breaker.
    pub plies: u32,
    /// The evaluation's share of the value, 0..1.
    pub eval_share: f64,
    eval: CordotsEval,
    moves: Vec<Move>,
}

impl EvalPolicy {
    pub fn new(plies: u32, eval_share: f64) -> Self {
        EvalPolicy { plies, eval_share, eval: CordotsEval::default(), moves: Vec::new() }
    }

    /// The evaluation as a win probability for White.
    pub fn white_probability(&self, state: &Cordots) -> f64 {
        let s = self.eval.score(state) as f64;
        let white = if state.to_move() == Player::First { s } else { -s };
        1.0 / (1.0 + (-white / 150.0).exp())
    }
}

impl Policy<Cordots> for EvalPolicy {
    fn playout(&mut self, state: &mut Cordots, rng: &mut Rng) -> f64 {
        let guess = self.white_probability(state);
        state.random_playout(rng, &mut self.moves, self.plies);
        let result = tabula_ai::mcts::terminal_value(state);
        self.eval_share * guess + (1.0 - self.eval_share) * result
    }
}

/// (id, description) of every level, weakest first.
const LEVELS: &[(&str, &str)] = &[
    ("random", "uniformly random legal moves"),
    ("easy", "MCTS valuing leaves by the Cordots evaluation and a random playout, 0.3 s"),
    ("medium", "alpha-beta with capture quiescence and the tie-breaker-aware Cordots evaluation, 0.5 s"),
    ("hard", "alpha-beta with capture quiescence and the tie-breaker-aware Cordots evaluation, 1 s"),
    ("expert", "alpha-beta with capture quiescence and the tie-breaker-aware Cordots evaluation, 2 s"),
];

pub fn levels() -> Vec<LevelSpec> {
    LEVELS.iter().map(|&(id, d)| LevelSpec::new(id, d)).collect()
}

/// An alpha-beta agent thinking `ms` per move (capped by the clock).
pub fn alphabeta(ms: u64) -> AlphaBeta<Cordots, CordotsEval> {
    let config = AlphaBetaConfig { time: Some(Duration::from_millis(ms)), tt_bits: 20, ..AlphaBetaConfig::default() };
    AlphaBeta::new(config, CordotsEval::default())
}

/// The Cordots alpha-beta (quiescence, killers, history) thinking `ms` per move.
pub fn searcher(ms: u64) -> Searcher {
    let config = SearchConfig { time: Some(Duration::from_millis(ms)), ..SearchConfig::default() };
    Searcher::new(config, CordotsEval::default())
}

/// An evaluation-guided MCTS agent thinking `ms` per move.
pub fn mcts(ms: u64, seed: u64) -> Mcts<Cordots, EvalPolicy> {
    let config = MctsConfig {
        iterations: None,
        time: Some(Duration::from_millis(ms)),
        seed,
        exploration: 0.7,
        ..MctsConfig::default()
    };
    Mcts::new(config, EvalPolicy::new(1_000, 0.5))
}

pub fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Cordots>>> {
    Some(match level {
        "random" => Box::new(RandomAgent::<Cordots>::new(seed)),
        "easy" => Box::new(mcts(300, seed)),
        "medium" => Box::new(searcher(500)),
        "hard" => Box::new(searcher(1_000)),
        "expert" => Box::new(searcher(2_000)),
        // The plain-UCT baselines (`uct:MS`, `uct-iter:N`) every game accepts.
        _ => return tabula_ai::levels::plain_uct(level, seed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CordotsOptions;
    use tabula_core::ThinkContext;

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

    #[test]
    fn alphabeta_takes_a_free_piece() {
        let g = pos("c7/8/8/8/2Cv4/4V3/8/7V w 0 0");
        let mut ab = alphabeta(200);
        ab.config.max_depth = 3;
        let m = ab.search(&g, &ThinkContext::default());
        assert_eq!(g.format_move(m), "e3-e4");
    }

    #[test]
    fn every_level_plays_a_legal_move() {
        let g = Cordots::new(&CordotsOptions::default());
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        for (id, _) in LEVELS {
            let mut agent = new_agent(id, 1).unwrap();
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            // A near deadline keeps the slow levels short.
            let ctx = ThinkContext {
                deadline: Some(std::time::Instant::now() + Duration::from_millis(60)),
                stop: Some(stop),
                ..ThinkContext::default()
            };
            let m = agent.choose(&g, &ctx);
            assert!(moves.contains(&m), "{id} chose {m:?}");
        }
        assert!(new_agent("grandmaster", 1).is_none());
        // The strongest level thinks 2 s, but a shot clock's deadline wins.
        let mut expert = new_agent("expert", 1).unwrap();
        let began = std::time::Instant::now();
        let ctx = ThinkContext { deadline: Some(began + Duration::from_millis(100)), ..ThinkContext::default() };
        let m = expert.choose(&g, &ctx);
        assert!(moves.contains(&m));
        assert!(began.elapsed() < Duration::from_millis(2_500), "took {:?}", began.elapsed());
        assert!(new_agent("uct:50", 1).is_some());
    }
}
