//! Speed categories: each game keeps one rating per category, because a
//! player's strength at 3 minutes is not their strength at 30.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use tabula_core::TimeControl;

/// The speed category a game is rated in, derived from its time control by
/// an estimated duration per player, as on lichess (see [`Category::of`]).
///
/// Its string id ([`Category::id`]) is stable, for URLs and the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// An estimated duration under 8 minutes per player; Cordots Blitz
    /// (45 s per move).
    Blitz,
    /// From 8 to under 25 minutes; Cordots Competitive (one 20, 25 or
    /// 30 minute match clock).
    Rapid,
    /// 25 minutes or more per player.
    Classical,
    /// No clock.
    Untimed,
}

/// A category id that is not one of [`Category::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rating category '{0}' (expected blitz, rapid, classical or untimed)")]
pub struct CategoryError(pub String);

/// Where blitz ends: an estimated 8 minutes per player (as on lichess).
const BLITZ_BELOW_MS: u64 = 8 * 60_000;
/// Where rapid ends: an estimated 25 minutes per player (as on lichess).
const RAPID_BELOW_MS: u64 = 25 * 60_000;
/// Moves a Fischer increment is counted for (lichess's "base + 40 × increment").
const FISCHER_MOVES: u64 = 40;
/// Full moves' worth of time a shot clock is counted for. Its time cannot
/// be saved up, so players move well inside it: a fifth of 40 moves, so
/// anything under a minute a move is blitz.
const SHOT_CLOCK_MOVES: u64 = 8;

impl Category {
    /// Every category, fastest first.
    pub const ALL: [Category; 4] = [Category::Blitz, Category::Rapid, Category::Classical, Category::Untimed];

    /// The category of a time control, by its estimated duration per player:
    ///
    /// | clock | estimate |
    /// |---|---|
    /// | Fischer `base + increment` | base + 40 × increment |
    /// | match clock (one clock for the game) | (total + overtime) / 2 |
    /// | shot clock (a time per move) | 8 × the time per move |
    ///
    /// Under 8 minutes is blitz, under 25 minutes rapid, then classical;
    /// no clock is untimed.
    ///
    /// ```
    /// use tabula_core::TimeControl;
    /// use tabula_ratings::Category;
    /// let fischer = |m: u64, s: u64| TimeControl::Fischer { base_ms: m * 60_000, increment_ms: s * 1000 };
    /// assert_eq!(Category::of(&fischer(5, 3)), Category::Blitz); // 5 + 2 = 7 min
    /// assert_eq!(Category::of(&fischer(10, 0)), Category::Rapid);
    /// assert_eq!(Category::of(&fischer(30, 0)), Category::Classical);
    /// // Cordots Blitz and Competitive.
    /// assert_eq!(Category::of(&TimeControl::ShotClock { per_move_ms: 45_000 }), Category::Blitz);
    /// let competitive = TimeControl::MatchClock { total_ms: 20 * 60_000, overtime_ms: 5 * 60_000 };
    /// assert_eq!(Category::of(&competitive), Category::Rapid);
    /// assert_eq!(Category::of(&TimeControl::None), Category::Untimed);
    /// ```
    pub fn of(time_control: &TimeControl) -> Category {
        let estimate = match *time_control {
            TimeControl::None => return Category::Untimed,
            TimeControl::Fischer { base_ms, increment_ms } => {
                base_ms.saturating_add(increment_ms.saturating_mul(FISCHER_MOVES))
            }
            TimeControl::MatchClock { total_ms, overtime_ms } => total_ms.saturating_add(overtime_ms) / 2,
            TimeControl::ShotClock { per_move_ms } => per_move_ms.saturating_mul(SHOT_CLOCK_MOVES),
        };
        if estimate < BLITZ_BELOW_MS {
            Category::Blitz
        } else if estimate < RAPID_BELOW_MS {
            Category::Rapid
        } else {
            Category::Classical
        }
    }

    /// The stable id: `blitz`, `rapid`, `classical` or `untimed`.
    ///
    /// ```
    /// use tabula_ratings::Category;
    /// assert_eq!(Category::Rapid.id(), "rapid");
    /// assert_eq!(Category::Rapid.to_string(), "rapid");
    /// ```
    pub fn id(self) -> &'static str {
        match self {
            Category::Blitz => "blitz",
            Category::Rapid => "rapid",
            Category::Classical => "classical",
            Category::Untimed => "untimed",
        }
    }

    /// The name shown to people: `Blitz`, `Rapid`, `Classical`, `Untimed`.
    ///
    /// ```
    /// use tabula_ratings::Category;
    /// assert_eq!(Category::Classical.label(), "Classical");
    /// ```
    pub fn label(self) -> &'static str {
        match self {
            Category::Blitz => "Blitz",
            Category::Rapid => "Rapid",
            Category::Classical => "Classical",
            Category::Untimed => "Untimed",
        }
    }

    /// The category with this id (ASCII case and surrounding spaces
    /// ignored).
    ///
    /// ```
    /// use tabula_ratings::Category;
    /// assert_eq!(Category::parse("Blitz"), Ok(Category::Blitz));
    /// assert_eq!("untimed".parse(), Ok(Category::Untimed));
    /// assert!(Category::parse("bullet").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Category, CategoryError> {
        let t = text.trim();
        Category::ALL
            .into_iter()
            .find(|c| c.id().eq_ignore_ascii_case(t))
            .ok_or_else(|| CategoryError(t.chars().take(40).collect()))
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Category {
    type Err = CategoryError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Category::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fischer(base_s: u64, inc_s: u64) -> TimeControl {
        TimeControl::Fischer { base_ms: base_s * 1000, increment_ms: inc_s * 1000 }
    }

    #[test]
    fn boundaries() {
        assert_eq!(Category::of(&fischer(60, 0)), Category::Blitz);
        assert_eq!(Category::of(&fischer(479, 0)), Category::Blitz);
        assert_eq!(Category::of(&fischer(480, 0)), Category::Rapid);
        assert_eq!(Category::of(&fischer(180, 7)), Category::Blitz); // 3:00 + 4:40
        assert_eq!(Category::of(&fischer(180, 8)), Category::Rapid); // 3:00 + 5:20
        assert_eq!(Category::of(&fischer(1499, 0)), Category::Rapid);
        assert_eq!(Category::of(&fischer(1500, 0)), Category::Classical);
        assert_eq!(Category::of(&fischer(900, 15)), Category::Classical); // 15 + 10
        let shot = |s: u64| Category::of(&TimeControl::ShotClock { per_move_ms: s * 1000 });
        assert_eq!(shot(59), Category::Blitz);
        assert_eq!(shot(60), Category::Rapid);
        assert_eq!(shot(187), Category::Rapid);
        assert_eq!(shot(188), Category::Classical);
        assert_eq!(shot(86_400), Category::Classical);
    }

    #[test]
    fn cordots_modes() {
        for minutes in [20, 25, 30] {
            let tc = TimeControl::MatchClock { total_ms: minutes * 60_000, overtime_ms: 5 * 60_000 };
            assert_eq!(Category::of(&tc), Category::Rapid, "{minutes} min");
        }
        assert_eq!(Category::of(&TimeControl::ShotClock { per_move_ms: 45_000 }), Category::Blitz);
        // Through the parser players use.
        assert_eq!(Category::of(&TimeControl::parse("match:30").unwrap()), Category::Rapid);
        assert_eq!(Category::of(&TimeControl::parse("shot:45").unwrap()), Category::Blitz);
    }

    #[test]
    fn huge_clocks_do_not_overflow() {
        let tc = TimeControl::Fischer { base_ms: u64::MAX, increment_ms: u64::MAX };
        assert_eq!(Category::of(&tc), Category::Classical);
        assert_eq!(Category::of(&TimeControl::ShotClock { per_move_ms: u64::MAX }), Category::Classical);
    }

    #[test]
    fn ids_round_trip() {
        for c in Category::ALL {
            assert_eq!(Category::parse(c.id()), Ok(c));
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{}\"", c.id()));
            assert_eq!(serde_json::from_str::<Category>(&format!("\"{}\"", c.id())).unwrap(), c);
        }
        assert!(Category::parse("").is_err());
        assert!(Category::parse("bullet").unwrap_err().to_string().contains("bullet"));
    }
}
