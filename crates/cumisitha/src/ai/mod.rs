//! The Cumisitha engine (a chess alpha-beta tuned for Cumisitha's end rules): evaluation, transposition table, search, and the levels users pick from.

pub mod eval;
pub mod levels;
pub mod nnue;
pub mod params;
pub mod search;
pub mod see;
pub mod tt;

pub use search::{time_budget, Engine, Info, Limits, Score, SearchResult, MATE, MATE_BOUND};
