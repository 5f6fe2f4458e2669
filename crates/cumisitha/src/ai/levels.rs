//! AI levels for `tabula play`/`match` and the server: a ladder of rungs
//! about 75% apart, each the alpha-beta engine with a depth or time budget
//! and, at the bottom, a share of random moves (and `random` below them all);
//! the agent
//! keeps its transposition table between moves and honours the caller's
//! clock, deadline, stop flag and threads (Lazy SMP) through
//! [`ThinkContext`].

use super::search::{Engine, Limits};
use crate::rules::Cumisitha;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use tabula_core::{Agent, Game, LevelSpec, ThinkContext};

/// The level used when none is named.
pub const DEFAULT: &str = "hard";

#[derive(Clone, Copy)]
struct Level {
    id: &'static str,
    depth: Option<i32>,
    millis: u64,
    /// Chance of a random move instead of the engine's, for beginners.
    blunder: f64,
    description: &'static str,
}

/// A rung of the ladder that searches to a fixed depth, at most `millis`
/// a move (the same cap as `depth:N[:P]`, so a rung plays exactly as the
/// spec it was measured as), a random move `blunder` of the time.
const fn rung(id: &'static str, depth: i32, blunder: f64, description: &'static str) -> Level {
    Level { id, depth: Some(depth), millis: DEPTH_FORM_MILLIS, blunder, description }
}

/// A rung of the ladder that searches as deep as `millis` a move allows,
/// with no random moves (as `alphabeta:MS` does).
const fn timed_rung(id: &'static str, millis: u64, description: &'static str) -> Level {
    Level { id, depth: None, millis, blunder: 0.0, description }
}

/// The time cap of the fixed-depth rungs and of `depth:N[:P]`: a rung is
/// its depth on any machine, but never thinks longer than `hard`.
const DEPTH_FORM_MILLIS: u64 = 1000;

/// The ladder, weakest first. Each rung beats the one below it about 75% of
/// the time (measured head to head, docs/rules/cumisitha.md). Below the
/// one-ply search, strength is set by how often it plays a random move; above
/// it, by the depth, one ply a rung up to depth 10 and two plies after that,
/// where a ply is worth less; `hard` and the two above it think by time
/// (`level-17`, at 2.2 s, is there because five times the time, 1 s to
/// 5 s, made a step of two rungs). The four familiar names sit on the rungs
/// they always named (`easy` the one-ply search with 30% random moves,
/// `medium` depth 4, `hard` 1 s a move, `expert` 5 s a move); the other
/// rungs are numbered by their place.
const LEVELS: &[Level] = &[
    Level {
        id: "easy",
        depth: Some(1),
        millis: 100,
        blunder: 0.3,
        description: "one-ply search, a random move 30% of the time",
    },
    rung("level-2", 1, 0.2, "one-ply search, a random move 20% of the time"),
    rung("level-3", 1, 0.1, "one-ply search, a random move 10% of the time"),
    rung("level-4", 1, 0.04, "one-ply search, a random move 4% of the time"),
    rung("level-5", 1, 0.0, "one-ply search (and its capture search)"),
    Level {
        id: "medium",
        depth: Some(4),
        millis: 200,
        blunder: 0.0,
        description: "alpha-beta to depth 4 (at most 0.2 s)",
    },
    rung("level-7", 5, 0.0, "alpha-beta to depth 5"),
    rung("level-8", 6, 0.0, "alpha-beta to depth 6"),
    rung("level-9", 7, 0.0, "alpha-beta to depth 7"),
    rung("level-10", 8, 0.0, "alpha-beta to depth 8"),
    rung("level-11", 9, 0.0, "alpha-beta to depth 9"),
    rung("level-12", 10, 0.0, "alpha-beta to depth 10"),
    rung("level-13", 12, 0.0, "alpha-beta to depth 12"),
    rung("level-14", 14, 0.0, "alpha-beta to depth 14"),
    rung("level-15", 16, 0.0, "alpha-beta to depth 16 (at most 1 s)"),
    timed_rung("hard", 1000, "alpha-beta, 1 s per move"),
    timed_rung("level-17", 2200, "alpha-beta, 2.2 s per move"),
    timed_rung("expert", 5000, "alpha-beta, 5 s per move"),
];

/// The levels' ratings (random = 0): each rung's head-to-head result
/// against the rung below it (100 games a pair up to depth 8, 60 to depth
/// 10, 40 above, 20 for `level-17` and 16 for `expert`; 4-ply random
/// openings, both colours), added up from `random` (docs/rules/cumisitha.md
/// has every match and its command). A maximum-likelihood fit of games
/// between neighbours only is exactly this chain; a round-robin of rungs
/// this far apart would be won by the higher rung nearly every game and
/// leave the fit to its prior.
/// Measure again when a rung changes.
const LEVEL_ELO: [(&str, i32); 19] = [
    ("random", 0),
    ("easy", 680),
    ("level-2", 880),
    ("level-3", 1050),
    ("level-4", 1220),
    ("level-5", 1430),
    ("medium", 1600),
    ("level-7", 1720),
    ("level-8", 1930),
    ("level-9", 2150),
    ("level-10", 2350),
    ("level-11", 2630),
    ("level-12", 2850),
    ("level-13", 3130),
    ("level-14", 3350),
    ("level-15", 3500),
    ("hard", 3750),
    ("level-17", 3970),
    ("expert", 4130),
];

/// The levels, weakest first, with their measured ratings.
pub fn specs() -> Vec<LevelSpec> {
    let mut v = vec![LevelSpec::new("random", "uniformly random legal moves")];
    v.extend(LEVELS.iter().map(|l| LevelSpec::new(l.id, l.description)));
    LevelSpec::rated(v, &LEVEL_ELO)
}

/// An agent for a level (or a plain-UCT baseline); `None` for an unknown level.
pub fn agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Cumisitha>>> {
    if level == "random" {
        return Some(Box::new(tabula_ai::RandomAgent::<Cumisitha>::new(seed)));
    }
    // The plain-UCT baselines (`uct:MS`, `uct-iter:N`) every game accepts.
    if let Some(agent) = tabula_ai::levels::plain_uct::<Cumisitha>(level, seed) {
        return Some(agent);
    }
    let level = match LEVELS.iter().find(|l| l.id == level) {
        Some(l) => *l,
        None => depth_form(level).or_else(|| time_form(level))?,
    };
    Some(Box::new(EngineAgent { engine: Engine::new(32), level, rng: SmallRng::seed_from_u64(seed) }))
}

/// The specs [`agent`] takes besides the levels: the plain-UCT baselines;
/// `depth:N[:P]`, the levels' alpha-beta to depth N (1 to 30, at most 1 s a
/// move) playing a random move P% of the time (default 0), the form most
/// rungs of the ladder are made of; and `alphabeta:MS`, the alpha-beta of
/// `hard` and `expert` at MS milliseconds a move (1 to 600,000), to measure
/// a timed rung before it is one.
pub const LEVEL_FORMS: [&str; 4] =
    [tabula_ai::levels::PLAIN_UCT_FORMS[0], tabula_ai::levels::PLAIN_UCT_FORMS[1], "depth:N[:P]", "alphabeta:MS"];

/// `depth:N[:P]` as a level; `None` if malformed.
fn depth_form(spec: &str) -> Option<Level> {
    let (depth, blunder) = tabula_ai::levels::depth_and_share(spec.strip_prefix("depth:")?)?;
    Some(rung("depth", depth as i32, blunder, "alpha-beta to a fixed depth"))
}

/// `alphabeta:MS` as a level; `None` if malformed.
fn time_form(spec: &str) -> Option<Level> {
    let millis = tabula_ai::levels::move_millis(spec.strip_prefix("alphabeta:")?)?;
    Some(timed_rung("alphabeta", millis, "alpha-beta by time"))
}

/// The alpha-beta engine at a level.
pub struct EngineAgent {
    engine: Engine,
    level: Level,
    rng: SmallRng,
}

impl Agent<Cumisitha> for EngineAgent {
    fn choose(&mut self, state: &Cumisitha, ctx: &ThinkContext) -> cozy_chess::Move {
        let mut moves = Vec::new();
        state.legal_moves(&mut moves);
        if self.level.blunder > 0.0 && !moves.is_empty() && self.rng.random::<f64>() < self.level.blunder {
            return moves[self.rng.random_range(0..moves.len())];
        }
        let time = ctx.cap(Duration::from_millis(self.level.millis));
        let limits = Limits { depth: self.level.depth, nodes: None, soft_time: Some(time), hard_time: Some(time) };
        let stop = ctx.stop.clone().unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
        let threads = ctx.thread_count();
        if self.engine.threads() != threads {
            self.engine.set_threads(threads);
        }
        let result = self.engine.search(state.board(), limits, stop, &mut |_| {});
        result.best.or_else(|| moves.first().copied()).expect("choose is only called on ongoing games")
    }

    fn describe(&self) -> String {
        let l = &self.level;
        match l.id {
            "depth" => format!(
                "cumisitha alpha-beta to depth {} (a random move {}% of the time)",
                l.depth.unwrap_or(0),
                (l.blunder * 100.0).round()
            ),
            "alphabeta" => format!("cumisitha alpha-beta, {} ms per move", l.millis),
            _ => format!("cumisitha alpha-beta ({})", l.description),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn depth_specs_play_and_bad_ones_are_refused() {
        let l = depth_form("depth:3:25").unwrap();
        assert_eq!((l.depth, l.blunder), (Some(3), 0.25));
        assert_eq!(depth_form("depth:5").unwrap().blunder, 0.0);
        for bad in ["depth:0", "depth:31", "depth:x", "depth:3:101", "depth:3:", "depth:"] {
            assert!(depth_form(bad).is_none(), "{bad}");
        }
        let start = Cumisitha::from_board(cozy_chess::Board::default());
        let mut agent = agent("depth:2:0", 1).unwrap();
        let mv = agent.choose(&start, &ThinkContext::default());
        let mut moves = Vec::new();
        start.legal_moves(&mut moves);
        assert!(moves.contains(&mv));
    }

    #[test]
    fn time_specs_play_and_bad_ones_are_refused() {
        let l = time_form("alphabeta:2200").unwrap();
        assert_eq!((l.depth, l.millis, l.blunder), (None, 2200, 0.0));
        for bad in ["alphabeta:0", "alphabeta:600001", "alphabeta:", "alphabeta:1.5", "alphabeta:-3", "depth:3"] {
            assert!(time_form(bad).is_none(), "{bad}");
        }
        let start = Cumisitha::from_board(cozy_chess::Board::default());
        let mut agent = agent("alphabeta:20", 1).unwrap();
        assert_eq!(agent.describe(), "cumisitha alpha-beta, 20 ms per move");
        let mut moves = Vec::new();
        start.legal_moves(&mut moves);
        assert!(moves.contains(&agent.choose(&start, &ThinkContext::default())));
    }

    #[test]
    fn every_level_has_its_measured_rating() {
        let levels = specs();
        tabula_core::conformance::check_level_ratings(&levels, &LEVEL_ELO).unwrap();
        // Weakest first: each level rates above the one before it.
        assert!(levels.windows(2).all(|w| w[0].elo < w[1].elo), "{levels:?}");
    }

    #[test]
    fn the_ladder_only_ever_gets_stronger_and_every_rung_plays() {
        // Up the ladder a rung never searches less deep nor plays more
        // random moves than the one below, so its measured step cannot be
        // an accident of the table's order.
        for w in LEVELS.windows(2) {
            let (lo, hi) = (w[0], w[1]);
            assert!(hi.blunder <= lo.blunder, "{} blunders more than {}", hi.id, lo.id);
            match (lo.depth, hi.depth) {
                (Some(a), Some(b)) => assert!(b >= a, "{} is shallower than {}", hi.id, lo.id),
                (None, Some(_)) => panic!("{} is a depth rung above a timed one", hi.id),
                (_, None) => assert!(hi.millis >= lo.millis, "{} thinks less than {}", hi.id, lo.id),
            }
        }
        let start = Cumisitha::from_board(cozy_chess::Board::default());
        let mut moves = Vec::new();
        start.legal_moves(&mut moves);
        // A move deadline, as a shot clock would set, lets even the timed
        // rungs (seconds a move) play here at once.
        for level in specs() {
            let mut agent = agent(&level.id, 1).unwrap_or_else(|| panic!("{} has no agent", level.id));
            let ctx =
                ThinkContext { deadline: Some(Instant::now() + Duration::from_millis(30)), ..ThinkContext::default() };
            assert!(moves.contains(&agent.choose(&start, &ctx)), "{}", level.id);
        }
    }
}
