//! The one place that names Tabula's games; everything else is generic
//! over `GameMeta + Encoding`.

use crate::game::{GameImpl, GameOps};
use pyo3::prelude::*;
use std::sync::Arc;
use tabula_coldwar::ColdWar;
use tabula_cordots::Cordots;
use tabula_cumisitha::Cumisitha;
use tabula_dots::Dots;

/// The games' ids, in the order `tabula games` lists them.
pub(crate) const GAME_IDS: [&str; 4] = ["cordots", "cumisitha", "dots", "coldwar"];

/// A game by id (case-insensitive) with its options.
pub(crate) fn make_game(id: &str, options: &[(String, String)]) -> PyResult<Arc<dyn GameOps>> {
    match id.trim().to_ascii_lowercase().as_str() {
        "cordots" => GameImpl::<Cordots>::make(options),
        "cumisitha" => GameImpl::<Cumisitha>::make(options),
        "dots" => GameImpl::<Dots>::make(options),
        "coldwar" => GameImpl::<ColdWar>::make(options),
        _ => Err(crate::errors::TabulaError::new_err(format!("unknown game '{id}' (known: {})", GAME_IDS.join(", ")))),
    }
}
