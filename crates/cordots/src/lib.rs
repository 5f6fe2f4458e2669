//! Cordots: custodial captures on an 8×8 board with two piece types,
//! Capturers and Victims, and a forced back-row sacrifice that restores
//! captured Capturers. The rules are `docs/rules/cordots.md`.
//!
//! The engine keeps one `u64` per side and piece type, resolves a move in
//! the rules' order (active captures, then the step-in check, then the
//! sacrifice) with a few shifts, and hashes incrementally. The match modes
//! (untimed, competitive, blitz) are game options whose clocks live in
//! `tabula_core::clock`.

pub mod ai;
pub mod bitboard;
pub mod encoding;
pub mod game;
pub mod meta;
pub mod options;
pub mod search;

pub use ai::{CordotsEval, EvalPolicy};
pub use game::{Cordots, Move, NoSacrifice, Resolution, CAPTURER, START_POSITION, VICTIM};
pub use options::{CordotsOptions, Mode};
pub use search::{SearchConfig, Searcher};

#[cfg(test)]
mod tests;
