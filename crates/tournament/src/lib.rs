//! Tournament pairing and standings for Tabula: round-robin (Berger
//! tables), Swiss (the FIDE Dutch system), knockout (seeded brackets,
//! best-of-N matches, tie-breaks and an armageddon decider), arena
//! (lichess-style continuous pairing) and the Dots championship (round-robin
//! groups, then a knockout), with standings and tie-breaks for each, and a
//! maximum-likelihood rating fit over all games.
//!
//! Everything here is pure: no I/O, no clock (times are milliseconds
//! passed in), no knowledge of any game. Results come in as win, draw or
//! loss, optionally with a game-score margin (Dots). The whole
//! [`Tournament`] state serialises with serde, so a server can store it
//! after each call and resume after a restart; [`Event`]s tell it which
//! games to create, with which extra options and clock ([`GameSettings`]).
//!
//! ```
//! use tabula_tournament::{Config, Entrant, Event, GameResult, Side, System, Tournament};
//!
//! let mut t = Tournament::new(Config::new(System::Swiss { rounds: 3 })).unwrap();
//! for (name, rating) in [("ann", 1900), ("bob", 1800), ("cid", 1700), ("dee", 1600)] {
//!     t.join(Entrant::new(name).rated(rating)).unwrap();
//! }
//! let events = t.start(0).unwrap();
//! let first_round: Vec<_> = events.iter().filter(|e| matches!(e, Event::GameCreated { .. })).collect();
//! assert_eq!(first_round.len(), 2); // 1-3 and 4-2
//! let mut now = 0;
//! while !t.is_finished() {
//!     let ids: Vec<u32> = t.pending_games().map(|g| g.id).collect();
//!     for id in ids {
//!         now += 60_000;
//!         t.record(id, GameResult::win(Side::First), now).unwrap();
//!     }
//! }
//! let table = t.standings();
//! assert_eq!(table.len(), 4);
//! ```
#![warn(missing_docs)]

pub mod arena;
pub mod dutch;
pub mod knockout;
mod matching;
pub mod rating;
pub mod roundrobin;
pub mod standings;
pub mod swiss;
pub mod tournament;
mod types;

pub use standings::{Standing, TieBreak};
pub use tournament::{
    Bye, ByeKind, Config, Event, Game, GameId, Player, Round, ScheduledGame, Status, System, Tournament,
    TournamentError,
};
pub use types::{Entrant, GameResult, GameSettings, PlayerId, Points, Scoring, Side};
