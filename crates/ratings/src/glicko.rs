//! Glicko-2 ratings, computed by the `skillratings` crate, with the
//! bookkeeping a server needs: the number of rated games, the instant of
//! the last one, and deviation growth with inactivity.

use serde::{Deserialize, Serialize};
use skillratings::glicko2::{expected_score, glicko2, glicko2_rating_period, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;
use tabula_core::Player;

/// A new player's rating.
pub const DEFAULT_RATING: f64 = 1500.0;
/// A new player's deviation; also the most deviation can grow to.
pub const DEFAULT_DEVIATION: f64 = 350.0;
/// A new player's volatility.
pub const DEFAULT_VOLATILITY: f64 = 0.06;
/// A rating is provisional while its deviation is above this (lichess's
/// threshold): the system is not yet sure of it, so it is shown with a `?`
/// and kept off leaderboards.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;
/// The system constant τ, which limits how fast volatility changes. 0.5 is
/// the value of Glickman's worked example, inside his advised 0.3–1.2.
pub const TAU: f64 = 0.5;
/// The length of a Glicko-2 rating period, in milliseconds: about 4.67 days
/// (0.21436 periods a day, as on lichess). Each period without a rated game
/// adds `volatility²` to the squared deviation (on the Glicko-2 scale).
pub const RATING_PERIOD_MS: u64 = 403_060_272;

/// Glicko-2's scale factor between displayed ratings and its internal scale.
const SCALE: f64 = 173.7178;

/// One player's rating in one game and speed category.
///
/// Every field is a plain number, so a server can store it in columns of a
/// table and serialise it as JSON.
///
/// ```
/// use tabula_ratings::Rating;
/// let new = Rating::new();
/// assert_eq!((new.rating, new.deviation, new.volatility), (1500.0, 350.0, 0.06));
/// assert_eq!((new.games, new.last_rated_ms), (0, None));
/// let json = serde_json::to_string(&new).unwrap();
/// assert_eq!(serde_json::from_str::<Rating>(&json).unwrap(), new);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The rating itself (Glicko scale, 1500 for a new player).
    pub rating: f64,
    /// The rating deviation: how unsure the rating is (350 for a new player).
    pub deviation: f64,
    /// The volatility: how erratic the player's results are (0.06 at first).
    pub volatility: f64,
    /// How many rated games this rating has counted.
    pub games: u32,
    /// When the last rated game ended (milliseconds since the Unix epoch),
    /// or `None` before the first one.
    pub last_rated_ms: Option<u64>,
}

impl Default for Rating {
    fn default() -> Self {
        Rating::new()
    }
}

impl Rating {
    /// A new player's rating: 1500, deviation 350, volatility 0.06, no games.
    ///
    /// ```
    /// use tabula_ratings::Rating;
    /// assert!(Rating::new().is_provisional());
    /// assert_eq!(Rating::new(), Rating::default());
    /// ```
    pub const fn new() -> Rating {
        Rating {
            rating: DEFAULT_RATING,
            deviation: DEFAULT_DEVIATION,
            volatility: DEFAULT_VOLATILITY,
            games: 0,
            last_rated_ms: None,
        }
    }

    /// This rating as it stands at `now_ms`: the deviation grown by the
    /// rating periods ([`RATING_PERIOD_MS`]) elapsed since the last rated
    /// game, fractions included, up to [`DEFAULT_DEVIATION`]. Show and
    /// compare ratings through this, so an absent player's rating becomes
    /// provisional again in time.
    ///
    /// ```
    /// use tabula_ratings::{Rating, RATING_PERIOD_MS};
    /// let r = Rating { rating: 1800.0, deviation: 60.0, volatility: 0.06, games: 90, last_rated_ms: Some(0) };
    /// assert_eq!(r.at(0), r);
    /// let later = r.at(40 * RATING_PERIOD_MS); // about half a year
    /// assert_eq!(later.rating, 1800.0);
    /// assert_eq!(later.deviation.round(), 89.0); // sqrt(60² + 40 × (0.06 × 173.7)²)
    /// assert!(r.at(1000 * RATING_PERIOD_MS).deviation <= 350.0);
    /// ```
    pub fn at(&self, now_ms: u64) -> Rating {
        self.grown(self.idle_periods(now_ms))
    }

    /// Whether the rating is provisional: its deviation is above
    /// [`PROVISIONAL_DEVIATION`]. Ask it of [`Rating::at`] to count
    /// inactivity.
    ///
    /// ```
    /// use tabula_ratings::Rating;
    /// let settled = Rating { deviation: 80.0, ..Rating::new() };
    /// assert!(!settled.is_provisional());
    /// assert!(Rating::new().is_provisional());
    /// ```
    pub fn is_provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }

    /// The rating rounded to a whole number, as it is shown.
    ///
    /// ```
    /// use tabula_ratings::Rating;
    /// assert_eq!(Rating { rating: 1464.06, ..Rating::new() }.rounded(), 1464);
    /// ```
    pub fn rounded(&self) -> i32 {
        self.rating.round() as i32
    }

    /// The expected score (0 to 1) of this player against `other`.
    ///
    /// ```
    /// use tabula_ratings::Rating;
    /// let strong = Rating { rating: 1900.0, deviation: 60.0, ..Rating::new() };
    /// let weak = Rating { rating: 1500.0, deviation: 60.0, ..Rating::new() };
    /// assert!(strong.expected_score(&weak) > 0.9);
    /// assert!((strong.expected_score(&weak) + weak.expected_score(&strong) - 1.0).abs() < 1e-9);
    /// ```
    pub fn expected_score(&self, other: &Rating) -> f64 {
        expected_score(&self.glicko(), &other.glicko()).0
    }

    /// Rating periods since the last rated game (0 before the first).
    fn idle_periods(&self, now_ms: u64) -> f64 {
        match self.last_rated_ms {
            Some(last) => now_ms.saturating_sub(last) as f64 / RATING_PERIOD_MS as f64,
            None => 0.0,
        }
    }

    /// Glicko-2's step for periods without games, `φ² + periods·σ²`,
    /// capped at the deviation of a new player.
    fn grown(&self, periods: f64) -> Rating {
        if periods <= 0.0 || self.deviation >= DEFAULT_DEVIATION {
            return *self;
        }
        let phi = self.deviation / SCALE;
        let grown = (phi * phi + periods * self.volatility * self.volatility).sqrt() * SCALE;
        Rating { deviation: grown.min(DEFAULT_DEVIATION), ..*self }
    }

    /// The rating a game played at `now_ms` starts from: Glicko-2 closes a
    /// rating period with the game (skillratings' update widens the
    /// deviation by one period's volatility itself), so the inactivity
    /// before it counts all elapsed periods but that one.
    fn before_game(&self, now_ms: u64) -> Rating {
        self.grown((self.idle_periods(now_ms) - 1.0).max(0.0))
    }

    fn glicko(&self) -> Glicko2Rating {
        Glicko2Rating { rating: self.rating, deviation: self.deviation, volatility: self.volatility }
    }

    fn after(&self, new: Glicko2Rating, games: u32, now_ms: u64) -> Rating {
        Rating {
            rating: new.rating,
            deviation: new.deviation.min(DEFAULT_DEVIATION),
            volatility: new.volatility,
            games: self.games.saturating_add(games),
            last_rated_ms: Some(self.last_rated_ms.map_or(now_ms, |last| last.max(now_ms))),
        }
    }
}

/// A game's result for one player: what Glicko-2 scores as 1, ½ or 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameResult {
    /// The player won.
    Win,
    /// A draw.
    Draw,
    /// The player lost.
    Loss,
}

impl GameResult {
    /// The result for `me` of a game that `winner` won (`None`: a draw).
    ///
    /// ```
    /// use tabula_core::Player;
    /// use tabula_ratings::GameResult;
    /// assert_eq!(GameResult::for_player(Some(Player::First), Player::First), GameResult::Win);
    /// assert_eq!(GameResult::for_player(Some(Player::First), Player::Second), GameResult::Loss);
    /// assert_eq!(GameResult::for_player(None, Player::Second), GameResult::Draw);
    /// ```
    pub fn for_player(winner: Option<Player>, me: Player) -> GameResult {
        match winner {
            None => GameResult::Draw,
            Some(w) if w == me => GameResult::Win,
            Some(_) => GameResult::Loss,
        }
    }

    /// The same game seen by the opponent.
    ///
    /// ```
    /// use tabula_ratings::GameResult;
    /// assert_eq!(GameResult::Win.reversed(), GameResult::Loss);
    /// assert_eq!(GameResult::Draw.reversed(), GameResult::Draw);
    /// ```
    pub fn reversed(self) -> GameResult {
        match self {
            GameResult::Win => GameResult::Loss,
            GameResult::Draw => GameResult::Draw,
            GameResult::Loss => GameResult::Win,
        }
    }

    /// The score Glicko-2 counts: 1, 0.5 or 0.
    ///
    /// ```
    /// use tabula_ratings::GameResult;
    /// assert_eq!(GameResult::Draw.score(), 0.5);
    /// ```
    pub fn score(self) -> f64 {
        match self {
            GameResult::Win => 1.0,
            GameResult::Draw => 0.5,
            GameResult::Loss => 0.0,
        }
    }

    fn outcome(self) -> Outcomes {
        match self {
            GameResult::Win => Outcomes::WIN,
            GameResult::Draw => Outcomes::DRAW,
            GameResult::Loss => Outcomes::LOSS,
        }
    }
}

fn config() -> Glicko2Config {
    Glicko2Config { tau: TAU, ..Glicko2Config::new() }
}

/// Both players' ratings after a rated game between them that ended at
/// `now_ms`; `result` is `first`'s.
///
/// Each rating first grows with the player's inactivity since the last
/// rated game, then the game is rated as a Glicko-2 rating period of its
/// own (the way lichess rates every game at once), by skillratings'
/// `glicko2`. Both results count one more game and record `now_ms`.
///
/// ```
/// use tabula_ratings::{rate_game, GameResult, Rating};
/// let (a, b) = rate_game(&Rating::new(), &Rating::new(), GameResult::Win, 0);
/// assert_eq!((a.rounded(), b.rounded()), (1662, 1338));
/// assert_eq!(a.deviation.round(), 290.0);
/// assert_eq!(a.last_rated_ms, Some(0));
///
/// let (c, d) = rate_game(&a, &b, GameResult::Draw, 60_000);
/// assert!(c.rating < a.rating && d.rating > b.rating);
/// assert_eq!(c.games, 2);
/// ```
pub fn rate_game(first: &Rating, second: &Rating, result: GameResult, now_ms: u64) -> (Rating, Rating) {
    let (a, b) = (first.before_game(now_ms), second.before_game(now_ms));
    let (na, nb) = glicko2(&a.glicko(), &b.glicko(), &result.outcome(), &config());
    (a.after(na, 1, now_ms), b.after(nb, 1, now_ms))
}

/// `player`'s rating after a rating period holding all of `games` (each the
/// opponent's rating before the period and the player's result), ending at
/// `now_ms`: the classic Glicko-2 computation by skillratings'
/// `glicko2_rating_period`, for rating a batch of games at once (the
/// server rates each game by itself with [`rate_game`]). With no games the
/// rating is returned unchanged: inactivity is counted by [`Rating::at`].
///
/// ```
/// use tabula_ratings::{rate_period, GameResult, Rating};
/// let opponent = Rating { rating: 1600.0, deviation: 80.0, ..Rating::new() };
/// let after = rate_period(&Rating::new(), &[(opponent, GameResult::Win), (opponent, GameResult::Draw)], 0);
/// assert!(after.rating > 1600.0);
/// assert_eq!(after.games, 2);
/// assert_eq!(rate_period(&after, &[], 10), after);
/// ```
pub fn rate_period(player: &Rating, games: &[(Rating, GameResult)], now_ms: u64) -> Rating {
    if games.is_empty() {
        return *player;
    }
    let before = player.before_game(now_ms);
    let results: Vec<(Glicko2Rating, Outcomes)> = games.iter().map(|(o, r)| (o.glicko(), r.outcome())).collect();
    let new = glicko2_rating_period(&before.glicko(), &results, &config());
    before.after(new, games.len().try_into().unwrap_or(u32::MAX), now_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rating: f64, deviation: f64) -> Rating {
        Rating { rating, deviation, ..Rating::new() }
    }

    /// "Example of the Glicko-2 system" in Glickman's paper
    /// (glicko.net/glicko/glicko2.pdf): a 1500/200/0.06 player beats a
    /// 1400/30 player, then loses to 1550/100 and 1700/300, with τ = 0.5.
    /// The paper's results: r' = 1464.06, RD' = 151.52, σ' = 0.05999.
    #[test]
    fn glickman_worked_example() {
        let player = r(1500.0, 200.0);
        let games = [
            (r(1400.0, 30.0), GameResult::Win),
            (r(1550.0, 100.0), GameResult::Loss),
            (r(1700.0, 300.0), GameResult::Loss),
        ];
        let after = rate_period(&player, &games, 0);
        assert!((after.rating - 1464.06).abs() < 0.01, "rating {}", after.rating);
        assert!((after.deviation - 151.52).abs() < 0.01, "deviation {}", after.deviation);
        assert!((after.volatility - 0.05999).abs() < 0.000_01, "volatility {}", after.volatility);
        assert_eq!(after.games, 3);
        assert_eq!(after.last_rated_ms, Some(0));
    }

    /// The paper's intermediate quantities on the Glicko-2 scale:
    /// μ' = −0.2069, φ' = 0.8722.
    #[test]
    fn glickman_worked_example_on_the_glicko2_scale() {
        let games = [
            (r(1400.0, 30.0), GameResult::Win),
            (r(1550.0, 100.0), GameResult::Loss),
            (r(1700.0, 300.0), GameResult::Loss),
        ];
        let after = rate_period(&r(1500.0, 200.0), &games, 0);
        assert!(((after.rating - 1500.0) / SCALE - (-0.2069)).abs() < 0.0001);
        assert!((after.deviation / SCALE - 0.8722).abs() < 0.0001);
    }

    #[test]
    fn one_game_is_a_period_of_one_game() {
        let (a, b) = (r(1620.0, 80.0), r(1480.0, 150.0));
        for result in [GameResult::Win, GameResult::Draw, GameResult::Loss] {
            let (na, nb) = rate_game(&a, &b, result, 5);
            assert_eq!(na, rate_period(&a, &[(b, result)], 5));
            assert_eq!(nb, rate_period(&b, &[(a, result.reversed())], 5));
        }
    }

    #[test]
    fn winner_gains_loser_loses_draw_moves_toward_each_other() {
        let (a, b) = (r(1700.0, 90.0), r(1500.0, 90.0));
        let (wa, lb) = rate_game(&a, &b, GameResult::Win, 0);
        assert!(wa.rating > a.rating && lb.rating < b.rating);
        let (da, db) = rate_game(&a, &b, GameResult::Draw, 0);
        assert!(da.rating < a.rating && db.rating > b.rating);
        let (la, wb) = rate_game(&a, &b, GameResult::Loss, 0);
        assert!(la.rating < da.rating && wb.rating > db.rating);
    }

    #[test]
    fn inactivity_grows_deviation_as_glicko2_says() {
        let settled = Rating { deviation: 50.0, volatility: 0.06, last_rated_ms: Some(1_000), ..Rating::new() };
        // One period: φ* = sqrt(φ² + σ²), by hand: 50/173.7178 = 0.287824,
        // sqrt(0.082843 + 0.0036) = 0.294012, × 173.7178 = 51.0749.
        let one = settled.at(1_000 + RATING_PERIOD_MS);
        assert!((one.deviation - 51.0749).abs() < 0.001, "{}", one.deviation);
        // Monotone in time, capped at a new player's deviation.
        let mut last = settled.deviation;
        for periods in [2, 10, 100, 1_000, 100_000] {
            let d = settled.at(1_000 + periods * RATING_PERIOD_MS).deviation;
            assert!(d >= last && d <= DEFAULT_DEVIATION);
            last = d;
        }
        assert_eq!(last, DEFAULT_DEVIATION);
        // A clock before the last game changes nothing.
        assert_eq!(settled.at(0), settled);
    }

    #[test]
    fn a_long_absence_counts_in_the_next_game() {
        let a = Rating { deviation: 60.0, last_rated_ms: Some(0), games: 50, ..Rating::new() };
        let b = Rating { deviation: 60.0, last_rated_ms: Some(0), games: 50, ..Rating::new() };
        let soon = rate_game(&a, &b, GameResult::Win, 60_000).0;
        let late = rate_game(&a, &b, GameResult::Win, 200 * RATING_PERIOD_MS).0;
        assert!(late.rating - a.rating > soon.rating - a.rating);
        assert!(late.deviation > soon.deviation);
        assert_eq!(late.last_rated_ms, Some(200 * RATING_PERIOD_MS));
        assert_eq!(late.games, 51);
    }

    #[test]
    fn provisional_threshold() {
        assert!(r(1500.0, 110.5).is_provisional());
        assert!(!r(1500.0, 110.0).is_provisional());
        // An established player who stops playing becomes provisional again.
        let settled = Rating { deviation: 70.0, last_rated_ms: Some(0), ..Rating::new() };
        assert!(!settled.at(RATING_PERIOD_MS).is_provisional());
        assert!(settled.at(2_000 * RATING_PERIOD_MS).is_provisional());
    }
}
