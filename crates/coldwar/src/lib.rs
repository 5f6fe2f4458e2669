//! Cold War: a 3×3 board where each square holds a base of up to three
//! pieces. The rules are in `docs/rules/coldwar.md`.
//!
//! Besides the rules ([`ColdWar`]) the crate holds the game's strong
//! solution ([`Table`], built by retrograde analysis and cached on disk by
//! [`cache`]) and the `perfect` AI that plays from it.

mod board;
pub mod cache;
pub mod encoding;
mod meta;
mod perfect;
mod policy;
mod report;
mod solve;

pub use board::{square_name, ColdWar, Move, Square, BOARDS, PLY_CAP};
pub use perfect::PerfectAgent;
pub use policy::{heuristic_value, ColdWarPolicy};
pub use report::{reachable_census, solve_report, ReachableCensus};
pub use solve::{BadTable, Eval, Table, TableCensus, Value};
