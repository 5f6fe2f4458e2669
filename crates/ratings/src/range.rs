//! The rating range a seek may state: only players rated inside it may
//! join.

use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;
use std::str::FromStr;

/// An optional lower and upper bound on an opponent's (rounded) rating,
/// both inclusive.
///
/// Written `1400-1800`, `1400-` (no upper bound), `-1800` (no lower bound),
/// or `any` / an empty string (no bounds). It serialises as
/// `{"min":1400,"max":1800}` (a missing bound is `null`) and deserialises
/// from that, from a pair `[1400, 1800]` or from the written form.
///
/// ```
/// use tabula_ratings::RatingRange;
/// let range: RatingRange = "1400-1800".parse().unwrap();
/// assert!(range.admits(1400.0) && range.admits(1799.6) && !range.admits(1850.0));
/// assert_eq!(range.to_string(), "1400-1800");
/// let json = serde_json::to_string(&range).unwrap();
/// assert_eq!(json, r#"{"min":1400,"max":1800}"#);
/// assert_eq!(serde_json::from_str::<RatingRange>(&json).unwrap(), range);
/// assert_eq!(serde_json::from_str::<RatingRange>(r#""1400-1800""#).unwrap(), range);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct RatingRange {
    /// The lowest rating admitted, if any.
    pub min: Option<u32>,
    /// The highest rating admitted, if any.
    pub max: Option<u32>,
}

/// The highest bound a range may name; no Glicko rating comes near it.
const MAX_BOUND: u32 = 10_000;

/// A rating range that could not be read or makes no sense.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RatingRangeError {
    /// Not of the form `MIN-MAX`, `MIN-`, `-MAX` or `any`.
    #[error("'{0}' is not a rating range (write e.g. 1400-1800, 1400- or -1800)")]
    Malformed(String),
    /// A bound that is not a whole number from 0 to 10000.
    #[error("'{0}' is not a rating from 0 to 10000")]
    BadBound(String),
    /// The lower bound is above the upper.
    #[error("the rating range {0}-{1} is empty: its lower bound is above its upper bound")]
    Empty(u32, u32),
}

impl RatingRange {
    /// The range with no bounds, which admits everyone.
    ///
    /// ```
    /// use tabula_ratings::RatingRange;
    /// assert!(RatingRange::ANY.admits(0.0) && RatingRange::ANY.admits(3000.0));
    /// assert!(RatingRange::ANY.is_any());
    /// ```
    pub const ANY: RatingRange = RatingRange { min: None, max: None };

    /// A range with these bounds, or an error if `min > max` or a bound is
    /// above 10000.
    ///
    /// ```
    /// use tabula_ratings::RatingRange;
    /// assert!(RatingRange::new(Some(1400), Some(1800)).is_ok());
    /// assert!(RatingRange::new(Some(1900), Some(1800)).is_err());
    /// ```
    pub fn new(min: Option<u32>, max: Option<u32>) -> Result<RatingRange, RatingRangeError> {
        for bound in [min, max].into_iter().flatten() {
            if bound > MAX_BOUND {
                return Err(RatingRangeError::BadBound(bound.to_string()));
            }
        }
        if let (Some(lo), Some(hi)) = (min, max) {
            if lo > hi {
                return Err(RatingRangeError::Empty(lo, hi));
            }
        }
        Ok(RatingRange { min, max })
    }

    /// Whether this range has no bounds.
    ///
    /// ```
    /// use tabula_ratings::RatingRange;
    /// assert!(!RatingRange::parse("-1800").unwrap().is_any());
    /// ```
    pub fn is_any(&self) -> bool {
        self.min.is_none() && self.max.is_none()
    }

    /// Whether a player with this rating may join: the rating, rounded as it
    /// is shown, lies within the bounds (inclusive).
    ///
    /// ```
    /// use tabula_ratings::RatingRange;
    /// let r = RatingRange::parse("1500-").unwrap();
    /// assert!(r.admits(1499.5) && !r.admits(1499.4));
    /// ```
    pub fn admits(&self, rating: f64) -> bool {
        let shown = rating.round();
        self.min.is_none_or(|lo| shown >= f64::from(lo)) && self.max.is_none_or(|hi| shown <= f64::from(hi))
    }

    /// Reads `MIN-MAX`, `MIN-`, `-MAX`, or `any` / an empty string for no
    /// bounds; spaces around the parts are ignored.
    ///
    /// ```
    /// use tabula_ratings::RatingRange;
    /// assert_eq!(RatingRange::parse(" 1400 - 1800 ").unwrap(), RatingRange::new(Some(1400), Some(1800)).unwrap());
    /// assert_eq!(RatingRange::parse("-1800").unwrap().min, None);
    /// assert_eq!(RatingRange::parse("any").unwrap(), RatingRange::ANY);
    /// assert!(RatingRange::parse("1400").is_err());
    /// assert!(RatingRange::parse("1800-1400").is_err());
    /// assert!(RatingRange::parse("abc-1400").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<RatingRange, RatingRangeError> {
        let t = text.trim();
        if t.is_empty() || t.eq_ignore_ascii_case("any") {
            return Ok(RatingRange::ANY);
        }
        let excerpt = || t.chars().take(40).collect::<String>();
        let (lo, hi) = t.split_once('-').ok_or_else(|| RatingRangeError::Malformed(excerpt()))?;
        let bound = |s: &str| -> Result<Option<u32>, RatingRangeError> {
            let s = s.trim();
            if s.is_empty() {
                return Ok(None);
            }
            match s.parse::<u32>() {
                Ok(v) if v <= MAX_BOUND && s.bytes().all(|b| b.is_ascii_digit()) => Ok(Some(v)),
                _ => Err(RatingRangeError::BadBound(s.chars().take(40).collect())),
            }
        };
        RatingRange::new(bound(lo)?, bound(hi)?)
    }
}

impl fmt::Display for RatingRange {
    /// The written form: `1400-1800`, `1400-`, `-1800` or `any`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.min, self.max) {
            (None, None) => f.write_str("any"),
            (lo, hi) => {
                if let Some(lo) = lo {
                    write!(f, "{lo}")?;
                }
                f.write_str("-")?;
                if let Some(hi) = hi {
                    write!(f, "{hi}")?;
                }
                Ok(())
            }
        }
    }
}

impl FromStr for RatingRange {
    type Err = RatingRangeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RatingRange::parse(s)
    }
}

impl<'de> Deserialize<'de> for RatingRange {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Written(String),
            Pair([Option<u32>; 2]),
            Bounds {
                #[serde(default)]
                min: Option<u32>,
                #[serde(default)]
                max: Option<u32>,
            },
        }
        let range = match Form::deserialize(deserializer)? {
            Form::Written(text) => RatingRange::parse(&text),
            Form::Pair([min, max]) | Form::Bounds { min, max } => RatingRange::new(min, max),
        };
        range.map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn written_forms_round_trip() {
        for text in ["1400-1800", "1400-", "-1800", "any", "0-0", "10000-10000"] {
            assert_eq!(RatingRange::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(RatingRange::parse("").unwrap(), RatingRange::ANY);
    }

    #[test]
    fn bad_ranges_say_what_is_wrong() {
        assert!(matches!(RatingRange::parse("1400"), Err(RatingRangeError::Malformed(_))));
        assert!(matches!(RatingRange::parse("+1400-1800"), Err(RatingRangeError::BadBound(_))));
        assert!(matches!(RatingRange::parse("1400-18000"), Err(RatingRangeError::BadBound(_))));
        assert!(matches!(RatingRange::parse("1400-1800-2000"), Err(RatingRangeError::BadBound(_))));
        assert_eq!(RatingRange::parse("1800-1400"), Err(RatingRangeError::Empty(1800, 1400)));
        let e = serde_json::from_str::<RatingRange>(r#"{"min":1900,"max":1800}"#).unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
        assert!(serde_json::from_str::<RatingRange>(r#""nonsense""#).is_err());
        assert_eq!(serde_json::from_str::<RatingRange>("{}").unwrap(), RatingRange::ANY);
        assert_eq!(serde_json::from_str::<RatingRange>("[1400, null]").unwrap(), RatingRange::parse("1400-").unwrap());
        assert!(serde_json::from_str::<RatingRange>("[1800, 1400]").is_err());
    }

    proptest! {
        #[test]
        fn admits_exactly_the_bounds(lo in proptest::option::of(0u32..4000), hi in proptest::option::of(0u32..4000), r in 0.0f64..4000.0) {
            if let Ok(range) = RatingRange::new(lo, hi) {
                let shown = r.round() as u32;
                let inside = lo.is_none_or(|l| shown >= l) && hi.is_none_or(|h| shown <= h);
                prop_assert_eq!(range.admits(r), inside);
                prop_assert_eq!(RatingRange::parse(&range.to_string()).unwrap(), range);
            }
        }
    }
}
