//! Cumisitha's own commands beyond the common game API: perft, a UCI
//! front end for chess GUIs and match runners, and matches against an
//! external UCI engine.

pub mod arena;
pub mod perft;
pub mod uci;
