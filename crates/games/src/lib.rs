//! Every game Tabula hosts. Adding a game means adding its crate and one
//! line to [`REGISTRY`].

#![warn(missing_docs)]

use tabula_core::{DynGame, Entry, Registry};

/// The games, in the order `tabula games` lists them.
pub static REGISTRY: Registry = Registry::new(&[
    &Entry::<tabula_cordots::Cordots>::NEW as &dyn DynGame,
    &Entry::<tabula_cumisitha::Cumisitha>::NEW as &dyn DynGame,
    &Entry::<tabula_dots::Dots>::NEW as &dyn DynGame,
    &Entry::<tabula_coldwar::ColdWar>::NEW as &dyn DynGame,
]);
