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

/// The levels' ratings (random = 0, rounded to tens): the maximum-likelihood
/// fit of a `tabula tournament` round-robin of all six levels, 10 games a
/// pair (docs/rules/coldwar.md has the crosstable). Measure again when a
/// level changes.
const LEVEL_ELO: [(&str, i32); 6] =
    [("random", 0), ("easy", 470), ("medium", 1010), ("hard", 1030), ("expert", 1100), ("perfect", 1080)];

/// The levels, weakest first: the generic ones, then `perfect`.
pub fn levels() -> Vec<LevelSpec> {
    let mut levels = tabula_ai::levels::generic_levels();
    for level in &mut levels[1..] {
        level.description.push_str(", short random playouts scored by squares and pieces held");
    }
    levels.push(LevelSpec::new(
        "perfect",
        "plays from the full solution: the fastest win, the longest loss, else the drawing move a medium search likes best (solves once, then cached)",
    ));
    LevelSpec::rated(levels, &LEVEL_ELO)
}

/// An agent for a level; `None` for an unknown level.
pub fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<ColdWar>>> {
    if level == "perfect" {
        return Some(Box::new(PerfectAgent::new(seed)));
    }
    tabula_ai::levels::generic_agent_with(level, seed, ColdWarPolicy::default)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_has_its_measured_rating() {
        tabula_core::conformance::check_level_ratings(&levels(), &LEVEL_ELO).unwrap();
    }
}
