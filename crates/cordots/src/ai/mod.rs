//! Cordots AIs: an evaluation for alpha-beta, an evaluation-guided MCTS
//! policy, and the levels users pick from.

pub mod eval;
pub mod search;

pub use eval::{capturable, CordotsEval, Weights};

use crate::rules::{Cordots, Move};
use std::time::Duration;
use tabula_ai::alphabeta::{AlphaBeta, AlphaBetaConfig};
use tabula_ai::mcts::{Mcts, MctsConfig, Policy};
use tabula_ai::{RandomAgent, Rng};
use tabula_core::{Agent, Game, LevelSpec, Player};

/// MCTS leaves valued by blending the evaluation of the leaf (squashed to a
/// win probability for White) with the result of a random playout from it.
/// The playout sees what the evaluation cannot (the tie-breaker at the cap,
/// eliminations); the evaluation cuts the playout's noise.
#[derive(Clone)]
pub struct EvalPolicy {
    /// Longest playout; past it the position is judged by the tie-breaker.
    pub plies: u32,
    /// The evaluation's share of the value, 0..1.
    pub eval_share: f64,
    eval: CordotsEval,
    moves: Vec<Move>,
}

impl EvalPolicy {
    /// A policy with playouts of at most `plies` plies, the evaluation weighing `eval_share`.
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

/// The levels, weakest first.
pub fn levels() -> Vec<LevelSpec> {
    LEVELS.iter().map(|&(id, d)| LevelSpec::new(id, d)).collect()
}

/// What a draw costs the levels' alpha-beta, in centi-pieces. Two equal
/// searches draw each other nearly always (by repetition, or level at the
/// cap); without contempt a search that is a little ahead takes a
/// repetition as readily as the side behind.
pub const CONTEMPT: i32 = 50;

/// The Cordots alpha-beta (the generic search with the Cordots hooks:
/// quiescence, killers, history) thinking `ms` per move.
pub fn alphabeta(ms: u64) -> AlphaBeta<Cordots, CordotsEval> {
    let config = AlphaBetaConfig {
        time: Some(Duration::from_millis(ms)),
        tt_bits: 20,
        contempt: CONTEMPT,
        ..AlphaBetaConfig::default()
    };
    AlphaBeta::new(config, CordotsEval::default())
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

use tabula_ai::levels::PLAIN_UCT_FORMS;

/// The specs [`new_agent`] takes besides the levels.
pub const LEVEL_FORMS: &[&str] = &[
    PLAIN_UCT_FORMS[0],
    PLAIN_UCT_FORMS[1],
    "alphabeta:MS",
    "alphabeta-no-lmr:MS",
    "alphabeta-no-null:MS",
    "alphabeta-no-contempt:MS",
    "alphabeta-baseline:MS",
    "alphabeta-depth:N[:P]",
];

/// An agent for a level (or a plain-UCT baseline); `None` for an unknown level.
pub fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Cordots>>> {
    Some(match level {
        "random" => Box::new(RandomAgent::<Cordots>::new(seed)),
        "easy" => Box::new(mcts(300, seed)),
        "medium" => Box::new(alphabeta(500)),
        "hard" => Box::new(alphabeta(1_000)),
        "expert" => Box::new(alphabeta(2_000)),
        // The levels' search to a fixed depth, at most 2 s a move (as
        // `expert`), a random move P% of the time: the rungs a level ladder
        // is measured with, the same strength on any machine.
        _ if level.starts_with("alphabeta-depth:") => {
            let (depth, share) = tabula_ai::levels::depth_and_share(&level["alphabeta-depth:".len()..])?;
            let mut ab = alphabeta(2_000);
            ab.config.max_depth = depth;
            if share > 0.0 {
                Box::new(tabula_ai::WithRandomMoves::<Cordots>::new(Box::new(ab), share, seed))
            } else {
                Box::new(ab)
            }
        }
        // The levels' search at any time per move (`alphabeta:MS`), and
        // without what 2026-12-03 added (`alphabeta-no-lmr:MS` without late
        // move reductions, `alphabeta-no-null:MS` without null moves,
        // `alphabeta-no-contempt:MS` scoring draws 0, `alphabeta-baseline:MS`
        // without all three: the search of the levels before): for matches
        // at equal time that measure what each is worth.
        _ if level.starts_with("alphabeta") => {
            let (kind, ms) = level.split_once(':')?;
            let ms = tabula_ai::levels::move_millis(ms)?;
            let mut ab = alphabeta(ms);
            let (lmr, null, contempt) = match kind {
                "alphabeta" => (true, true, CONTEMPT),
                "alphabeta-no-lmr" => (false, true, CONTEMPT),
                "alphabeta-no-null" => (true, false, CONTEMPT),
                "alphabeta-no-contempt" => (true, true, 0),
                "alphabeta-baseline" => (false, false, 0),
                _ => return None,
            };
            ab.config.late_move_reductions = lmr;
            ab.config.null_move = null;
            ab.config.contempt = contempt;
            Box::new(ab)
        }
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
        for spec in [
            "alphabeta:50",
            "alphabeta-no-lmr:50",
            "alphabeta-no-null:50",
            "alphabeta-no-contempt:50",
            "alphabeta-baseline:50",
        ] {
            assert!(new_agent(spec, 1).is_some(), "{spec}");
        }
        for spec in ["alphabeta-depth:3", "alphabeta-depth:1:30", "alphabeta-depth:30:100"] {
            let mut agent = new_agent(spec, 1).unwrap_or_else(|| panic!("{spec}"));
            assert!(moves.contains(&agent.choose(&g, &ThinkContext::default())), "{spec}");
        }
        assert!(new_agent("alphabeta-depth:2:50", 1).unwrap().describe().contains("50%"));
        for spec in [
            "alphabeta-depth:0",
            "alphabeta-depth:31",
            "alphabeta-depth:3:101",
            "alphabeta-depth:3:",
            "alphabeta-depth:",
        ] {
            assert!(new_agent(spec, 1).is_none(), "{spec}");
        }
        for spec in ["alphabeta", "alphabeta:", "alphabeta:0", "alphabeta:x", "alphabeta-fast:50"] {
            assert!(new_agent(spec, 1).is_none(), "{spec}");
        }
    }
}
