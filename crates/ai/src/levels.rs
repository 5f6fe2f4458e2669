//! AI levels: named budgets that every game gets from day one. A game may
//! add its own levels (a solver, a tuned engine) on top.

use crate::mcts::{Mcts, MctsConfig, Policy, RandomPolicy};
use crate::random::RandomAgent;
use std::time::Duration;
use tabula_core::{Agent, Game, LevelSpec};

/// A search budget.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Playouts at most.
    pub iterations: u64,
    /// Time at most (also capped by the clock).
    pub time: Duration,
}

/// The generic MCTS levels: (id, iterations, time cap in ms).
pub const MCTS_LEVELS: &[(&str, u64, u64)] =
    &[("easy", 300, 200), ("medium", 3_000, 1_000), ("hard", 20_000, 3_000), ("expert", 100_000, 8_000)];

/// The budget of a generic level.
pub fn mcts_budget(level: &str) -> Option<Budget> {
    MCTS_LEVELS
        .iter()
        .find(|(id, ..)| *id == level)
        .map(|&(_, iterations, ms)| Budget { iterations, time: Duration::from_millis(ms) })
}

/// `random` plus the generic MCTS levels.
pub fn generic_levels() -> Vec<LevelSpec> {
    let mut v = vec![LevelSpec::new("random", "uniformly random legal moves")];
    for &(id, it, ms) in MCTS_LEVELS {
        v.push(LevelSpec::new(id, format!("MCTS, {it} playouts (at most {:.1} s)", ms as f64 / 1000.0)));
    }
    v
}

/// An MCTS config for a budget.
pub fn mcts_config(budget: Budget, seed: u64) -> MctsConfig {
    MctsConfig { iterations: Some(budget.iterations), time: Some(budget.time), seed, ..MctsConfig::default() }
}

/// An agent for a generic level, with random playouts. Also accepts the
/// [`plain_uct`] specs.
pub fn generic_agent<G: Game>(level: &str, seed: u64) -> Option<Box<dyn Agent<G>>> {
    generic_agent_with(level, seed, RandomPolicy::<G>::default)
}

/// An agent for a generic level, with the game's own playout policy.
pub fn generic_agent_with<G: Game, P: Policy<G> + 'static>(
    level: &str,
    seed: u64,
    policy: impl FnOnce() -> P,
) -> Option<Box<dyn Agent<G>>> {
    if level == "random" {
        return Some(Box::new(RandomAgent::<G>::new(seed)));
    }
    if let Some(agent) = plain_uct(level, seed) {
        return Some(agent);
    }
    let budget = mcts_budget(level)?;
    Some(Box::new(Mcts::new(mcts_config(budget, seed), policy())))
}

/// `N[:P]`, the tail of a fixed-depth spec (Cumisitha's `depth:N[:P]`,
/// Cordots's `alphabeta-depth:N[:P]`): a depth of 1 to 30 and a share of
/// random moves of P% (0 to 100, default 0); `None` if malformed.
///
/// ```
/// use tabula_ai::levels::depth_and_share;
/// assert_eq!(depth_and_share("6"), Some((6, 0.0)));
/// assert_eq!(depth_and_share("1:30"), Some((1, 0.3)));
/// assert_eq!(depth_and_share("31"), None);
/// assert_eq!(depth_and_share("3:101"), None);
/// ```
pub fn depth_and_share(spec: &str) -> Option<(u32, f64)> {
    let (depth, percent) = match spec.split_once(':') {
        Some((d, p)) => (d, p.parse::<u32>().ok().filter(|&p| p <= 100)?),
        None => (spec, 0),
    };
    let depth = depth.parse::<u32>().ok().filter(|d| (1..=30).contains(d))?;
    Some((depth, f64::from(percent) / 100.0))
}

/// `MS`, the thinking time of a timed spec (Cordots's `alphabeta:MS`,
/// Cumisitha's `alphabeta:MS`, Dots's `rave:MS...`): 1 to 600,000
/// milliseconds a move; `None` if malformed.
///
/// ```
/// use tabula_ai::levels::move_millis;
/// assert_eq!(move_millis("2200"), Some(2200));
/// assert_eq!(move_millis("600000"), Some(600_000));
/// for bad in ["0", "600001", "", "1.5", "-3"] {
///     assert_eq!(move_millis(bad), None, "{bad}");
/// }
/// ```
pub fn move_millis(ms: &str) -> Option<u64> {
    ms.parse().ok().filter(|ms| (1..=600_000).contains(ms))
}

/// The specs [`plain_uct`] takes, as help and error messages write them.
pub const PLAIN_UCT_FORMS: [&str; 2] = ["uct:MS", "uct-iter:N"];

/// The baseline every game's AI is measured against: plain UCT with random
/// playouts, `uct:MS` for a time budget per move, `uct-iter:N` for a
/// number of playouts. Games accept these specs next to their own levels.
pub fn plain_uct<G: Game>(level: &str, seed: u64) -> Option<Box<dyn Agent<G>>> {
    let (iterations, time) = if let Some(ms) = level.strip_prefix("uct:") {
        (None, Some(Duration::from_millis(ms.parse().ok().filter(|&v| v > 0)?)))
    } else if let Some(n) = level.strip_prefix("uct-iter:") {
        (Some(n.parse().ok().filter(|&v| v > 0)?), None)
    } else {
        return None;
    };
    let config = MctsConfig { iterations, time, seed, ..MctsConfig::default() };
    Some(Box::new(Mcts::new(config, RandomPolicy::<G>::default())))
}
