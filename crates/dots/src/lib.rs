//! Dots (Points, Tochki, Kropki) for Tabula.
//!
//! The rules are in docs/rules/dots.md. [`Dots`] is the engine (a flat
//! board with a sentinel border, captures found locally around the placed
//! dot, incremental hash), [`sgf`] reads and writes GM[40] records, and
//! [`ai`] holds the MCTS players.

pub mod ai;
pub mod encoding;
pub mod engine;
pub mod options;
pub mod sgf;
mod view;

#[cfg(test)]
mod rules_tests;

pub use engine::{Dots, Point};
pub use options::{DotsOptions, Format, Stage};

use rand::rngs::SmallRng;
use tabula_core::{Agent, Game, GameMeta, LevelSpec, NotationError, Player, Status};

impl Dots {
    /// A move in `x-y` notation, checked against this board's size.
    pub fn parse_point(&self, text: &str) -> Result<Point, NotationError> {
        let t = text.trim();
        let (xs, ys) = t
            .split_once('-')
            .ok_or_else(|| NotationError::new(format!("'{t}' is not a point: write x-y, e.g. 20-16")))?;
        let num = |s: &str, what: &str, max: usize| -> Result<usize, NotationError> {
            let s = s.trim();
            if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(NotationError::new(format!("'{t}': {what} '{s}' is not a number")));
            }
            let n: usize = s.parse().map_err(|_| NotationError::new(format!("'{t}': bad {what}")))?;
            if n < 1 || n > max {
                return Err(NotationError::new(format!("'{t}': {what} {n} is off the board (1..{max})")));
            }
            Ok(n)
        };
        let x = num(xs, "x", self.width)?;
        let y = num(ys, "y", self.height)?;
        Ok(Point(self.cell(x, y) as u16))
    }

    /// A point in `x-y` notation.
    pub fn point_name(&self, p: Point) -> String {
        let (x, y) = self.xy(p);
        format!("{x}-{y}")
    }
}

impl Game for Dots {
    type Move = Point;
    type Options = DotsOptions;

    const ID: &'static str = "dots";
    const NAME: &'static str = "Dots";
    const PLAYERS: [&'static str; 2] = ["blue", "red"];

    fn new(options: &DotsOptions) -> Self {
        Dots::start(options)
    }

    fn from_position(_position: &str, _options: &DotsOptions) -> Result<Self, NotationError> {
        Err(NotationError::new(
            "Dots has no position notation: start from the options (width, height, cross) and play moves, \
             or import an SGF record",
        ))
    }

    fn position(&self) -> Option<String> {
        None
    }

    fn options(&self) -> &DotsOptions {
        &self.opts
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn legal_moves(&self, out: &mut Vec<Point>) {
        out.clear();
        if self.compute_status().is_over() {
            return;
        }
        out.extend(self.playable().iter().map(|&c| Point(c)));
        out.sort_unstable();
    }

    fn play(&mut self, mv: Point) {
        self.play_point(mv);
    }

    fn status(&self) -> Status {
        self.compute_status()
    }

    fn plies(&self) -> u32 {
        self.plies
    }

    fn hash(&self) -> u64 {
        self.position_hash()
    }

    fn hash_from_scratch(&self) -> u64 {
        self.hash_scratch()
    }

    fn parse_move(&self, text: &str) -> Result<Point, NotationError> {
        self.parse_point(text)
    }

    fn format_move(&self, mv: Point) -> String {
        self.point_name(mv)
    }

    fn score(&self) -> Option<[i32; 2]> {
        Some(self.scores())
    }

    fn explain_illegal(&self, mv: Point) -> String {
        let name = self.point_name(mv);
        if let Some((who, captured)) = self.dot_at(mv) {
            let colour = Self::PLAYERS[who.index()];
            return if captured {
                format!("{name} holds a captured {colour} dot, which stays out of play")
            } else {
                format!("{name} already holds a {colour} dot")
            };
        }
        if let Some(owner) = self.territory_at(mv) {
            return format!("{name} is inside {}'s territory", Self::PLAYERS[owner.index()]);
        }
        if mv.0 as usize >= self.cells.len() || self.cells[mv.0 as usize] & engine::OUTSIDE != 0 {
            return format!("{name} is off the board");
        }
        "not a legal move in this position".into()
    }

    fn random_playout(&mut self, rng: &mut SmallRng, _moves: &mut Vec<Point>, max_plies: u32) -> u32 {
        self.random_fill(rng, max_plies)
    }
}

impl GameMeta for Dots {
    const DESCRIPTION: &'static str =
        "Dots (Points): surround your opponent's dots on a 39x32 grid; automatic capture, grounding, championship formats";

    fn levels() -> Vec<LevelSpec> {
        ai::levels()
    }

    fn default_level() -> &'static str {
        ai::DEFAULT_LEVEL
    }

    fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Self>>> {
        ai::new_agent(level, seed)
    }

    fn view(&self) -> serde_json::Value {
        view::view(self)
    }

    fn render_text(&self, color: bool) -> String {
        view::render(self, color)
    }

    fn record_format() -> &'static str {
        "sgf"
    }

    fn export(log: &tabula_core::GameLog) -> Result<String, tabula_core::RecordError> {
        sgf::export(log)
    }

    fn import(text: &str) -> Result<Vec<tabula_core::Replayed<Self>>, tabula_core::RecordError> {
        sgf::import(text)
    }
}
