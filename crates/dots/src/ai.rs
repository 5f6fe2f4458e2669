//! The Dots AI: UCT ([`tabula_ai::Mcts`]) on a focused view of the game,
//! with playouts that suit Dots.
//!
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
use tabula_ai::mcts::terminal_value;
use tabula_ai::{Mcts, MctsConfig, Policy, RandomAgent};
use tabula_core::{Agent, Game, LevelSpec, NotationError, Player, Status, ThinkContext};

/// The level used when none is named.
pub const DEFAULT_LEVEL: &str = "medium";

/// (id, thinking time in ms, playout cut-off in plies).
const LEVELS: &[(&str, u64, u32)] =
    &[("easy", 250, 40), ("medium", 600, 50), ("hard", 1_200, 60), ("expert", 2_500, 60)];

/// The levels, weakest first.
pub fn levels() -> Vec<LevelSpec> {
    let mut v = vec![LevelSpec::new("random", "uniformly random legal dots")];
    for &(id, ms, cut) in LEVELS {
        v.push(LevelSpec::new(
            id,
            format!(
                "MCTS near the dots, playouts cut at {cut} plies and valued by score, {:.2} s per move",
                ms as f64 / 1000.0
            ),
        ));
    }
    v
}

/// An agent for a level (or a plain-UCT baseline); `None` for an unknown level.
pub fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Dots>>> {
    if level == "random" {
        return Some(Box::new(RandomAgent::<Dots>::new(seed)));
    }
    // The plain-UCT baselines (`uct:MS`, `uct-iter:N`) for comparisons.
    if let Some(agent) = tabula_ai::levels::plain_uct::<Dots>(level, seed) {
        return Some(agent);
    }
    let &(id, ms, cutoff) = LEVELS.iter().find(|(id, ..)| *id == level)?;
    Some(Box::new(DotsAgent::new(id, Duration::from_millis(ms), cutoff, seed)))
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
}

impl DotsPolicy {
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
        for _ in 0..self.cutoff {
            if d.status().is_over() || d.playable().is_empty() {
                return terminal_value(d);
            }
            let c = Self::pick(d, rng);
            d.play(Point(c as u16));
        }
        self.evaluate(d)
    }
}

/// MCTS on [`Focus`] with [`DotsPolicy`].
pub struct DotsAgent {
    mcts: Mcts<Focus, DotsPolicy>,
    name: String,
}

impl DotsAgent {
    /// An agent thinking `time` a move with playouts cut at `cutoff` plies.
    pub fn new(level: &str, time: Duration, cutoff: u32, seed: u64) -> Self {
        let config = MctsConfig { iterations: None, time: Some(time), exploration: 0.6, seed, ..MctsConfig::default() };
        DotsAgent {
            mcts: Mcts::new(config, DotsPolicy { cutoff, scale: 2.0 }),
            name: format!("dots {level}: MCTS near the dots, cut-off {cutoff}, {:.2} s", time.as_secs_f64()),
        }
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

    #[test]
    fn the_ai_takes_a_free_capture() {
        let mut d = Dots::new(&DotsOptions { cross: false, ..DotsOptions::sized(12, 12) });
        for (who, s) in
            [(Player::Second, "6-6"), (Player::First, "6-7"), (Player::First, "7-6"), (Player::First, "6-5")]
        {
            let p = d.parse_move(s).unwrap();
            d.place_setup(who, p);
        }
        let mut agent = DotsAgent::new("test", Duration::from_millis(300), 40, 1);
        let mv = agent.choose(&d, &ThinkContext::default());
        assert_eq!(d.format_move(mv), "5-6");
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
}
