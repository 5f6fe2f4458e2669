//! The Dots AI: MCTS with RAVE ([`tabula_ai::Mcts`]) on a focused view of
//! the game, with playouts that suit Dots.
//!
//! - RAVE (all moves as first) shares what a playout learns about a point
//!   with every node where that point could be played: in Dots, as in Go, a
//!   point is good or bad largely whenever it is played. It beat the same
//!   search without it 82–90% of the time at equal time.
//! - The tree only considers points within two steps (Chebyshev distance)
//!   of a dot, outside both players' empty bases: elsewhere a dot does
//!   nothing, and inside an enemy base it is captured at once (unless it
//!   captures, which the focus gives up for a far narrower tree). When no
//!   such point is left, every legal point is a candidate.
//! - Playouts prefer points next to a dot and avoid pointless self-captures
//!   and fills of own bases, then stop after a fixed number of plies and
//!   value the position by the score difference (a logistic curve), since
//!   random play to the end of a 39x32 board says little.

use crate::options::DotsOptions;
use crate::rules::{Dots, Point};
use rand::Rng as _;
use std::time::Duration;
use tabula_ai::levels::PLAIN_UCT_FORMS;
use tabula_ai::mcts::terminal_value;
use tabula_ai::{Mcts, MctsConfig, Parallelism, Policy, RandomAgent};
use tabula_core::{Agent, Game, LevelSpec, NotationError, Player, Status, ThinkContext};

/// The level used when none is named.
pub const DEFAULT_LEVEL: &str = "medium";

/// (id, thinking time in ms). `easy` searches without RAVE
/// ([`Search::uct`]); the others as [`Search::level`] says. Each rung beat
/// the one below in a 20x20 match (docs/rules/dots.md, "The ladder"):
/// `medium` beat `easy` 77.5%, `hard` beat `medium` 71.2% at ten times
/// its time and `expert` beat `hard` 75.0% at about eight times.
const LEVELS: &[(&str, u64)] = &[("easy", 150), ("medium", 30), ("hard", 300), ("expert", 2_500)];

/// The plies a level's playout runs before the score values it. Under RAVE
/// 100 beat 60 by 77.5% to 50% against oppai-rs on 20x20 and 8-4 head to
/// head on 39x32; 150 was no better than 100 (docs/rules/dots.md).
pub const LEVEL_CUTOFF: u32 = 100;

/// How level `id` searches: `easy` is the search before RAVE, which even
/// the RAVE search at a fifth of its time beats; the others are the RAVE
/// search at their times.
///
/// ```
/// use tabula_dots::ai::level_search;
/// assert_eq!(level_search("easy").unwrap().rave, None);
/// assert!(level_search("medium").unwrap().rave.is_some());
/// assert_eq!(level_search("godlike"), None);
/// ```
pub fn level_search(id: &str) -> Option<Search> {
    let &(id, ms) = LEVELS.iter().find(|(level, _)| *level == id)?;
    let time = Duration::from_millis(ms);
    Some(if id == "easy" { Search::uct(time) } else { Search::level(time, LEVEL_CUTOFF) })
}

/// The levels' ratings (random = 0, rounded to tens): the 20x20 matches
/// between neighbouring rungs added up from `random`, as the Cumisitha
/// ladder is (docs/rules/dots.md has the commands and intervals). `easy`
/// won every game against `random`, so that step is BayesElo's estimate
/// with two virtual draws. Measure again when a level changes.
const LEVEL_ELO: [(&str, i32); 5] = [("random", 0), ("easy", 530), ("medium", 740), ("hard", 900), ("expert", 1130)];

/// The levels, weakest first, with their measured ratings.
pub fn levels() -> Vec<LevelSpec> {
    let mut v = vec![LevelSpec::new("random", "uniformly random legal dots")];
    for &(id, _) in LEVELS {
        let search = level_search(id).expect("a level");
        let kind = if search.rave.is_some() { "MCTS with RAVE" } else { "MCTS (UCT, without RAVE)" };
        v.push(LevelSpec::new(
            id,
            format!(
                "{kind} near the dots, playouts cut at {} plies and valued by score, {:.2} s per move",
                search.cutoff,
                search.time.as_secs_f64()
            ),
        ));
    }
    LevelSpec::rated(v, &LEVEL_ELO)
}

/// The specs [`new_agent`] takes besides the levels: the plain-UCT
/// baselines, the levels' search at any time a move (see
/// [`Search::from_spec`]) and the search before RAVE.
pub const LEVEL_FORMS: &[&str] = &[
    PLAIN_UCT_FORMS[0],
    PLAIN_UCT_FORMS[1],
    "rave:MS[:K[:C[:CUT[:E[:TREES]]]]] (K > 0, C >= 0, CUT 1-1000, E 1-10000, TREES shared|separate)",
    "mcts:MS",
];

/// An agent for a level (or a plain-UCT baseline); `None` for an unknown level.
pub fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Dots>>> {
    if level == "random" {
        return Some(Box::new(RandomAgent::<Dots>::new(seed)));
    }
    // The plain-UCT baselines (`uct:MS`, `uct-iter:N`) for comparisons.
    if let Some(agent) = tabula_ai::levels::plain_uct::<Dots>(level, seed) {
        return Some(agent);
    }
    if let Some(search) = Search::from_spec(level) {
        return Some(Box::new(DotsAgent::with_search(level, search, seed)));
    }
    Some(Box::new(DotsAgent::with_search(level, level_search(level)?, seed)))
}

/// The game as the tree search sees it: the same position, with legal
/// moves narrowed to points near the dots. `near` marks points within two
/// steps of a dot and is kept up to date by `play`.
#[derive(Debug)]
pub struct Focus {
    /// The position.
    pub dots: Dots,
    near: Vec<bool>,
}

impl Clone for Focus {
    fn clone(&self) -> Self {
        Focus { dots: self.dots.clone(), near: self.near.clone() }
    }
    fn clone_from(&mut self, src: &Self) {
        self.dots.clone_from(&src.dots);
        self.near.clone_from(&src.near);
    }
}

impl Focus {
    /// The focused view of a position.
    pub fn from_dots(dots: &Dots) -> Focus {
        let mut f = Focus { dots: dots.clone(), near: vec![false; dots.point_index_limit()] };
        let with_dots: Vec<Point> = dots.points().filter(|&p| dots.dot_at(p).is_some()).collect();
        for p in with_dots {
            f.mark_near(p);
        }
        f
    }

    fn mark_near(&mut self, p: Point) {
        let d = &self.dots;
        let (x, y) = d.xy(p);
        for yy in y.saturating_sub(2).max(1)..=(y + 2).min(d.height()) {
            for xx in x.saturating_sub(2).max(1)..=(x + 2).min(d.width()) {
                let q = d.point(xx, yy).expect("on the board");
                self.near[q.0 as usize] = true;
            }
        }
    }

    /// A point worth considering: not inside an empty base of either side.
    #[inline]
    fn sensible(d: &Dots, c: usize) -> bool {
        let p = Point(c as u16);
        !d.enclosed_by(p, Player::First) && !d.enclosed_by(p, Player::Second)
    }
}

impl Game for Focus {
    type Move = Point;
    type Options = DotsOptions;
    const ID: &'static str = "dots";
    const NAME: &'static str = "Dots";
    const PLAYERS: [&'static str; 2] = Dots::PLAYERS;

    fn new(options: &DotsOptions) -> Self {
        Focus::from_dots(&Dots::new(options))
    }
    fn from_position(position: &str, options: &DotsOptions) -> Result<Self, NotationError> {
        Dots::from_position(position, options).map(|d| Focus::from_dots(&d))
    }
    fn position(&self) -> Option<String> {
        None
    }
    fn options(&self) -> &DotsOptions {
        self.dots.options()
    }
    fn to_move(&self) -> Player {
        self.dots.to_move()
    }
    fn legal_moves(&self, out: &mut Vec<Point>) {
        out.clear();
        if self.dots.status().is_over() {
            return;
        }
        let d = &self.dots;
        out.extend(
            d.playable().iter().filter(|&&c| self.near[c as usize] && Self::sensible(d, c as usize)).map(|&c| Point(c)),
        );
        if out.is_empty() {
            out.extend(d.playable().iter().map(|&c| Point(c)));
        }
    }
    fn play(&mut self, mv: Point) {
        self.dots.play(mv);
        self.mark_near(mv);
    }
    fn status(&self) -> Status {
        self.dots.status()
    }
    fn plies(&self) -> u32 {
        self.dots.plies()
    }
    fn hash(&self) -> u64 {
        self.dots.hash()
    }
    fn hash_from_scratch(&self) -> u64 {
        self.dots.hash_from_scratch()
    }
    fn parse_move(&self, text: &str) -> Result<Point, NotationError> {
        self.dots.parse_move(text)
    }
    fn format_move(&self, mv: Point) -> String {
        self.dots.format_move(mv)
    }
    fn score(&self) -> Option<[i32; 2]> {
        Some(self.dots.scores())
    }
}

/// Playouts for Dots: near-dot moves without pointless self-captures, cut
/// off after `cutoff` plies and valued by the score difference.
#[derive(Clone)]
pub struct DotsPolicy {
    /// Plies a playout runs before the score values it.
    pub cutoff: u32,
    /// Points of score difference that move the value from 0.5 to ~0.73.
    pub scale: f64,
    /// The last playout's dots, for RAVE.
    played: Vec<(Player, Point)>,
}

impl DotsPolicy {
    /// Playouts cut at `cutoff` plies, valued with a scale of 2 points.
    pub fn new(cutoff: u32) -> Self {
        DotsPolicy { cutoff, scale: 2.0, played: Vec::with_capacity(cutoff as usize) }
    }

    /// Blue's value of a position by its score.
    pub fn evaluate(&self, d: &Dots) -> f64 {
        match d.status() {
            Status::Over(o) => o.score_for(Player::First),
            Status::Ongoing => {
                let s = d.scores();
                1.0 / (1.0 + (-((s[0] - s[1]) as f64) / self.scale).exp())
            }
        }
    }

    /// A random point that touches a dot and lies in no empty base; after a
    /// few misses any legal point.
    #[inline]
    fn pick(d: &Dots, rng: &mut tabula_ai::Rng) -> usize {
        let list = d.playable();
        let mut c = list[rng.random_range(0..list.len())] as usize;
        for _ in 0..8 {
            if Focus::sensible(d, c) && d.touches_dot(Point(c as u16)) {
                return c;
            }
            c = list[rng.random_range(0..list.len())] as usize;
        }
        c
    }
}

impl Policy<Focus> for DotsPolicy {
    fn playout(&mut self, state: &mut Focus, rng: &mut tabula_ai::Rng) -> f64 {
        let d = &mut state.dots;
        self.played.clear();
        for _ in 0..self.cutoff {
            if d.status().is_over() || d.playable().is_empty() {
                return terminal_value(d);
            }
            let c = Self::pick(d, rng);
            self.played.push((d.to_move(), Point(c as u16)));
            d.play(Point(c as u16));
        }
        self.evaluate(d)
    }

    fn amaf_key(&self, mv: Point) -> Option<usize> {
        Some(mv.0 as usize)
    }

    fn playout_moves(&self) -> &[(Player, Point)] {
        &self.played
    }
}

/// MCTS on [`Focus`] with [`DotsPolicy`].
pub struct DotsAgent {
    mcts: Mcts<Focus, DotsPolicy>,
    name: String,
}

impl DotsAgent {
    /// An agent searching as the levels do, thinking `time` a move with
    /// playouts cut at `cutoff` plies.
    pub fn new(level: &str, time: Duration, cutoff: u32, seed: u64) -> Self {
        Self::with_search(level, Search::level(time, cutoff), seed)
    }

    /// An agent searching as `search` says.
    pub fn with_search(level: &str, search: Search, seed: u64) -> Self {
        let config = search.mcts_config(seed);
        let Search { time, cutoff, exploration, rave, .. } = search;
        let rave = rave.map_or(String::new(), |k| format!(", RAVE k={k}"));
        DotsAgent {
            mcts: Mcts::new(config, DotsPolicy::new(cutoff)),
            name: format!(
                "dots {level}: MCTS near the dots, cut-off {cutoff}, c={exploration}{rave}, {:.2} s",
                time.as_secs_f64()
            ),
        }
    }
}

/// How a [`DotsAgent`] searches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Search {
    /// Thinking time a move.
    pub time: Duration,
    /// Plies a playout runs before the score values it.
    pub cutoff: u32,
    /// The UCT exploration constant.
    pub exploration: f64,
    /// RAVE's equivalence parameter, or `None` for plain UCT.
    pub rave: Option<f64>,
    /// Visits a leaf takes before it grows children ([`MctsConfig::expand_after`]).
    pub expand_after: u32,
    /// How two or more threads share the search ([`MctsConfig::parallelism`]).
    pub parallelism: Parallelism,
}

/// RAVE's equivalence parameter for the levels: from 300 to 10,000 it
/// made no measurable difference (docs/rules/dots.md).
pub const LEVEL_RAVE: f64 = 1000.0;

/// Visits a leaf of the levels' search takes before it grows children.
/// Growing on the second visit filled the 2,000,000-node cap within a few
/// moves at 0.6 s (a Dots node has hundreds of children), so extra time
/// no longer grew the tree; waiting for 16 visits keeps a 1.2 s tree at
/// about a quarter of the cap and showed no measurable loss at equal time
/// (docs/rules/dots.md).
pub const LEVEL_EXPAND_AFTER: u32 = 16;

/// How the levels search given two or more threads (`tabula match
/// --threads`): a tree a thread. One shared tree makes the threads wait for
/// its lock, RAVE's update and the selection over wide Dots nodes being
/// much of an iteration: on 39x32 two threads ran 1.06-1.45x the iterations
/// of one, against 1.8-2.1x with a tree a thread. On 20x20 the two played
/// level head to head, 8-0-8 (docs/rules/dots.md).
pub const LEVEL_PARALLELISM: Parallelism = Parallelism::SeparateTrees;

impl Search {
    /// The levels' search: RAVE (equivalence [`LEVEL_RAVE`]) with no UCT
    /// exploration term, which the AMAF values make unneeded: with it
    /// (0.2 or more) RAVE gained little.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabula_dots::ai::Search;
    /// let s = Search::level(Duration::from_millis(600), 50);
    /// assert_eq!((s.rave, s.exploration), (Some(1000.0), 0.0));
    /// ```
    pub fn level(time: Duration, cutoff: u32) -> Search {
        Search {
            time,
            cutoff,
            exploration: 0.0,
            rave: Some(LEVEL_RAVE),
            expand_after: LEVEL_EXPAND_AFTER,
            parallelism: LEVEL_PARALLELISM,
        }
    }

    /// The tree search's settings for this search, its random choices
    /// seeded with `seed` (the playout cut-off belongs to [`DotsPolicy`]).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabula_dots::ai::{Search, LEVEL_EXPAND_AFTER};
    /// let c = Search::level(Duration::from_millis(600), 100).mcts_config(7);
    /// assert_eq!((c.time, c.seed, c.expand_after), (Some(Duration::from_millis(600)), 7, LEVEL_EXPAND_AFTER));
    /// ```
    pub fn mcts_config(&self, seed: u64) -> MctsConfig {
        MctsConfig {
            iterations: None,
            time: Some(self.time),
            exploration: self.exploration,
            seed,
            rave: self.rave,
            expand_after: self.expand_after,
            parallelism: self.parallelism,
            ..MctsConfig::default()
        }
    }

    /// The levels' search before RAVE (up to 2026-12-04): plain UCT with
    /// exploration 0.6, playouts cut at 60 plies. A baseline to measure
    /// against.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabula_dots::ai::Search;
    /// assert_eq!(Search::uct(Duration::from_millis(100)).rave, None);
    /// ```
    pub fn uct(time: Duration) -> Search {
        Search { time, cutoff: 60, exploration: 0.6, rave: None, expand_after: 1, parallelism: LEVEL_PARALLELISM }
    }

    /// A search from a match spec, for measuring changes at equal time:
    /// `mcts:MS` (the levels' search before RAVE, [`Search::uct`]) or
    /// `rave:MS[:K[:C[:CUT[:E[:TREES]]]]]` (RAVE with equivalence `K`,
    /// exploration `C`, playouts cut at `CUT` plies, leaves growing after
    /// `E` visits and, given several threads, one `shared` tree or a
    /// `separate` tree a thread; by default the levels' [`LEVEL_RAVE`], 0,
    /// [`LEVEL_CUTOFF`], [`LEVEL_EXPAND_AFTER`] and [`LEVEL_PARALLELISM`]).
    /// `None` when `spec` is neither or out of range.
    pub fn from_spec(spec: &str) -> Option<Search> {
        let mut parts = spec.split(':');
        let kind = parts.next()?;
        let ms = tabula_ai::levels::move_millis(parts.next()?)?;
        let time = Duration::from_millis(ms);
        let mut number = |default: f64| -> Option<f64> {
            match parts.next() {
                None => Some(default),
                Some(t) => t.parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0),
            }
        };
        let search = match kind {
            "mcts" => Search::uct(time),
            "rave" => {
                let k = number(LEVEL_RAVE).filter(|&k| k > 0.0)?;
                let exploration = number(0.0)?;
                let cutoff =
                    number(LEVEL_CUTOFF as f64).filter(|c| c.fract() == 0.0 && (1.0..=1000.0).contains(c))? as u32;
                let expand_after = number(LEVEL_EXPAND_AFTER as f64)
                    .filter(|e| e.fract() == 0.0 && (1.0..=10_000.0).contains(e))?
                    as u32;
                let parallelism = match parts.next() {
                    None => LEVEL_PARALLELISM,
                    Some("shared") => Parallelism::SharedTree,
                    Some("separate") => Parallelism::SeparateTrees,
                    Some(_) => return None,
                };
                Search { rave: Some(k), exploration, expand_after, parallelism, ..Search::level(time, cutoff) }
            }
            _ => return None,
        };
        parts.next().is_none().then_some(search)
    }
}

impl Agent<Dots> for DotsAgent {
    fn choose(&mut self, state: &Dots, ctx: &ThinkContext) -> Point {
        let focus = Focus::from_dots(state);
        let mut moves = Vec::new();
        focus.legal_moves(&mut moves);
        if moves.len() == 1 {
            return moves[0];
        }
        self.mcts.search(&focus, ctx)
    }
    fn describe(&self) -> String {
        self.name.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_has_its_measured_rating() {
        let levels = levels();
        tabula_core::conformance::check_level_ratings(&levels, &LEVEL_ELO).unwrap();
        // Weakest first: each level rates above the one before it.
        assert!(levels.windows(2).all(|w| w[0].elo < w[1].elo), "{levels:?}");
    }

    #[test]
    fn the_ladder_climbs_by_kind_then_by_time() {
        // `easy` is the only search without RAVE; above it each RAVE rung
        // thinks longer than the one below, with the same playouts, so its
        // measured step comes from time and not from the table's order.
        let searches: Vec<Search> = LEVELS.iter().map(|(id, _)| level_search(id).unwrap()).collect();
        assert_eq!(searches[0].rave, None);
        assert!(searches[1..].iter().all(|s| s.rave == Some(LEVEL_RAVE) && s.cutoff == LEVEL_CUTOFF));
        assert!(searches[1..].windows(2).all(|w| w[0].time < w[1].time), "{searches:?}");
    }

    #[test]
    fn focus_keeps_the_game_and_narrows_moves() {
        let start = Dots::new(&DotsOptions::default());
        let f = Focus::from_dots(&start);
        let mut near = Vec::new();
        f.legal_moves(&mut near);
        // The 6x6 square around the cross, less its four dots.
        assert_eq!(near.len(), 32);
        let check = tabula_core::conformance::check_random_game(&f, 3, 300);
        assert!(check.is_ok(), "{check:?}");
    }

    /// The levels' search (RAVE) and the plain UCT before it both take a
    /// free capture.
    #[test]
    fn the_ai_takes_a_free_capture() {
        let mut d = Dots::new(&DotsOptions { cross: false, ..DotsOptions::sized(12, 12) });
        for (who, s) in
            [(Player::Second, "6-6"), (Player::First, "6-7"), (Player::First, "7-6"), (Player::First, "6-5")]
        {
            let p = d.parse_move(s).unwrap();
            d.place_setup(who, p);
        }
        let levels = DotsAgent::new("test", Duration::from_millis(300), 40, 1);
        let uct = DotsAgent::with_search("test", Search::from_spec("mcts:300").unwrap(), 1);
        for mut agent in [levels, uct] {
            let mv = agent.choose(&d, &ThinkContext::default());
            assert_eq!(d.format_move(mv), "5-6", "{}", agent.describe());
        }
    }

    #[test]
    fn every_level_answers_quickly_under_a_deadline() {
        let d = Dots::new(&DotsOptions::default());
        for l in levels() {
            let mut a = new_agent(&l.id, 1).unwrap();
            let ctx = ThinkContext {
                deadline: Some(std::time::Instant::now() + Duration::from_millis(100)),
                ..ThinkContext::default()
            };
            let t = std::time::Instant::now();
            let mv = a.choose(&d, &ctx);
            assert!(d.is_playable(mv));
            assert!(t.elapsed() < Duration::from_millis(1000), "{} took {:?}", l.id, t.elapsed());
        }
        assert!(new_agent("grandmaster", 1).is_none());
        assert!(new_agent("uct:50", 1).is_some());
    }

    #[test]
    fn match_specs_parse_and_play() {
        assert_eq!(Search::from_spec("mcts:250"), Some(Search::uct(Duration::from_millis(250))));
        assert_eq!(Search::from_spec("rave:250"), Some(Search::level(Duration::from_millis(250), LEVEL_CUTOFF)));
        let rave = Search::from_spec("rave:100:500:0.1").unwrap();
        assert_eq!(rave.time, Duration::from_millis(100));
        assert_eq!((rave.rave, rave.exploration, rave.cutoff), (Some(500.0), 0.1, 100));
        assert_eq!(Search::from_spec("rave:100").unwrap().rave, Some(1000.0));
        assert_eq!(Search::from_spec("rave:100:1000:0:40").unwrap().cutoff, 40);
        assert_eq!(Search::from_spec("rave:100").unwrap().expand_after, LEVEL_EXPAND_AFTER);
        assert_eq!(Search::from_spec("rave:100:1000:0:100:16").unwrap().expand_after, 16);
        assert_eq!(Search::from_spec("rave:100").unwrap().parallelism, LEVEL_PARALLELISM);
        let shared = Search::from_spec("rave:100:1000:0:100:16:shared").unwrap();
        assert_eq!(shared.parallelism, Parallelism::SharedTree);
        assert_eq!(shared.mcts_config(1).parallelism, Parallelism::SharedTree);
        let separate = Search::from_spec("rave:100:1000:0:100:16:separate").unwrap();
        assert_eq!(separate.parallelism, Parallelism::SeparateTrees);
        for bad in [
            "mcts:0",
            "mcts:x",
            "mcts:",
            "mcts",
            "rave:100:0",
            "rave:100:-1",
            "rave:100:5:nan",
            "rave:1:2:3:0",
            "rave:1:2:3:4.5",
            "rave:1:2:3:40:0",
            "rave:1:2:3:40:1.5",
            "rave:1:2:3:40:5:6",
            "rave:1:2:3:40:5:both",
            "rave:1:2:3:40:5:shared:1",
        ] {
            assert!(Search::from_spec(bad).is_none(), "{bad}");
        }
        let d = Dots::new(&DotsOptions::sized(10, 10));
        for spec in ["mcts:30", "rave:30", "rave:30:1000:0:100:8", "rave:30:1000:0:100:8:shared"] {
            let mut a = new_agent(spec, 1).unwrap_or_else(|| panic!("{spec}"));
            assert!(d.is_playable(a.choose(&d, &ThinkContext::default())));
            let two = ThinkContext { threads: 2, ..ThinkContext::default() };
            assert!(d.is_playable(a.choose(&d, &two)), "{spec} on two threads");
        }
    }
}
