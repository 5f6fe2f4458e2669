//! Game options: the match mode and, for Competitive, the clock length.

use tabula_core::clock::TimeControl;
use tabula_core::options::unknown_key;
use tabula_core::{GameOptions, OptionError, OptionSpec};

/// The overtime a level count at the end of a Competitive clock gets.
pub const OVERTIME_MS: u64 = 5 * 60_000;
/// Blitz: the time for every move.
pub const BLITZ_MOVE_MS: u64 = 45_000;
/// Untimed games stop here and the tie-breaker decides.
pub const PLY_CAP: u32 = 300;

/// How a match is timed (the rules' "match modes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// No clock; a 300-ply cap judged by the tie-breaker.
    #[default]
    Untimed,
    /// One continuous match clock of 20, 25 or 30 minutes, then the
    /// tie-breaker, one 5-minute overtime when level, then a draw.
    Competitive,
    /// 45 seconds per move; running out loses.
    Blitz,
}

impl Mode {
    /// The mode's option value: `untimed`, `competitive` or `blitz`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Untimed => "untimed",
            Mode::Competitive => "competitive",
            Mode::Blitz => "blitz",
        }
    }
}

/// Cordots' options: the match mode and the Competitive clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CordotsOptions {
    /// How the match is timed.
    pub mode: Mode,
    /// The Competitive clock in minutes: 20, 25 or 30.
    pub minutes: u8,
}

impl Default for CordotsOptions {
    fn default() -> Self {
        CordotsOptions { mode: Mode::Untimed, minutes: 20 }
    }
}

impl CordotsOptions {
    /// The defaults with this mode.
    pub fn with_mode(mode: Mode) -> Self {
        CordotsOptions { mode, ..Self::default() }
    }

    /// The clock this mode calls for; `None` when untimed.
    pub fn time_control(&self) -> Option<TimeControl> {
        match self.mode {
            Mode::Untimed => None,
            Mode::Competitive => {
                Some(TimeControl::MatchClock { total_ms: self.minutes as u64 * 60_000, overtime_ms: OVERTIME_MS })
            }
            Mode::Blitz => Some(TimeControl::ShotClock { per_move_ms: BLITZ_MOVE_MS }),
        }
    }

    /// The ply cap, which stands in for the clock only when untimed.
    pub fn ply_cap(&self) -> Option<u32> {
        (self.mode == Mode::Untimed).then_some(PLY_CAP)
    }
}

static SPECS: &[OptionSpec] = &[
    OptionSpec {
        key: "mode",
        values: "untimed|competitive|blitz",
        default: "untimed",
        help: "untimed: 300-ply cap judged by the tie-breaker; competitive: one match clock, \
               tie-breaker at expiry, one 5:00 overtime; blitz: 45 s per move, running out loses",
    },
    OptionSpec { key: "minutes", values: "20|25|30", default: "20", help: "length of the competitive match clock" },
];

impl GameOptions for CordotsOptions {
    fn specs() -> &'static [OptionSpec] {
        SPECS
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), OptionError> {
        let v = value.trim().to_ascii_lowercase();
        match key.trim() {
            "mode" => {
                self.mode = match v.as_str() {
                    "untimed" => Mode::Untimed,
                    "competitive" => Mode::Competitive,
                    "blitz" => Mode::Blitz,
                    _ => {
                        return Err(OptionError::new(
                            key,
                            format!("'{value}' is not a mode (untimed, competitive or blitz)"),
                        ))
                    }
                }
            }
            "minutes" => {
                self.minutes = match tabula_core::options::parse_number(&v) {
                    Some(20) => 20,
                    Some(25) => 25,
                    Some(30) => 30,
                    _ => return Err(OptionError::new(key, format!("'{value}' is not 20, 25 or 30 minutes"))),
                }
            }
            _ => return Err(unknown_key::<Self>(key)),
        }
        Ok(())
    }

    fn pairs(&self) -> Vec<(String, String)> {
        vec![("mode".into(), self.mode.name().into()), ("minutes".into(), self.minutes.to_string())]
    }

    fn validate(&self) -> Result<(), OptionError> {
        if self.minutes != 20 && self.mode != Mode::Competitive {
            return Err(OptionError::new(
                "minutes",
                format!("the match clock length applies only to mode=competitive, not mode={}", self.mode.name()),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_pick_their_clocks() {
        let o = CordotsOptions::from_pairs(&[("mode", "competitive"), ("minutes", "25")]).unwrap();
        assert_eq!(o.time_control(), Some(TimeControl::MatchClock { total_ms: 1_500_000, overtime_ms: 300_000 }));
        assert_eq!(o.ply_cap(), None);
        let o = CordotsOptions::from_pairs(&[("mode", "blitz")]).unwrap();
        assert_eq!(o.time_control(), Some(TimeControl::ShotClock { per_move_ms: 45_000 }));
        assert_eq!(o.ply_cap(), None);
        let o = CordotsOptions::default();
        assert_eq!(o.time_control(), None);
        assert_eq!(o.ply_cap(), Some(300));
        // The normalised pairs read back to the same options.
        for mode in ["untimed", "competitive", "blitz"] {
            let o = CordotsOptions::from_pairs(&[("mode", mode)]).unwrap();
            assert_eq!(CordotsOptions::from_pairs(&o.pairs()).unwrap(), o);
        }
    }

    #[test]
    fn bad_options_are_refused_with_a_reason() {
        let e = CordotsOptions::from_pairs(&[("mode", "bullet")]).unwrap_err();
        assert!(e.to_string().contains("not a mode"), "{e}");
        let e = CordotsOptions::from_pairs(&[("mode", "competitive"), ("minutes", "15")]).unwrap_err();
        assert!(e.to_string().contains("20, 25 or 30"), "{e}");
        let e = CordotsOptions::from_pairs(&[("minutes", "30")]).unwrap_err();
        assert!(e.to_string().contains("only to mode=competitive"), "{e}");
        let e = CordotsOptions::from_pairs(&[("size", "9")]).unwrap_err();
        assert!(e.to_string().contains("known: mode, minutes"), "{e}");
    }
}
