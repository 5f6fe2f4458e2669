//! Helpers shared by the subcommands.

use anyhow::Result;
use tabula_core::{DynGame, DynState, TabulaError, TimeControl};
use tabula_games::REGISTRY;

/// A user's input was refused (exit status 2, like a usage error).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// A refused input; quotations of the input in `message` are shortened to
/// [`tabula_core::error::MAX_QUOTE`] characters.
pub fn input_error(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(InputError(tabula_core::error::shorten_quotes(message.into())))
}

/// 2 for refused input, 1 for anything else.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<InputError>().is_some() || e.downcast_ref::<TabulaError>().is_some() {
        2
    } else {
        1
    }
}

/// clap's reader for whole-number arguments: read as every number is
/// (`tabula_core::options::parse_number`: leading zeros, no sign).
pub fn whole<T: TryFrom<u64>>(text: &str) -> Result<T, String> {
    let n = tabula_core::options::parse_number(text)
        .ok_or_else(|| format!("'{}' is not a whole number (digits only)", tabula_core::error::excerpt(text)))?;
    T::try_from(n).map_err(|_| format!("{n} is too large"))
}

/// clap's reader for decimal arguments (seconds, minutes, hours): digits
/// with at most one decimal point (`tabula_core::options::parse_decimal`).
pub fn decimal(text: &str) -> Result<f64, String> {
    tabula_core::options::parse_decimal(text).ok_or_else(|| {
        format!("'{}' is not a number (digits, at most one decimal point)", tabula_core::error::excerpt(text))
    })
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

/// The clock of a game: `--clock` when given, else what the options call
/// for. A game whose options fix the clock (Cordots `mode`) takes its clock
/// from them, as the server does: a `--clock` that differs is refused rather
/// than silently overriding the mode (which would label a Fischer game
/// "blitz", or leave an untimed game's ply cap under a clock).
pub fn clock(game: &dyn DynGame, state: &dyn DynState, clock: Option<&str>) -> Result<TimeControl> {
    let from_options = state.time_control();
    let Some(text) = clock else { return Ok(from_options.unwrap_or_default()) };
    let asked = TimeControl::parse(text).map_err(|e| input_error(e.to_string()))?;
    let keys = game.clock_option_keys();
    if keys.is_empty() || asked == from_options.unwrap_or_default() {
        return Ok(asked);
    }
    let chosen: Vec<String> = state
        .options()
        .into_iter()
        .filter(|(k, _)| keys.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let fixed = from_options.map_or("no clock".to_string(), |tc| tc.describe());
    Err(input_error(format!(
        "--clock {} conflicts with {}, which means {fixed}: {} sets its clock with the option {} \
         (see `tabula games`), so leave out --clock or pick another {}",
        tabula_core::error::excerpt(text),
        chosen.join(" "),
        game.id(),
        keys.join(", "),
        keys.join("/"),
    )))
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
