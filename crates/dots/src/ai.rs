//! AI players for Dots (replaced by the tuned MCTS below in a later step).

use crate::Dots;
use tabula_core::{Agent, LevelSpec};

pub const DEFAULT_LEVEL: &str = "medium";

pub fn levels() -> Vec<LevelSpec> {
    tabula_ai::levels::generic_levels()
}

pub fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Dots>>> {
    tabula_ai::levels::generic_agent(level, seed)
}
