//! Error types shared by every game. Each carries a message a person can
//! read; none of them is ever raised by a panic.

use std::fmt;

/// A move or position string that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct NotationError {
    pub message: String,
}

impl NotationError {
    pub fn new(message: impl Into<String>) -> Self {
        NotationError { message: message.into() }
    }
}

/// Why a move was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveErrorKind {
    /// The text is not a move in the game's notation.
    Malformed,
    /// Well formed, but not legal in this position.
    Illegal,
    /// The game is already over.
    GameOver,
}

impl MoveErrorKind {
    pub fn code(self) -> &'static str {
        match self {
            MoveErrorKind::Malformed => "malformed_move",
            MoveErrorKind::Illegal => "illegal_move",
            MoveErrorKind::GameOver => "game_over",
        }
    }
}

/// A refused move: which text, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveError {
    pub kind: MoveErrorKind,
    pub text: String,
    pub reason: String,
}

impl MoveError {
    pub fn malformed(text: &str, reason: impl Into<String>) -> Self {
        MoveError { kind: MoveErrorKind::Malformed, text: text.to_string(), reason: reason.into() }
    }
    pub fn illegal(text: &str, reason: impl Into<String>) -> Self {
        MoveError { kind: MoveErrorKind::Illegal, text: text.to_string(), reason: reason.into() }
    }
    pub fn game_over(text: &str, reason: impl Into<String>) -> Self {
        MoveError { kind: MoveErrorKind::GameOver, text: text.to_string(), reason: reason.into() }
    }
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            MoveErrorKind::Malformed => "malformed move",
            MoveErrorKind::Illegal => "illegal move",
            MoveErrorKind::GameOver => "move after the end of the game",
        };
        write!(f, "{what} '{}': {}", self.text, self.reason)
    }
}

impl std::error::Error for MoveError {}

/// A `key=value` game option that was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("option {key}: {message}")]
pub struct OptionError {
    pub key: String,
    pub message: String,
}

impl OptionError {
    pub fn new(key: &str, message: impl Into<String>) -> Self {
        OptionError { key: key.to_string(), message: message.into() }
    }
}

/// Every error the dynamic layer reports, with a machine-readable code.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TabulaError {
    #[error("unknown game '{0}' (known games: {1})")]
    UnknownGame(String, String),
    #[error(transparent)]
    Option(#[from] OptionError),
    #[error("bad position: {0}")]
    Position(NotationError),
    #[error(transparent)]
    Move(#[from] MoveError),
    #[error("unknown AI level '{level}' for {game} (levels: {known})")]
    UnknownLevel { game: String, level: String, known: String },
    #[error("{0}")]
    Unsupported(String),
    #[error("{0}")]
    Record(String),
}

impl TabulaError {
    /// A stable, machine-readable code for APIs.
    pub fn code(&self) -> &'static str {
        match self {
            TabulaError::UnknownGame(..) => "unknown_game",
            TabulaError::Option(_) => "bad_option",
            TabulaError::Position(_) => "bad_position",
            TabulaError::Move(m) => m.kind.code(),
            TabulaError::UnknownLevel { .. } => "unknown_level",
            TabulaError::Unsupported(_) => "unsupported",
            TabulaError::Record(_) => "bad_record",
        }
    }
}
