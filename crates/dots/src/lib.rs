//! Dots (Points, Tochki, Kropki) for Tabula.
//!
//! The rules are in docs/rules/dots.md. The crate is laid out like every
//! Tabula game:
//!
//! - [`rules`]: [`Dots`], the engine (a flat board of cells with a sentinel
//!   border, captures found locally around the placed dot, incremental
//!   hash) and its `impl Game`; `cell.rs` keeps all knowledge of a cell's
//!   bits, `ring.rs` the ring table and contour walks, `scratch.rs` the
//!   flood lists, and [`formats`] the championship formats' endings;
//! - [`notation`]: points (`20-16`) and SGF records ([`notation::sgf`]);
//! - [`meta`]: `impl GameMeta`, the JSON view and the terminal board;
//! - [`options`]: board size, the cross, format and stage;
//! - [`ai`]: the MCTS players.

#![warn(missing_docs)]

pub mod ai;
pub mod analysis;
mod cell;
pub mod encoding;
mod flood;
pub mod formats;
pub mod meta;
pub mod notation;
pub mod options;
mod ring;
pub mod rules;
mod scratch;

pub use options::{DotsOptions, Format, Stage};
pub use rules::{Dots, Point};
