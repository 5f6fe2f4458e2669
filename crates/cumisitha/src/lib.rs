//! Cumisitha (Ludii 15): chess moves from cozy-chess with Ludii's end rules
//! (checkmate wins; stalemate and the 100-ply counter draw; no repetition
//! and no insufficient-material rule).
//!
//! The crate is laid out like every Tabula game:
//!
//! - [`rules`]: [`Cumisitha`], its `impl Game` and the end rules;
//! - [`notation`]: UCI moves, SAN, FEN and PGN;
//! - [`meta`]: `impl GameMeta`, the JSON view and the terminal board;
//! - [`options`]: none (Cumisitha has no options);
//! - [`ai`]: the alpha-beta engine and its levels;
//!
//! and, beyond the common layout, [`tools`]: perft, the UCI front end and
//! matches against external engines.

#![warn(missing_docs)]

pub mod ai;
pub mod analysis;
pub mod encoding;
pub mod meta;
pub mod notation;
pub mod options;
pub mod rules;
pub mod tools;

pub use rules::{Cumisitha, START_FEN};
