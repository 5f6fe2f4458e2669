//! Commands a game adds to `tabula` beside the common ones (`play`,
//! `match`, `bench`...): Cold War's `solve`, Cumisitha's `perft`, `uci` and
//! `uci-match`. A game lists its tools in [`crate::GameMeta::tools`]; the
//! command line shows them in its help and hands them their arguments, so it
//! never names a game itself.

use std::ffi::OsString;

/// A command a game adds to `tabula`.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    /// The subcommand's name, e.g. `perft`. Names are unique across games.
    pub name: &'static str,
    /// One line for `tabula --help`.
    pub about: &'static str,
    /// Parse the arguments and run. `args[0]` is the command as the user
    /// would type it (`tabula perft`), for usage lines; the rest are the
    /// arguments after the tool's name. Help and usage errors are printed
    /// by the tool's argument parser, which then exits the process as
    /// `tabula` itself would.
    pub run: fn(args: Vec<OsString>) -> Result<(), ToolError>,
}

/// Why a tool failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The user's input was refused: an unknown game, a bad position or
    /// move, an impossible argument (exit status 2).
    #[error("{0}")]
    Input(String),
    /// The work itself failed (exit status 1).
    #[error("{0}")]
    Failed(String),
    /// Reading or writing failed (exit status 1).
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl ToolError {
    /// The process exit status for this error: 2 for refused input, 1 for
    /// anything else.
    pub fn exit_status(&self) -> u8 {
        match self {
            ToolError::Input(_) => 2,
            ToolError::Failed(_) | ToolError::Io(_) => 1,
        }
    }
}
