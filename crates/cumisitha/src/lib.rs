//! Cumisitha (Ludii 15): chess moves from cozy-chess with Ludii's end rules
//! (checkmate wins; stalemate and the 100-ply counter draw; no repetition
//! and no insufficient-material rule), FEN/UCI/SAN/PGN notations, perft, an
//! alpha-beta engine and a UCI front end.

pub mod arena;
pub mod encoding;
pub mod engine;
pub mod fen;
pub mod game;
pub mod perft;
pub mod pgn;
pub mod rules;
pub mod san;
pub mod uci;

pub use game::Cumisitha;
pub use rules::START_FEN;
