//! Cold War AIs: the generic MCTS levels with short playouts scored by
//! squares and pieces ([`policy`]), and the `perfect` level that plays from
//! the full solution ([`perfect`]).

pub mod perfect;
pub mod policy;

pub use perfect::PerfectAgent;
pub use policy::{heuristic_value, ColdWarPolicy};

use crate::rules::ColdWar;
use tabula_core::{Agent, LevelSpec};

/// The level used when none is named.
pub const DEFAULT_LEVEL: &str = "medium";

/// The levels, weakest first: the generic ones, then `perfect`.
pub fn levels() -> Vec<LevelSpec> {
    let mut levels = tabula_ai::levels::generic_levels();
    for level in &mut levels[1..] {
        level.description.push_str(", short random playouts scored by squares and pieces held");
    }
    levels.push(LevelSpec::new(
        "perfect",
        "plays from the full solution: the fastest win, the longest loss, else a draw (solves once, then cached)",
    ));
    levels
}

/// An agent for a level; `None` for an unknown level.
pub fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<ColdWar>>> {
    if level == "perfect" {
        return Some(Box::new(PerfectAgent::new(seed)));
    }
    tabula_ai::levels::generic_agent_with(level, seed, ColdWarPolicy::default)
}
