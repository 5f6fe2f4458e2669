//! Ratings for Tabula, pure and without I/O: the server stores what these
//! functions return and passes the time in as milliseconds.
//!
//! - [`Rating`]: a Glicko-2 rating (computed by the `skillratings` crate)
//!   with its number of rated games and the instant of its last rated game,
//!   so its deviation grows with inactivity ([`Rating::at`]).
//! - [`rate_game`]: both players' new ratings after one game.
//! - [`Category`]: the speed category (blitz, rapid, classical, untimed) a
//!   [`TimeControl`](tabula_core::TimeControl) is rated in.
//! - [`RatingRange`]: the optional rating range of a seek.
//! - [`pool::pair`]: quick pairing of the players waiting in a pool.
//! - [`match_stats`]: a match's score with its 95% interval, the Elo
//!   difference, and the SPRT that accepts or rejects an engine change.
//!
//! docs/ratings.md describes the choices (boundaries, provisional
//! threshold, rating period, pairing widening) for users.
//!
//! ```
//! use tabula_ratings::{rate_game, Category, GameResult, Rating};
//! use tabula_core::TimeControl;
//!
//! let blitz = TimeControl::Fischer { base_ms: 180_000, increment_ms: 2_000 };
//! assert_eq!(Category::of(&blitz), Category::Blitz);
//!
//! let (ann, bob) = (Rating::new(), Rating::new());
//! let (ann, bob) = rate_game(&ann, &bob, GameResult::Win, 1_000);
//! assert!(ann.rating > 1500.0 && bob.rating < 1500.0);
//! assert_eq!((ann.games, bob.games), (1, 1));
//! assert!(ann.is_provisional());
//! ```
#![warn(missing_docs)]

mod category;
mod glicko;
pub mod match_stats;
pub mod pool;
mod range;

pub use category::{Category, CategoryError};
pub use glicko::{
    rate_game, rate_period, GameResult, Rating, DEFAULT_DEVIATION, DEFAULT_RATING, DEFAULT_VOLATILITY,
    PROVISIONAL_DEVIATION, RATING_PERIOD_MS, TAU,
};
pub use range::{RatingRange, RatingRangeError};
