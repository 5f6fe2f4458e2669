//! Tournament pairing and standings for Tabula.
#![warn(missing_docs)]

pub mod dutch;
pub mod knockout;
mod matching;
pub mod roundrobin;
pub mod standings;
pub mod swiss;
mod types;

pub use standings::{Standing, TieBreak};
pub use types::{Entrant, GameResult, GameSettings, PlayerId, Points, Scoring, Side};
