//! Game options (`key=value`), such as board size or match format.

use crate::error::OptionError;
use std::fmt::Debug;

/// One option a game accepts, for `tabula games`, `--help` and the lobby.
#[derive(Debug, Clone, serde::Serialize)]
pub struct OptionSpec {
    /// The option's key, e.g. `width`.
    pub key: &'static str,
    /// The accepted values, e.g. `"5..64"` or `"on|off"`.
    pub values: &'static str,
    /// The default value.
    pub default: &'static str,
    /// What it does.
    pub help: &'static str,
}

/// A game's options. `Default` gives the standard game.
pub trait GameOptions: Clone + Default + Debug + PartialEq + Send + Sync + 'static {
    /// The options this game accepts.
    fn specs() -> &'static [OptionSpec];
    /// Set one option from its text form.
    fn set(&mut self, key: &str, value: &str) -> Result<(), OptionError>;
    /// Every option with its current value, in `specs()` order.
    fn pairs(&self) -> Vec<(String, String)>;

    /// Build options from `key=value` pairs over the defaults. Keys are
    /// read without regard to case or surrounding spaces (`Width = 20` is
    /// `width=20`), so every game reads them alike.
    fn from_pairs<K: AsRef<str>, V: AsRef<str>>(pairs: &[(K, V)]) -> Result<Self, OptionError> {
        let mut options = Self::default();
        for (k, v) in pairs {
            options.set(&k.as_ref().trim().to_ascii_lowercase(), v.as_ref().trim())?;
        }
        options.validate()?;
        Ok(options)
    }

    /// Check the combination once every option is set.
    fn validate(&self) -> Result<(), OptionError> {
        Ok(())
    }
}

/// For games without options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoOptions;

impl GameOptions for NoOptions {
    fn specs() -> &'static [OptionSpec] {
        &[]
    }
    fn set(&mut self, key: &str, _value: &str) -> Result<(), OptionError> {
        Err(OptionError::new(key, "this game has no options"))
    }
    fn pairs(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// Read a whole number the way Tabula reads every number a person types,
/// in options, positions, moves and records: ASCII digits only, leading
/// zeros allowed (`07` is 7), no sign (`+1` and `-1` are refused), no
/// spaces inside (spaces around are ignored). `None` when it is not such a
/// number or does not fit in a `u64`.
///
/// ```
/// use tabula_core::options::parse_number;
/// assert_eq!(parse_number("20"), Some(20));
/// assert_eq!(parse_number(" 007 "), Some(7));
/// assert_eq!(parse_number("0"), Some(0));
/// assert_eq!(parse_number("+1"), None);
/// assert_eq!(parse_number("-1"), None);
/// assert_eq!(parse_number("1e3"), None);
/// assert_eq!(parse_number("99999999999999999999999"), None);
/// ```
pub fn parse_number(text: &str) -> Option<u64> {
    let t = text.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// Read a decimal number as Tabula reads every one a person types (times in
/// seconds, minutes or hours): ASCII digits with at most one decimal point,
/// no sign, no exponent, spaces around ignored.
///
/// ```
/// use tabula_core::options::parse_decimal;
/// assert_eq!(parse_decimal("2.5"), Some(2.5));
/// assert_eq!(parse_decimal("07"), Some(7.0));
/// assert_eq!(parse_decimal(".5"), Some(0.5));
/// for bad in ["+1", "-1", "1e3", "inf", "NaN", ".", "1.2.3", ""] {
///     assert_eq!(parse_decimal(bad), None, "{bad}");
/// }
/// ```
pub fn parse_decimal(text: &str) -> Option<f64> {
    let t = text.trim();
    let plain = t.bytes().filter(|&b| b == b'.').count() <= 1
        && t.bytes().any(|b| b.is_ascii_digit())
        && t.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if !plain {
        return None;
    }
    t.parse().ok()
}

/// Parse `key=value` text as given on a command line.
pub fn parse_pair(text: &str) -> Result<(String, String), OptionError> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(OptionError::new(text, "expected key=value")),
    }
}

/// Reject an unknown key with the list of keys the game knows.
pub fn unknown_key<O: GameOptions>(key: &str) -> OptionError {
    let known: Vec<&str> = O::specs().iter().map(|s| s.key).collect();
    if known.is_empty() {
        OptionError::new(key, "this game has no options")
    } else {
        OptionError::new(key, format!("unknown option (known: {})", known.join(", ")))
    }
}
