//! The small types every system shares: players, sides, points, results.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A player in a tournament: the index in join order, from 0.
///
/// ```
/// use tabula_tournament::PlayerId;
/// assert_eq!(PlayerId(3).index(), 3);
/// assert_eq!(PlayerId(3).to_string(), "#4");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlayerId(pub u32);

impl PlayerId {
    /// The index into the tournament's player list.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0 + 1)
    }
}

/// A side of a game: `First` moves first (white in chess, blue in Dots).
///
/// ```
/// use tabula_tournament::Side;
/// assert_eq!(Side::First.other(), Side::Second);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The player who moves first.
    First,
    /// The player who moves second.
    Second,
}

impl Side {
    /// The opposite side.
    pub fn other(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }
}

/// Tournament points, kept exactly in half points.
///
/// Serialised as a number of points (`1.5`), so JSON stays readable.
///
/// ```
/// use tabula_tournament::Points;
/// let p = Points::from_halves(3);
/// assert_eq!(p.to_string(), "1.5");
/// assert_eq!(p + Points::ONE, Points::from_halves(5));
/// assert_eq!(Points::from_f64(2.5), Some(Points::from_halves(5)));
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Points(i32);

impl Points {
    /// No points.
    pub const ZERO: Points = Points(0);
    /// Half a point.
    pub const HALF: Points = Points(1);
    /// One point.
    pub const ONE: Points = Points(2);

    /// Points from a number of half points.
    pub const fn from_halves(halves: i32) -> Points {
        Points(halves)
    }

    /// The number of half points.
    pub const fn halves(self) -> i32 {
        self.0
    }

    /// The value as a float (`1.5`).
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 2.0
    }

    /// Points from a float that is a whole number of half points.
    pub fn from_f64(value: f64) -> Option<Points> {
        let halves = value * 2.0;
        (halves.is_finite() && halves.fract() == 0.0 && halves.abs() < 1e9).then_some(Points(halves as i32))
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, rhs: Points) -> Points {
        Points(self.0 + rhs.0)
    }
}

impl std::ops::AddAssign for Points {
    fn add_assign(&mut self, rhs: Points) {
        self.0 += rhs.0;
    }
}

impl std::ops::Sub for Points {
    type Output = Points;
    fn sub(self, rhs: Points) -> Points {
        Points(self.0 - rhs.0)
    }
}

impl std::iter::Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        Points(iter.map(|p| p.0).sum())
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 % 2 == 0 {
            write!(f, "{}", self.0 / 2)
        } else {
            write!(f, "{}.5", if self.0 < 0 && self.0 > -2 { "-0".to_string() } else { (self.0 / 2).to_string() })
        }
    }
}

impl Serialize for Points {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.as_f64())
    }
}

impl<'de> Deserialize<'de> for Points {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Points, D::Error> {
        let v = f64::deserialize(d)?;
        Points::from_f64(v).ok_or_else(|| serde::de::Error::custom(format!("{v} is not a whole number of half points")))
    }
}

/// How one game ended, as the server or the local runner reports it.
///
/// `margin` is the first player's game score minus the second's, for games
/// that keep a score (Dots); it feeds the score-difference tie-break.
///
/// ```
/// use tabula_tournament::{GameResult, Side};
/// let r = GameResult::win(Side::First).with_margin(7);
/// assert_eq!(r.winner(), Some(Side::First));
/// assert!(r.was_played());
/// assert!(!GameResult::Forfeit { winner: Some(Side::Second) }.was_played());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GameResult {
    /// The game was played to its end (including a resignation or a loss
    /// on time).
    Played {
        /// `None` is a draw.
        winner: Option<Side>,
        /// First player's game points minus the second's, if the game keeps
        /// a score.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        margin: Option<i32>,
    },
    /// The game was not played: a no-show lost by forfeit. `None`: both
    /// players failed to appear and both lose.
    Forfeit {
        /// The player who appeared, if one did.
        winner: Option<Side>,
    },
}

impl GameResult {
    /// A played game won by `side`.
    pub fn win(side: Side) -> GameResult {
        GameResult::Played { winner: Some(side), margin: None }
    }

    /// A played draw.
    pub fn draw() -> GameResult {
        GameResult::Played { winner: None, margin: None }
    }

    /// The same result with a game-score margin (first minus second).
    pub fn with_margin(self, margin: i32) -> GameResult {
        match self {
            GameResult::Played { winner, .. } => GameResult::Played { winner, margin: Some(margin) },
            other => other,
        }
    }

    /// The winner, if any (a double forfeit has none).
    pub fn winner(&self) -> Option<Side> {
        match *self {
            GameResult::Played { winner, .. } | GameResult::Forfeit { winner } => winner,
        }
    }

    /// Whether the game was played over the board (not a forfeit).
    pub fn was_played(&self) -> bool {
        matches!(self, GameResult::Played { .. })
    }

    /// The margin from `side`'s point of view.
    pub fn margin_for(&self, side: Side) -> Option<i32> {
        match *self {
            GameResult::Played { margin: Some(m), .. } => Some(if side == Side::First { m } else { -m }),
            _ => None,
        }
    }
}

/// How many points a result is worth, per system.
///
/// The defaults are chess's 1 / ½ / 0, with a pairing-allocated bye and a
/// forfeit win worth a win.
///
/// ```
/// use tabula_tournament::{Points, Scoring};
/// let s = Scoring::default();
/// assert_eq!(s.win, Points::ONE);
/// assert_eq!(s.draw, Points::HALF);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scoring {
    /// A win over the board.
    pub win: Points,
    /// A draw.
    pub draw: Points,
    /// A loss over the board.
    pub loss: Points,
    /// A pairing-allocated bye (Swiss, odd round-robin do not score byes).
    pub bye: Points,
    /// A win because the opponent did not appear.
    pub forfeit_win: Points,
    /// A loss by not appearing.
    pub forfeit_loss: Points,
}

impl Default for Scoring {
    fn default() -> Scoring {
        Scoring {
            win: Points::ONE,
            draw: Points::HALF,
            loss: Points::ZERO,
            bye: Points::ONE,
            forfeit_win: Points::ONE,
            forfeit_loss: Points::ZERO,
        }
    }
}

impl Scoring {
    /// The points `side` earns from `result`.
    ///
    /// ```
    /// use tabula_tournament::{GameResult, Points, Scoring, Side};
    /// let s = Scoring::default();
    /// assert_eq!(s.points(&GameResult::win(Side::Second), Side::Second), Points::ONE);
    /// assert_eq!(s.points(&GameResult::draw(), Side::First), Points::HALF);
    /// ```
    pub fn points(&self, result: &GameResult, side: Side) -> Points {
        match *result {
            GameResult::Played { winner: None, .. } => self.draw,
            GameResult::Played { winner: Some(w), .. } => {
                if w == side {
                    self.win
                } else {
                    self.loss
                }
            }
            GameResult::Forfeit { winner: Some(w) } if w == side => self.forfeit_win,
            GameResult::Forfeit { .. } => self.forfeit_loss,
        }
    }
}

/// One entrant: a display name (unique in the tournament) and a rating
/// used for seeding, if known.
///
/// ```
/// use tabula_tournament::Entrant;
/// let e = Entrant::new("alice").rated(1850);
/// assert_eq!(e.rating, Some(1850));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    /// The name shown in standings; also how the server finds the account.
    pub name: String,
    /// Rating for seeding (higher is stronger). Unrated entrants seed last,
    /// in join order.
    #[serde(default)]
    pub rating: Option<i32>,
}

impl Entrant {
    /// An unrated entrant.
    pub fn new(name: impl Into<String>) -> Entrant {
        Entrant { name: name.into(), rating: None }
    }

    /// The same entrant with a rating.
    pub fn rated(mut self, rating: i32) -> Entrant {
        self.rating = Some(rating);
        self
    }
}

/// Seeding order: rating (highest first, unrated last), then join order.
pub(crate) fn seed_order(entrants: &[Entrant]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..entrants.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(entrants[i].rating.unwrap_or(i32::MIN)), i));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_display_and_serde() {
        assert_eq!(Points::from_halves(-1).to_string(), "-0.5");
        assert_eq!(Points::from_halves(-3).to_string(), "-1.5");
        assert_eq!(Points::from_halves(7).to_string(), "3.5");
        assert_eq!(serde_json::to_string(&Points::from_halves(3)).unwrap(), "1.5");
        let p: Points = serde_json::from_str("2.5").unwrap();
        assert_eq!(p, Points::from_halves(5));
        assert!(serde_json::from_str::<Points>("0.3").is_err());
    }

    #[test]
    fn seeding_puts_unrated_last_in_join_order() {
        let e =
            vec![Entrant::new("a"), Entrant::new("b").rated(1500), Entrant::new("c"), Entrant::new("d").rated(1700)];
        assert_eq!(seed_order(&e), vec![3, 1, 0, 2]);
    }
}

/// How the server should set up one game, beyond the tournament's own
/// options and clock: extra `key=value` game options (they win over the
/// tournament's) and a clock to use instead of the tournament's (in the
/// clock notation of `tabula_core::TimeControl::parse`, e.g. `fischer:60+1`).
///
/// ```
/// use tabula_tournament::GameSettings;
/// let extra_time = GameSettings::option("stage", "knockout");
/// assert_eq!(extra_time.options, vec![("stage".to_string(), "knockout".to_string())]);
/// assert!(GameSettings::default().is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSettings {
    /// Extra game options.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<(String, String)>,
    /// A clock instead of the tournament's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

impl GameSettings {
    /// Settings with one extra option.
    pub fn option(key: impl Into<String>, value: impl Into<String>) -> GameSettings {
        GameSettings { options: vec![(key.into(), value.into())], clock: None }
    }

    /// Whether these settings change nothing.
    pub fn is_empty(&self) -> bool {
        self.options.is_empty() && self.clock.is_none()
    }

    /// These settings with `clock` as the clock.
    pub fn with_clock(mut self, clock: impl Into<String>) -> GameSettings {
        self.clock = Some(clock.into());
        self
    }
}
