//! Error types shared by every game. Each carries a message a person can
//! read; none of them is ever raised by a panic.
//!
//! Messages quote what the user typed, but never more than
//! [`MAX_QUOTE`] characters of it: the constructors here shorten every
//! quotation, so a 120 KB "move" is not echoed back in full.

use std::borrow::Cow;

/// The most characters of a user's input an error message quotes.
pub const MAX_QUOTE: usize = 80;

/// `text` cut to at most [`MAX_QUOTE`] characters, with `…` where it was cut.
///
/// ```
/// use tabula_core::error::excerpt;
/// assert_eq!(excerpt("e2e4"), "e2e4");
/// let long = "x".repeat(500);
/// assert_eq!(excerpt(&long).chars().count(), 81);
/// ```
pub fn excerpt(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_QUOTE) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => Cow::Owned(format!("{}…", &text[..cut])),
    }
}

/// `message` with every quotation longer than [`MAX_QUOTE`] characters
/// shortened. A quotation opens with `'` after a non-alphanumeric character
/// and closes with `'` before one, so apostrophes inside words ("White's")
/// are left alone. Every error built here goes through it; front ends pass
/// their own messages through it too.
///
/// ```
/// use tabula_core::error::shorten_quotes;
/// let message = format!("seat '{}' is not human, ai or ai:LEVEL", "z".repeat(1_000));
/// assert!(shorten_quotes(message).len() < 150);
/// ```
pub fn shorten_quotes(message: String) -> String {
    if message.len() <= MAX_QUOTE {
        return message;
    }
    let chars: Vec<char> = message.chars().collect();
    let word = |i: usize| chars.get(i).is_some_and(|c| c.is_alphanumeric());
    let mut out = String::with_capacity(message.len().min(4 * MAX_QUOTE));
    // Quotation marks with no closing mark after some point: searching
    // again from later would find none either (linear time on long input).
    let mut unclosed: Vec<char> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        out.push(c);
        i += 1;
        let opens = QUOTES.contains(&c) && !unclosed.contains(&c) && (i < 2 || !word(i - 2));
        if !opens {
            continue;
        }
        // Find the closing mark: the same mark not followed by a letter or digit.
        let close = (i..chars.len()).find(|&j| chars[j] == c && !word(j + 1));
        let Some(close) = close else {
            unclosed.push(c);
            continue;
        };
        let inner: String = chars[i..close].iter().collect();
        out.push_str(&excerpt(&inner));
        out.push(c);
        i = close + 1;
    }
    out
}

/// The marks a quotation may open with: ours (`'`), and serde's (`` ` ``
/// and `"`) in the parse errors passed on to users.
const QUOTES: [char; 3] = ['\'', '`', '"'];

/// A move or position string that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct NotationError {
    /// What was wrong, for a person.
    pub message: String,
}

impl NotationError {
    /// An error with this message; quotations of the input in it are
    /// shortened to [`MAX_QUOTE`] characters.
    ///
    /// ```
    /// use tabula_core::NotationError;
    /// let e = NotationError::new(format!("'{}' is not a square", "z".repeat(1000)));
    /// assert!(e.message.starts_with("'zzz") && e.message.ends_with("z…' is not a square"));
    /// assert_eq!(e.message.chars().count(), 99);
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        NotationError { message: shorten_quotes(message.into()) }
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
    /// A stable, machine-readable code for APIs: `malformed_move`,
    /// `illegal_move` or `game_over`.
    pub fn code(self) -> &'static str {
        match self {
            MoveErrorKind::Malformed => "malformed_move",
            MoveErrorKind::Illegal => "illegal_move",
            MoveErrorKind::GameOver => "game_over",
        }
    }

    /// How a message names the refused move.
    fn what(self) -> &'static str {
        match self {
            MoveErrorKind::Malformed => "malformed move",
            MoveErrorKind::Illegal => "illegal move",
            MoveErrorKind::GameOver => "move after the end of the game",
        }
    }
}

/// A refused move: which text, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} '{text}': {reason}", kind.what())]
pub struct MoveError {
    /// Malformed, illegal, or after the end.
    pub kind: MoveErrorKind,
    /// The move as given (at most [`MAX_QUOTE`] characters of it).
    pub text: String,
    /// Why it was refused.
    pub reason: String,
}

impl MoveError {
    fn new(kind: MoveErrorKind, text: &str, reason: String) -> Self {
        MoveError { kind, text: excerpt(text).into_owned(), reason: shorten_quotes(reason) }
    }
    /// The text is not a move in the game's notation.
    pub fn malformed(text: &str, reason: impl Into<String>) -> Self {
        Self::new(MoveErrorKind::Malformed, text, reason.into())
    }
    /// A well-formed move that is not legal here.
    pub fn illegal(text: &str, reason: impl Into<String>) -> Self {
        Self::new(MoveErrorKind::Illegal, text, reason.into())
    }
    /// A move after the end of the game.
    pub fn game_over(text: &str, reason: impl Into<String>) -> Self {
        Self::new(MoveErrorKind::GameOver, text, reason.into())
    }
}

/// A `key=value` game option that was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("option {key}: {message}")]
pub struct OptionError {
    /// The option's key (at most [`MAX_QUOTE`] characters of it).
    pub key: String,
    /// What was wrong with it.
    pub message: String,
}

impl OptionError {
    /// The option `key` was refused for `message`.
    pub fn new(key: &str, message: impl Into<String>) -> Self {
        OptionError { key: excerpt(key).into_owned(), message: shorten_quotes(message.into()) }
    }
}

/// What was wrong in a game record (see [`RecordError`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordProblem {
    /// A move was refused.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// The start position was refused.
    #[error("bad position: {0}")]
    Position(NotationError),
    /// An option tag was refused.
    #[error(transparent)]
    Option(#[from] OptionError),
    /// The text does not follow the record format.
    #[error("{0}")]
    Syntax(String),
    /// There was no game in the text.
    #[error("the record holds no game")]
    Empty,
}

/// A game record that could not be read, written or replayed, and where:
/// which game of the file, which line and which move, when known. Its
/// message reads `game 2, line 14, move 31: illegal move 'b9': ...`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{reason}", place(*.game, *.line, *.move_no))]
pub struct RecordError {
    /// The game's number in the file, from 1.
    pub game: Option<usize>,
    /// The line, from 1.
    pub line: Option<usize>,
    /// The move's number in the game, from 1.
    pub move_no: Option<usize>,
    /// What was wrong.
    pub reason: RecordProblem,
}

/// `game N, line L, move M: `, with the parts that are known.
fn place(game: Option<usize>, line: Option<usize>, move_no: Option<usize>) -> String {
    let parts: Vec<String> = [("game", game), ("line", line), ("move", move_no)]
        .into_iter()
        .filter_map(|(name, n)| n.map(|n| format!("{name} {n}")))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("{}: ", parts.join(", "))
    }
}

impl RecordError {
    /// An error with no place yet; add one with [`RecordError::in_game`],
    /// [`RecordError::at_line`] and [`RecordError::at_move`].
    ///
    /// ```
    /// use tabula_core::{RecordError, RecordProblem};
    /// let e = RecordError::new(RecordProblem::Empty).in_game(2).at_line(7);
    /// assert_eq!(e.to_string(), "game 2, line 7: the record holds no game");
    /// ```
    pub fn new(reason: impl Into<RecordProblem>) -> Self {
        RecordError { game: None, line: None, move_no: None, reason: reason.into() }
    }
    /// A syntax error of the record format.
    pub fn syntax(message: impl Into<String>) -> Self {
        Self::new(RecordProblem::Syntax(shorten_quotes(message.into())))
    }
    /// A refused start position.
    pub fn position(e: NotationError) -> Self {
        Self::new(RecordProblem::Position(e))
    }
    /// In the `n`-th game of the file (from 1).
    pub fn in_game(mut self, n: usize) -> Self {
        self.game = Some(n);
        self
    }
    /// On line `n` (from 1).
    pub fn at_line(mut self, n: usize) -> Self {
        self.line = Some(n);
        self
    }
    /// At the `n`-th move of the game (from 1).
    pub fn at_move(mut self, n: usize) -> Self {
        self.move_no = Some(n);
        self
    }
}

/// Every error the dynamic layer reports, with a machine-readable code.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TabulaError {
    /// No game has this id; the second field lists the known ones.
    #[error("unknown game '{0}' (known games: {1})")]
    UnknownGame(String, String),
    /// A game option was refused.
    #[error(transparent)]
    Option(#[from] OptionError),
    /// A position was refused.
    #[error("bad position: {0}")]
    Position(NotationError),
    /// A move was refused.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// The game has no such AI level.
    #[error("unknown AI level '{level}' for {game} (levels: {known})")]
    UnknownLevel {
        /// The game's id.
        game: String,
        /// The level asked for.
        level: String,
        /// The levels the game has, comma-separated, then (where agents
        /// may be any spec, not in the server) the spec forms it takes.
        known: String,
    },
    /// The operation does not apply (e.g. an agent given another game's state).
    #[error("{0}")]
    Unsupported(String),
    /// A game record could not be read, written or replayed.
    #[error(transparent)]
    Record(#[from] RecordError),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_quotations_are_shortened_and_apostrophes_kept() {
        let long = "a".repeat(120_000);
        let e = MoveError::malformed(&long, format!("'{long}' is not a point: write x-y"));
        let shown = e.to_string();
        assert!(shown.len() < 300, "{} characters", shown.len());
        assert!(shown.ends_with("…' is not a point: write x-y"), "{shown}");
        let prose = format!("it is Black's turn and {} is White's", "b".repeat(100));
        assert_eq!(NotationError::new(prose.clone()).message, prose);
        assert_eq!(NotationError::new("'e2e9' is off").message, "'e2e9' is off");
    }

    #[test]
    fn serde_style_quotations_and_unclosed_marks_are_shortened_too() {
        let long = "q".repeat(5_000);
        let serde = format!("bad message: unknown variant `{long}`, expected `ping` or `move`");
        let shown = shorten_quotes(serde);
        assert!(shown.len() < 200, "{shown}");
        assert!(shown.ends_with("…`, expected `ping` or `move`"), "{shown}");
        let json = shorten_quotes(format!("invalid type: string \"{long}\", expected u32"));
        assert!(json.len() < 200, "{json}");
        // Many opening marks and no closing one: kept as they are, in one pass.
        let marks = "'a".repeat(50_000);
        assert_eq!(shorten_quotes(marks.clone()), marks);
    }

    #[test]
    fn record_errors_say_where() {
        let e = RecordError::syntax("malformed tag '[x'").at_line(3);
        assert_eq!(e.to_string(), "line 3: malformed tag '[x'");
        let m = MoveError::illegal("b9", "no such square");
        let e = RecordError::new(m).in_game(1).at_line(4).at_move(12);
        assert_eq!(e.to_string(), "game 1, line 4, move 12: illegal move 'b9': no such square");
    }
}
