//! The Cumisitha engine: evaluation, transposition table, search, levels.

pub mod eval;
pub mod levels;
pub mod search;
pub mod see;
pub mod tt;

pub use search::{time_budget, Engine, Info, Limits, Score, SearchResult, MATE, MATE_BOUND};
