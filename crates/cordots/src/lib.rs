//! Cordots: custodial captures on an 8×8 board with two piece types,
//! Capturers and Victims, and a forced back-row sacrifice that restores
//! captured Capturers. The rules are `docs/rules/cordots.md`.
//!
//! The crate is laid out like every Tabula game:
//!
//! - [`rules`]: [`Cordots`], one `u64` per side and piece type, a move
//!   resolved in the rules' order (active captures, then the step-in check,
//!   then the sacrifice) with a few shifts, an incremental hash, and its
//!   `impl Game`; [`bitboard`] holds the squares, shifts and Zobrist keys;
//! - [`notation`]: moves (`b2-b3`, `c7-c8=f2`) and positions;
//! - [`meta`]: `impl GameMeta`, the JSON view and the terminal board;
//! - [`options`]: the match modes (untimed, competitive, blitz), whose
//!   clocks live in `tabula_core::clock`;
//! - [`ai`]: the evaluation, the alpha-beta and MCTS players and the levels.

#![warn(missing_docs)]

pub mod ai;
pub mod analysis;
pub mod bitboard;
pub mod encoding;
pub mod meta;
pub mod notation;
pub mod options;
pub mod rules;

pub use ai::{CordotsEval, EvalPolicy};
pub use notation::START_POSITION;
pub use options::{CordotsOptions, Mode};
pub use rules::{Cordots, Move, NoSacrifice, Resolution, CAPTURER, VICTIM};
