//! Options of a Dots game: board size, the cross, championship format and stage.

use tabula_core::options::unknown_key;
use tabula_core::{GameOptions, OptionError, OptionSpec};

/// The smallest and largest board side the engine supports.
pub const MIN_SIDE: u8 = 5;
/// See [`MIN_SIDE`].
pub const MAX_SIDE: u8 = 64;

/// How a game ends (see docs/rules/dots.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Ends when the board is full or the lead is protected.
    #[default]
    Single,
    /// Ends after move 240.
    Express,
    /// Ends after move 360.
    Extended,
    /// From move 240 ends on a protected lead; at move 720 at the latest.
    Full,
}

impl Format {
    /// The format's option value: `single`, `express`, `extended` or `full`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Single => "single",
            Format::Express => "express",
            Format::Extended => "extended",
            Format::Full => "full",
        }
    }
}

/// What a level score at the move limit means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stage {
    /// A draw.
    #[default]
    Group,
    /// Extra time: the first move after which the scores differ decides.
    Knockout,
}

impl Stage {
    /// The stage's option value: `group` or `knockout`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Group => "group",
            Stage::Knockout => "knockout",
        }
    }
}

/// Dots' options: the board and the championship format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DotsOptions {
    /// Points across.
    pub width: u8,
    /// Points up.
    pub height: u8,
    /// Start with the four-dot cross in the centre.
    pub cross: bool,
    /// How the game ends.
    pub format: Format,
    /// What a level score at the move limit means.
    pub stage: Stage,
}

impl Default for DotsOptions {
    fn default() -> Self {
        DotsOptions { width: 39, height: 32, cross: true, format: Format::Single, stage: Stage::Group }
    }
}

impl DotsOptions {
    /// A board of `width` × `height` with every other option at its default.
    pub fn sized(width: u8, height: u8) -> Self {
        DotsOptions { width, height, ..Self::default() }
    }
}

const SPECS: &[OptionSpec] = &[
    OptionSpec { key: "width", values: "5..64", default: "39", help: "board width (intersections)" },
    OptionSpec { key: "height", values: "5..64", default: "32", help: "board height (intersections)" },
    OptionSpec { key: "cross", values: "on|off", default: "on", help: "start with the four-dot cross in the centre" },
    OptionSpec {
        key: "format",
        values: "single|express|extended|full",
        default: "single",
        help: "single game, or a championship format (240 / 360 / 240-720 moves)",
    },
    OptionSpec {
        key: "stage",
        values: "group|knockout",
        default: "group",
        help: "championship stage: a level score at the limit is a draw (group) or goes to extra time (knockout)",
    },
];

fn side(key: &str, value: &str) -> Result<u8, OptionError> {
    let n = tabula_core::options::parse_number(value)
        .ok_or_else(|| OptionError::new(key, format!("'{value}' is not a whole number")))?;
    if n < MIN_SIDE as u64 || n > MAX_SIDE as u64 {
        return Err(OptionError::new(key, format!("{n} is out of range ({MIN_SIDE}..{MAX_SIDE})")));
    }
    Ok(n as u8)
}

impl GameOptions for DotsOptions {
    fn specs() -> &'static [OptionSpec] {
        SPECS
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), OptionError> {
        let v = value.trim().to_ascii_lowercase();
        match key.trim().to_ascii_lowercase().as_str() {
            "width" => self.width = side(key, value)?,
            "height" => self.height = side(key, value)?,
            "cross" => {
                self.cross = match v.as_str() {
                    "on" | "true" | "yes" | "1" => true,
                    "off" | "false" | "no" | "0" => false,
                    _ => return Err(OptionError::new(key, format!("'{value}' is not on or off"))),
                }
            }
            "format" => {
                self.format = match v.as_str() {
                    "single" => Format::Single,
                    "express" => Format::Express,
                    "extended" => Format::Extended,
                    "full" => Format::Full,
                    _ => {
                        return Err(OptionError::new(
                            key,
                            format!("'{value}' is not a format (single, express, extended, full)"),
                        ))
                    }
                }
            }
            "stage" => {
                self.stage = match v.as_str() {
                    "group" => Stage::Group,
                    "knockout" => Stage::Knockout,
                    _ => return Err(OptionError::new(key, format!("'{value}' is not a stage (group, knockout)"))),
                }
            }
            _ => return Err(unknown_key::<Self>(key)),
        }
        Ok(())
    }

    fn pairs(&self) -> Vec<(String, String)> {
        vec![
            ("width".into(), self.width.to_string()),
            ("height".into(), self.height.to_string()),
            ("cross".into(), if self.cross { "on" } else { "off" }.into()),
            ("format".into(), self.format.name().into()),
            ("stage".into(), self.stage.name().into()),
        ]
    }

    fn validate(&self) -> Result<(), OptionError> {
        // A single game has no move limit, so no level score at a limit for
        // the stage to judge.
        if self.stage == Stage::Knockout && self.format == Format::Single {
            return Err(OptionError::new(
                "stage",
                "stage=knockout applies only to a format with a move limit (express, extended or full), \
                 not format=single",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_and_refuse() {
        let o = DotsOptions::from_pairs(&[("width", "10"), ("height", "64"), ("cross", "off"), ("format", "full")])
            .unwrap();
        assert_eq!((o.width, o.height, o.cross, o.format), (10, 64, false, Format::Full));
        assert!(DotsOptions::from_pairs(&[("width", "4")]).unwrap_err().message.contains("out of range"));
        assert!(DotsOptions::from_pairs(&[("height", "65")]).is_err());
        assert!(DotsOptions::from_pairs(&[("cross", "maybe")]).is_err());
        assert!(DotsOptions::from_pairs(&[("stage", "final")]).is_err());
        assert!(DotsOptions::from_pairs(&[("colour", "red")]).unwrap_err().message.contains("known"));
        let back = DotsOptions::from_pairs(&o.pairs()).unwrap();
        assert_eq!(back, o);
    }
}
