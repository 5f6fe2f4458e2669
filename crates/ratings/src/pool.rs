//! Quick pairing: the players waiting in one pool (one game, options and
//! clock) are paired by rating, and the gap a player accepts widens the
//! longer they wait.
//!
//! The server calls [`pair`] with everyone waiting, on every join and every
//! few seconds, and starts a game for each pair returned. It is pure and
//! deterministic: the same entries in the same order give the same pairs.
//!
//! ```
//! use tabula_ratings::pool::{pair, Waiting};
//! let pool = [
//!     Waiting::new("ann", 1500.0, 60.0, 0),
//!     Waiting::new("bob", 2100.0, 60.0, 0),
//!     Waiting::new("cid", 1540.0, 60.0, 0),
//! ];
//! assert_eq!(pair(&pool), vec![("ann", "cid")]);
//! // After a minute and a half bob's wait has widened the gap ann accepts.
//! let pool = [Waiting::new("ann", 1500.0, 60.0, 90_000), Waiting::new("bob", 2100.0, 60.0, 90_000)];
//! assert_eq!(pair(&pool), vec![("ann", "bob")]);
//! ```

use crate::RatingRange;

/// The rating gap every player accepts at once.
pub const BASE_GAP: f64 = 100.0;
/// How much of a player's rating deviation is added to the gap they
/// accept: an unsure rating may be far from the truth anyway.
pub const DEVIATION_SHARE: f64 = 0.5;
/// How much the accepted gap widens per second of waiting, without limit,
/// so two players who can meet (their ranges allow it) always meet in the
/// end: 10 rating points a second, 600 a minute.
pub const GAP_PER_SECOND: f64 = 10.0;

/// A player waiting in a pool.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting<Id> {
    /// Who is waiting (a user or connection id); never paired with an equal id.
    pub id: Id,
    /// The player's rating in the pool's game and category.
    pub rating: f64,
    /// The rating's deviation.
    pub deviation: f64,
    /// How long the player has waited, in milliseconds.
    pub waited_ms: u64,
    /// The ratings the player accepts as opponents, if they set a range.
    pub range: Option<RatingRange>,
}

impl<Id> Waiting<Id> {
    /// A waiting player without a rating range.
    ///
    /// ```
    /// use tabula_ratings::pool::Waiting;
    /// let w = Waiting::new(7u64, 1500.0, 350.0, 0);
    /// assert_eq!(w.range, None);
    /// ```
    pub fn new(id: Id, rating: f64, deviation: f64, waited_ms: u64) -> Waiting<Id> {
        Waiting { id, rating, deviation, waited_ms, range: None }
    }

    /// The same player accepting only opponents in `range`.
    ///
    /// ```
    /// use tabula_ratings::{pool::Waiting, RatingRange};
    /// let w = Waiting::new("ann", 1500.0, 80.0, 0).with_range("1400-1600".parse().unwrap());
    /// assert!(w.range.is_some());
    /// ```
    pub fn with_range(self, range: RatingRange) -> Waiting<Id> {
        Waiting { range: Some(range), ..self }
    }

    /// The largest rating gap this player accepts now:
    /// `BASE_GAP + DEVIATION_SHARE × deviation + GAP_PER_SECOND × seconds waited`.
    ///
    /// ```
    /// use tabula_ratings::pool::Waiting;
    /// assert_eq!(Waiting::new((), 1500.0, 60.0, 0).max_gap(), 130.0);
    /// assert_eq!(Waiting::new((), 1500.0, 60.0, 30_000).max_gap(), 430.0);
    /// assert_eq!(Waiting::new((), 1500.0, 350.0, 0).max_gap(), 275.0);
    /// ```
    pub fn max_gap(&self) -> f64 {
        BASE_GAP + DEVIATION_SHARE * self.deviation + GAP_PER_SECOND * (self.waited_ms as f64 / 1000.0)
    }

    /// Whether these two may be paired now: their rating gap is within what
    /// both accept, and each one's range (if any) admits the other's rating.
    ///
    /// ```
    /// use tabula_ratings::pool::Waiting;
    /// let ann = Waiting::new("ann", 1500.0, 60.0, 0);
    /// let bob = Waiting::new("bob", 1620.0, 60.0, 0);
    /// assert!(ann.accepts(&bob));
    /// let picky = Waiting::new("bob", 1620.0, 60.0, 0).with_range("1550-".parse().unwrap());
    /// assert!(!ann.accepts(&picky));
    /// ```
    pub fn accepts(&self, other: &Waiting<Id>) -> bool {
        let gap = (self.rating - other.rating).abs();
        gap <= self.max_gap()
            && gap <= other.max_gap()
            && self.range.is_none_or(|r| r.admits(other.rating))
            && other.range.is_none_or(|r| r.admits(self.rating))
    }
}

/// The pairs to start now, by id, the first of each pair the one who waited
/// longer.
///
/// Players are served longest wait first (ties: earlier in `waiting`); each
/// takes, among the players not yet paired who accept them and whom they
/// accept ([`Waiting::accepts`]), the one closest in rating (ties: longer
/// wait, then earlier in `waiting`). Nobody is paired twice, nobody is
/// paired with an equal id, and no two players left unpaired accept each
/// other.
///
/// ```
/// use tabula_ratings::pool::{pair, Waiting};
/// let pool = [
///     Waiting::new(1, 1500.0, 60.0, 5_000),
///     Waiting::new(2, 1700.0, 60.0, 0),
///     Waiting::new(3, 1560.0, 60.0, 0),
///     Waiting::new(4, 1690.0, 60.0, 0),
/// ];
/// assert_eq!(pair(&pool), vec![(1, 3), (2, 4)]);
/// ```
pub fn pair<Id: Clone + PartialEq>(waiting: &[Waiting<Id>]) -> Vec<(Id, Id)> {
    let mut order: Vec<usize> = (0..waiting.len()).collect();
    order.sort_by(|&a, &b| waiting[b].waited_ms.cmp(&waiting[a].waited_ms).then(a.cmp(&b)));
    let mut taken = vec![false; waiting.len()];
    let mut pairs: Vec<(Id, Id)> = Vec::new();
    let already_paired = |pairs: &Vec<(Id, Id)>, id: &Id| pairs.iter().any(|(a, b)| a == id || b == id);
    for &i in &order {
        if taken[i] || already_paired(&pairs, &waiting[i].id) {
            continue;
        }
        let me = &waiting[i];
        let mut best: Option<(f64, usize)> = None;
        for &j in &order {
            let them = &waiting[j];
            if j == i || taken[j] || them.id == me.id || already_paired(&pairs, &them.id) || !me.accepts(them) {
                continue;
            }
            let gap = (me.rating - them.rating).abs();
            // `order` runs longest wait first, so the first of equal gaps wins.
            if best.is_none_or(|(g, _)| gap < g) {
                best = Some((gap, j));
            }
        }
        if let Some((_, j)) = best {
            taken[i] = true;
            taken[j] = true;
            pairs.push((me.id.clone(), waiting[j].id.clone()));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn entry() -> impl Strategy<Value = Waiting<u8>> {
        (
            0u8..40,
            800.0f64..2600.0,
            45.0f64..350.0,
            0u64..120_000,
            proptest::option::of((proptest::option::of(800u32..2600), proptest::option::of(800u32..2600))),
        )
            .prop_map(|(id, rating, deviation, waited_ms, range)| Waiting {
                id,
                rating,
                deviation,
                waited_ms,
                range: range.and_then(|(lo, hi)| RatingRange::new(lo, hi).ok()),
            })
    }

    proptest! {
        #[test]
        fn nobody_twice_and_every_pair_acceptable(pool in proptest::collection::vec(entry(), 0..30)) {
            let pairs = pair(&pool);
            let mut seen = Vec::new();
            for (a, b) in &pairs {
                prop_assert!(a != b);
                prop_assert!(!seen.contains(a) && !seen.contains(b), "paired twice: {:?}", pairs);
                seen.push(*a);
                seen.push(*b);
                // Some entry for each id accepts the other (ids may repeat in
                // the input; the matcher pairs entries).
                let ok = pool.iter().filter(|x| x.id == *a).any(|x| {
                    pool.iter().filter(|y| y.id == *b).any(|y| x.accepts(y)
                        && x.range.is_none_or(|r| r.admits(y.rating))
                        && y.range.is_none_or(|r| r.admits(x.rating)))
                });
                prop_assert!(ok, "pair {:?}-{:?} not acceptable", a, b);
            }
        }

        #[test]
        fn nobody_left_who_could_have_played(pool in proptest::collection::vec(entry(), 0..30)) {
            let pairs = pair(&pool);
            let paired = |id: &u8| pairs.iter().any(|(a, b)| a == id || b == id);
            let left: Vec<_> = pool.iter().filter(|w| !paired(&w.id)).collect();
            for x in &left {
                for y in &left {
                    prop_assert!(x.id == y.id || !x.accepts(y), "{:?} and {:?} left unpaired", x, y);
                }
            }
        }

        #[test]
        fn deterministic(pool in proptest::collection::vec(entry(), 0..30)) {
            prop_assert_eq!(pair(&pool), pair(&pool.clone()));
        }

        #[test]
        fn two_alone_meet_once_they_have_waited_long_enough(mut a in entry(), mut b in entry()) {
            a.id = 1;
            b.id = 2;
            let ranges_allow = a.range.is_none_or(|r| r.admits(b.rating)) && b.range.is_none_or(|r| r.admits(a.rating));
            // Enough for any gap between 800 and 2600: 1800 points at 10 a second.
            a.waited_ms += 180_000;
            b.waited_ms += 180_000;
            let pairs = pair(&[a.clone(), b.clone()]);
            if ranges_allow {
                let longer_first = if b.waited_ms > a.waited_ms { (2, 1) } else { (1, 2) };
                prop_assert_eq!(pairs, vec![longer_first]);
            } else {
                prop_assert!(pairs.is_empty());
            }
        }
    }

    #[test]
    fn prefers_the_closest_rating() {
        let pool = [
            Waiting::new("a", 1500.0, 60.0, 10_000),
            Waiting::new("far", 1700.0, 60.0, 10_000),
            Waiting::new("near", 1520.0, 60.0, 0),
        ];
        assert_eq!(pair(&pool), vec![("a", "near")]);
    }

    #[test]
    fn the_gap_widens_with_waiting() {
        let at = |ms| pair(&[Waiting::new("a", 1500.0, 60.0, ms), Waiting::new("b", 1900.0, 60.0, ms)]);
        assert!(at(0).is_empty());
        assert!(at(26_000).is_empty()); // 130 + 260 = 390 < 400
        assert_eq!(at(27_000), vec![("a", "b")]); // 400
    }

    #[test]
    fn equal_ids_never_meet() {
        let pool = [Waiting::new(5, 1500.0, 60.0, 0), Waiting::new(5, 1500.0, 60.0, 0)];
        assert!(pair(&pool).is_empty());
    }

    #[test]
    fn unusable_numbers_pair_with_nobody() {
        let pool = [Waiting::new(1, f64::NAN, 60.0, 0), Waiting::new(2, 1500.0, 60.0, 0)];
        assert!(pair(&pool).is_empty());
    }
}
