//! Helpers shared by the subcommands.

use anyhow::Result;
use tabula_core::{DynGame, DynState, TabulaError};
use tabula_games::REGISTRY;

/// A user's input was refused (exit status 2, like a usage error).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

pub fn input_error(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(InputError(message.into()))
}

/// 2 for refused input, 1 for anything else.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<InputError>().is_some() || e.downcast_ref::<TabulaError>().is_some() {
        2
    } else {
        1
    }
}

/// Look up a game by id.
pub fn game(id: &str) -> Result<&'static dyn DynGame> {
    REGISTRY.get(id).map_err(|e| input_error(e.to_string()))
}

/// Parse `--option key=value` arguments.
pub fn options(pairs: &[String]) -> Result<Vec<(String, String)>> {
    pairs.iter().map(|p| tabula_core::options::parse_pair(p).map_err(|e| input_error(e.to_string()))).collect()
}

/// A new state, or one loaded from a position.
pub fn new_state(
    game: &dyn DynGame,
    options: &[(String, String)],
    position: Option<&str>,
) -> Result<Box<dyn DynState>> {
    let state = match position {
        Some(p) => game.from_position(options, p),
        None => game.new_state(options),
    };
    state.map_err(|e| input_error(e.to_string()))
}

/// Whether to colour terminal output.
pub fn use_color() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
}

pub fn describe_result(state: &dyn DynState, winner: Option<tabula_core::Player>, reason: &str) -> String {
    match winner {
        Some(w) => format!("{} wins ({reason})", state.player_name(w)),
        None => format!("draw ({reason})"),
    }
}
