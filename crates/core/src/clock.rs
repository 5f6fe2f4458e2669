//! Clocks as pure state machines. Time is passed in as milliseconds from any
//! fixed origin, so tests never sleep and a server can restore a clock after
//! a restart without charging the downtime.

use crate::game::Player;
use serde::{Deserialize, Serialize};

/// A time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TimeControl {
    /// No clock.
    #[default]
    None,
    /// Each player has `base_ms`, plus `increment_ms` after each own move.
    Fischer {
        /// Each player's time at the start.
        base_ms: u64,
        /// Added after each of the player's own moves.
        increment_ms: u64,
    },
    /// One clock for the whole game that runs whoever is to move (Cordots
    /// Competitive). When it runs out the game's tie-breaker decides; a
    /// level count gets one `overtime_ms` period, then is a draw.
    MatchClock {
        /// The clock's time.
        total_ms: u64,
        /// The one overtime period a level count gets.
        overtime_ms: u64,
    },
    /// A fixed time for every move (Cordots Blitz); running out loses.
    ShotClock {
        /// The time for each move.
        per_move_ms: u64,
    },
}

/// A time control that could not be read (see [`TimeControl::parse`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// Not `none` and not one of the known kinds.
    #[error("unknown time control '{0}' (try none, fischer:300+5, match:20, shot:45)")]
    Unknown(String),
    /// A time that is not a number of seconds (or minutes for `match:`).
    #[error("'{0}' is not a number of seconds")]
    NotANumber(String),
    /// A clock kind that needs a time above zero was given zero.
    #[error("a {0} needs a {1} above zero")]
    Zero(&'static str, &'static str),
}

impl TimeControl {
    /// Parse `none`, `fischer:BASE+INC` (seconds), `match:MIN[+OVERTIME_MIN]`
    /// or `shot:SECONDS`.
    ///
    /// ```
    /// use tabula_core::TimeControl;
    /// assert_eq!(
    ///     TimeControl::parse("fischer:300+5"),
    ///     Ok(TimeControl::Fischer { base_ms: 300_000, increment_ms: 5_000 })
    /// );
    /// assert!(TimeControl::parse("hourglass:5").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<TimeControl, TimeControlError> {
        let t = text.trim().to_ascii_lowercase();
        // Digits with at most one decimal point (`2.5`), as numbers are
        // read everywhere.
        let secs = |s: &str| -> Result<u64, TimeControlError> {
            crate::options::parse_decimal(s)
                .filter(|v| v.is_finite() && *v >= 0.0 && *v <= 1e7)
                .map(|v| (v * 1000.0).round() as u64)
                .ok_or_else(|| TimeControlError::NotANumber(crate::error::excerpt(s).into_owned()))
        };
        if t == "none" || t.is_empty() {
            return Ok(TimeControl::None);
        }
        let unknown = || TimeControlError::Unknown(crate::error::excerpt(text).into_owned());
        let (kind, arg) = t.split_once(':').ok_or_else(unknown)?;
        match kind {
            "fischer" => {
                let (b, i) = arg.split_once('+').unwrap_or((arg, "0"));
                let base_ms = secs(b)?;
                if base_ms == 0 {
                    return Err(TimeControlError::Zero("Fischer clock", "base time"));
                }
                Ok(TimeControl::Fischer { base_ms, increment_ms: secs(i)? })
            }
            "match" => {
                let (m, o) = arg.split_once('+').unwrap_or((arg, "5"));
                let total_ms = secs(m)? * 60;
                if total_ms == 0 {
                    return Err(TimeControlError::Zero("match clock", "time"));
                }
                Ok(TimeControl::MatchClock { total_ms, overtime_ms: secs(o)? * 60 })
            }
            "shot" => {
                let per_move_ms = secs(arg)?;
                if per_move_ms == 0 {
                    return Err(TimeControlError::Zero("shot clock", "time"));
                }
                Ok(TimeControl::ShotClock { per_move_ms })
            }
            _ => Err(unknown()),
        }
    }

    /// Whether this is no clock at all.
    pub fn is_none(&self) -> bool {
        matches!(self, TimeControl::None)
    }

    /// A short description, e.g. `5+3`, `match 20:00 (+5:00)`, `45 s/move`.
    pub fn describe(&self) -> String {
        match *self {
            TimeControl::None => "untimed".into(),
            TimeControl::Fischer { base_ms, increment_ms } => {
                format!("{}+{}", fmt_ms(base_ms), increment_ms as f64 / 1000.0)
            }
            TimeControl::MatchClock { total_ms, overtime_ms } => {
                format!("match clock {} (+{} overtime)", fmt_ms(total_ms), fmt_ms(overtime_ms))
            }
            TimeControl::ShotClock { per_move_ms } => {
                format!("{} s per move", per_move_ms as f64 / 1000.0)
            }
        }
    }
}

/// `m:ss` (or `h:mm:ss`).
pub fn fmt_ms(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// Time ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ClockEvent {
    /// This player's own time ran out: it loses.
    Flag {
        /// Whose time ran out.
        player: Player,
    },
    /// The shared match clock ran out (in overtime when `overtime`).
    MatchTimeUp {
        /// Whether it was the overtime that ran out.
        overtime: bool,
    },
}

/// A running clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    /// The time control.
    pub control: TimeControl,
    /// Remaining time per player (Fischer), or of the match clock in slot 0.
    remaining: [u64; 2],
    to_move: Player,
    /// When the running period started; `None` while paused.
    running_since: Option<u64>,
    in_overtime: bool,
}

impl Serialize for Player {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(*self as u8)
    }
}

impl<'de> Deserialize<'de> for Player {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match u8::deserialize(d)? {
            0 => Ok(Player::First),
            1 => Ok(Player::Second),
            n => Err(serde::de::Error::custom(format!("player index {n} is not 0 or 1"))),
        }
    }
}

impl Clock {
    /// A paused clock with `to_move` on move.
    pub fn new(control: TimeControl, to_move: Player) -> Clock {
        let remaining = match control {
            TimeControl::None => [0, 0],
            TimeControl::Fischer { base_ms, .. } => [base_ms, base_ms],
            TimeControl::MatchClock { total_ms, .. } => [total_ms, total_ms],
            TimeControl::ShotClock { per_move_ms } => [per_move_ms, per_move_ms],
        };
        Clock { control, remaining, to_move, running_since: None, in_overtime: false }
    }

    /// Whose clock runs.
    pub fn to_move(&self) -> Player {
        self.to_move
    }
    /// Whether a match clock is in its overtime.
    pub fn in_overtime(&self) -> bool {
        self.in_overtime
    }
    /// Whether the clock runs (not paused, not finished).
    pub fn is_running(&self) -> bool {
        self.running_since.is_some()
    }

    /// Start (or resume) the clock of the player on move at `now`.
    /// Resuming after a pause charges nothing for the pause.
    pub fn start(&mut self, now: u64) {
        if !self.control.is_none() && self.running_since.is_none() {
            self.running_since = Some(now);
        }
    }

    /// Stop the clock, charging the time used so far.
    pub fn pause(&mut self, now: u64) {
        if let Some(since) = self.running_since.take() {
            let used = now.saturating_sub(since);
            match self.control {
                TimeControl::Fischer { .. } => {
                    let r = &mut self.remaining[self.to_move.index()];
                    *r = r.saturating_sub(used);
                }
                TimeControl::MatchClock { .. } => self.remaining[0] = self.remaining[0].saturating_sub(used),
                TimeControl::ShotClock { .. } => {
                    let r = &mut self.remaining[self.to_move.index()];
                    *r = r.saturating_sub(used);
                }
                TimeControl::None => {}
            }
        }
    }

    fn elapsed(&self, now: u64) -> u64 {
        self.running_since.map_or(0, |s| now.saturating_sub(s))
    }

    /// Time left for `p` at `now` (the shared clock for a match clock);
    /// `None` without a clock.
    pub fn remaining(&self, p: Player, now: u64) -> Option<u64> {
        match self.control {
            TimeControl::None => None,
            TimeControl::MatchClock { .. } => Some(self.remaining[0].saturating_sub(self.elapsed(now))),
            TimeControl::Fischer { .. } | TimeControl::ShotClock { .. } => {
                let r = self.remaining[p.index()];
                Some(if p == self.to_move { r.saturating_sub(self.elapsed(now)) } else { r })
            }
        }
    }

    /// When (in the caller's time) the running clock runs out.
    pub fn deadline(&self) -> Option<u64> {
        let since = self.running_since?;
        match self.control {
            TimeControl::None => None,
            TimeControl::MatchClock { .. } => Some(since + self.remaining[0]),
            _ => Some(since + self.remaining[self.to_move.index()]),
        }
    }

    /// Has time run out at `now`?
    pub fn check(&self, now: u64) -> Option<ClockEvent> {
        let deadline = self.deadline()?;
        if now < deadline {
            return None;
        }
        Some(match self.control {
            TimeControl::MatchClock { .. } => ClockEvent::MatchTimeUp { overtime: self.in_overtime },
            _ => ClockEvent::Flag { player: self.to_move },
        })
    }

    /// The player on move moved at `now`. If its time had already run out,
    /// the move does not count and the expiry is returned instead.
    pub fn on_move(&mut self, now: u64) -> Result<(), ClockEvent> {
        if let Some(ev) = self.check(now) {
            return Err(ev);
        }
        let running = self.running_since.is_some();
        self.pause(now);
        let mover = self.to_move;
        match self.control {
            TimeControl::Fischer { increment_ms, .. } => self.remaining[mover.index()] += increment_ms,
            TimeControl::ShotClock { per_move_ms } => self.remaining = [per_move_ms, per_move_ms],
            _ => {}
        }
        self.to_move = mover.other();
        if running {
            self.start(now);
        }
        Ok(())
    }

    /// Start the one overtime period of a match clock at `now`.
    /// Returns false when there is no overtime left to give.
    pub fn start_overtime(&mut self, now: u64) -> bool {
        match self.control {
            TimeControl::MatchClock { overtime_ms, .. } if !self.in_overtime && overtime_ms > 0 => {
                self.in_overtime = true;
                self.remaining[0] = overtime_ms;
                self.running_since = Some(now);
                true
            }
            _ => false,
        }
    }

    /// Set the side on move without charging anyone (loading a position).
    pub fn set_to_move(&mut self, p: Player) {
        self.to_move = p;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fischer_charges_the_mover_and_adds_increment() {
        let mut c = Clock::new(TimeControl::Fischer { base_ms: 10_000, increment_ms: 2_000 }, Player::First);
        c.start(0);
        assert_eq!(c.remaining(Player::First, 3_000), Some(7_000));
        assert_eq!(c.remaining(Player::Second, 3_000), Some(10_000));
        c.on_move(3_000).unwrap();
        assert_eq!(c.remaining(Player::First, 3_000), Some(9_000));
        assert_eq!(c.deadline(), Some(13_000));
        assert_eq!(c.check(12_999), None);
        assert_eq!(c.check(13_000), Some(ClockEvent::Flag { player: Player::Second }));
        assert_eq!(c.on_move(14_000), Err(ClockEvent::Flag { player: Player::Second }));
    }

    #[test]
    fn pause_does_not_charge_downtime() {
        let mut c = Clock::new(TimeControl::Fischer { base_ms: 10_000, increment_ms: 0 }, Player::First);
        c.start(0);
        c.pause(4_000);
        c.start(100_000);
        assert_eq!(c.remaining(Player::First, 101_000), Some(5_000));
    }

    #[test]
    fn match_clock_runs_for_both_and_gives_one_overtime() {
        let mut c = Clock::new(TimeControl::MatchClock { total_ms: 60_000, overtime_ms: 5_000 }, Player::First);
        c.start(0);
        c.on_move(20_000).unwrap();
        c.on_move(50_000).unwrap();
        assert_eq!(c.remaining(Player::Second, 50_000), Some(10_000));
        assert_eq!(c.check(60_000), Some(ClockEvent::MatchTimeUp { overtime: false }));
        assert!(c.start_overtime(60_000));
        assert_eq!(c.check(64_999), None);
        assert_eq!(c.check(65_000), Some(ClockEvent::MatchTimeUp { overtime: true }));
        assert!(!c.start_overtime(65_000));
    }

    #[test]
    fn shot_clock_resets_every_move() {
        let mut c = Clock::new(TimeControl::ShotClock { per_move_ms: 45_000 }, Player::First);
        c.start(0);
        c.on_move(44_000).unwrap();
        assert_eq!(c.remaining(Player::Second, 44_000), Some(45_000));
        assert_eq!(c.check(88_999), None);
        assert_eq!(c.check(89_000), Some(ClockEvent::Flag { player: Player::Second }));
    }

    #[test]
    fn parse_time_controls() {
        assert_eq!(TimeControl::parse("none").unwrap(), TimeControl::None);
        assert_eq!(
            TimeControl::parse("fischer:300+5").unwrap(),
            TimeControl::Fischer { base_ms: 300_000, increment_ms: 5_000 }
        );
        assert_eq!(
            TimeControl::parse("match:20").unwrap(),
            TimeControl::MatchClock { total_ms: 1_200_000, overtime_ms: 300_000 }
        );
        assert_eq!(TimeControl::parse("shot:45").unwrap(), TimeControl::ShotClock { per_move_ms: 45_000 });
        assert!(TimeControl::parse("fischer:abc").is_err());
        assert!(TimeControl::parse("hourglass:5").is_err());
        assert!(TimeControl::parse("shot:0").is_err());
    }
}
