//! Cold War: a 3×3 board where each square holds a base of up to three
//! pieces. The rules are in `docs/rules/coldwar.md`.
//!
//! The crate is laid out like every Tabula game:
//!
//! - [`rules`]: [`ColdWar`] and its `impl Game`;
//! - [`notation`]: squares, moves (`b2`, `b2-b3`, `b2xb3`, `b2>b3`) and
//!   positions (`X3.O1/.X1./... O`);
//! - [`meta`]: `impl GameMeta`, the JSON view and the terminal board;
//! - [`options`]: none (Cold War has no options);
//! - [`ai`]: the MCTS levels and the `perfect` player;
//!
//! and, beyond the common layout, [`solve`]: the game's strong solution
//! ([`Table`], built by retrograde analysis and cached on disk by
//! [`solve::cache`]).

#![warn(missing_docs)]

pub mod ai;
pub mod analysis;
pub mod encoding;
pub mod meta;
pub mod notation;
pub mod options;
pub mod rules;
pub mod solve;

pub use ai::{heuristic_value, ColdWarPolicy, PerfectAgent};
pub use notation::square_name;
pub use rules::{ColdWar, Move, Square, BOARDS, PLY_CAP};
pub use solve::report::{reachable_census, solve_report, ReachableCensus};
pub use solve::{BadTable, Eval, Table, TableCensus, Value};
