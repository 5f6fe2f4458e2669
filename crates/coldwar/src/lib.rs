//! Cold War: a 3×3 board where each square holds a base of up to three
//! pieces. The rules are in `docs/rules/coldwar.md`.

mod board;
mod meta;

pub use board::{ColdWar, Move, Square};
