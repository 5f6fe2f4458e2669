//! Dots analysis: the tree search of the AI levels (MCTS with RAVE near the dots, with
//! the Dots playouts), thinking until the deadline. It gives Blue's chance
//! of winning, the most searched moves and line, and the territory each
//! side would likely hold: at the end of every playout each point is
//! counted for whoever holds it then (its territory, its active dot, or the
//! empty base around it), and the counts are averaged (ownership, as Go
//! programs estimate it).

use crate::ai::{DotsPolicy, Focus, Search};
use crate::rules::{Dots, Point};
use std::time::{Duration, Instant};
use tabula_ai::mcts::{Mcts, MctsConfig, Policy};
use tabula_core::analysis::{analysis_deadline, expected_for, Analysis, EvalUnit, Evaluation, MoveValue, Territory};
use tabula_core::{Game, GameMeta, Player, TabulaError, ThinkContext};

/// Plies a playout runs before its score values it: the levels'.
const CUTOFF: u32 = crate::ai::LEVEL_CUTOFF;
/// The most searched moves listed.
const MAX_MOVES: usize = 8;
/// The longest line shown.
const MAX_LINE: usize = 10;
/// A move enters the line only when searched this often.
const LINE_VISITS: u32 = 16;

/// Who holds a point now: +1 Blue, -1 Red, 0 nobody. A territory belongs
/// to its owner (with any captured dots in it), an active dot to its
/// player, an empty point to the side whose base encloses it.
pub fn holder(d: &Dots, p: Point) -> f32 {
    let side = |q: Player| if q == Player::First { 1.0 } else { -1.0 };
    if let Some(q) = d.territory_at(p) {
        return side(q);
    }
    match d.dot_at(p) {
        Some((q, false)) => side(q),
        Some((q, true)) => -side(q),
        None => match (d.enclosed_by(p, Player::First), d.enclosed_by(p, Player::Second)) {
            (true, false) => 1.0,
            (false, true) => -1.0,
            _ => 0.0,
        },
    }
}

/// The sum of [`holder`] over playouts, for every point.
struct Ownership {
    /// `(index into sums, point)` for every point, row by row.
    points: Vec<(usize, Point)>,
    sums: Vec<f32>,
    samples: u64,
}

impl Ownership {
    fn new(d: &Dots) -> Self {
        let points = d
            .points()
            .map(|p| {
                let (x, y) = d.xy(p);
                ((y - 1) * d.width() + (x - 1), p)
            })
            .collect();
        Ownership { points, sums: vec![0.0; d.width() * d.height()], samples: 0 }
    }

    fn record(&mut self, d: &Dots) {
        for &(i, p) in &self.points {
            self.sums[i] += holder(d, p);
        }
        self.samples += 1;
    }
}

/// The territory estimate: the playouts' average, or who holds each point
/// now when there were none.
fn territory(d: &Dots, policy: &Ownership) -> Territory {
    let (width, height) = (d.width(), d.height());
    if policy.samples == 0 {
        let mut owner = vec![0.0; width * height];
        for &(i, p) in &policy.points {
            owner[i] = holder(d, p);
        }
        return Territory { width, height, owner, samples: 0, method: "who holds each point now".into() };
    }
    let n = policy.samples as f32;
    Territory {
        width,
        height,
        owner: policy.sums.iter().map(|s| s / n).collect(),
        samples: policy.samples,
        method: "who holds each point after the best move and a playout".into(),
    }
}

/// The analysis of `game`, thinking until `ctx.deadline` (see the module).
///
/// The tree search takes about 60% of the time; then playouts from the
/// position after the best move gather who holds what (see [`holder`])
/// until 95% of it.
pub fn analyse(game: &Dots, ctx: &ThinkContext) -> Result<Analysis, TabulaError> {
    let started = Instant::now();
    let to_move = game.to_move();
    let name = Dots::PLAYERS[to_move.index()];
    let mut ownership = Ownership::new(game);
    if let Some(mut done) =
        Analysis::finished(Dots::ID, Dots::PLAYERS, to_move, game.status(), EvalUnit::WinProbability)
    {
        done.territory = Some(territory(game, &ownership));
        return Ok(done);
    }
    let total = analysis_deadline(ctx, started).saturating_duration_since(started);
    // The search stops at 80% of the time its deadline leaves.
    let search_ctx = ThinkContext { deadline: Some(started + total.mul_f64(0.75)), ..ctx.clone() };
    // The levels' search; the deadline above, not a time, ends it.
    let config = MctsConfig { time: None, ..Search::level(Duration::ZERO, CUTOFF).mcts_config(game.hash()) };
    let mut policy = DotsPolicy::new(CUTOFF);
    let mut mcts = Mcts::new(config, DotsPolicy::new(CUTOFF));
    let focus = Focus::from_dots(game);
    let best = mcts.search(&focus, &search_ctx);
    let roots = mcts.root_moves();
    let mover_value = roots.iter().find(|r| r.mv == best).map_or(0.5, |r| r.value);
    let first = expected_for(to_move, mover_value);
    let mut a = Analysis::new(Dots::ID, "MCTS", name, Evaluation::estimate(EvalUnit::WinProbability, first, first));
    a.moves = roots
        .iter()
        .take(MAX_MOVES)
        .map(|r| MoveValue {
            mv: game.format_move(r.mv),
            display: game.display_move(r.mv),
            solved: None,
            expected: Some(r.value),
            visits: Some(r.visits as u64),
        })
        .collect();
    let mut line = mcts.principal_variation(LINE_VISITS, MAX_LINE);
    if line.first() != Some(&best) {
        line = vec![best];
    }
    let mut pos = game.clone();
    for m in line {
        if !pos.is_playable(m) || pos.status().is_over() {
            break;
        }
        a.pv.push(pos.format_move(m));
        a.pv_display.push(pos.display_move(m));
        pos.play(m);
    }
    a.best_move = Some(game.format_move(best));
    // Who holds what after the best move, by playouts until 95% of the time.
    let mut after = focus.clone();
    after.play(best);
    let mut scratch = after.clone();
    let mut rng = tabula_ai::rng(game.hash() ^ 0x5eed);
    let until = started + total.mul_f64(0.95);
    while !ctx.stopped() && (!ownership.samples.is_multiple_of(8) || Instant::now() < until) {
        scratch.clone_from(&after);
        policy.playout(&mut scratch, &mut rng);
        ownership.record(&scratch.dots);
    }
    a.territory = Some(territory(game, &ownership));
    a.search.iterations = Some(mcts.stats.iterations);
    a.search.nodes = Some(mcts.stats.nodes as u64);
    a.search.time_ms = started.elapsed().as_millis() as u64;
    if mcts.stats.iterations < 100 {
        a.note = Some(format!("only {} playouts: give the analysis more time", mcts.stats.iterations));
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DotsOptions;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use std::time::Duration;

    fn within(ms: u64) -> ThinkContext {
        ThinkContext { deadline: Some(Instant::now() + Duration::from_millis(ms)), ..ThinkContext::default() }
    }

    /// A 12x12 board with a red dot at 6-6 nearly surrounded by blue.
    fn trap() -> Dots {
        let mut d = Dots::new(&DotsOptions { cross: false, ..DotsOptions::sized(12, 12) });
        for (who, s) in
            [(Player::Second, "6-6"), (Player::First, "6-7"), (Player::First, "7-6"), (Player::First, "6-5")]
        {
            let p = d.parse_move(s).unwrap();
            d.place_setup(who, p);
        }
        d
    }

    #[test]
    fn the_capture_is_found_and_the_trapped_dot_counted_as_blues() {
        let d = trap();
        let a = analyse(&d, &within(400)).unwrap();
        assert_eq!(a.best_move.as_deref(), Some("5-6"));
        assert_eq!(a.pv.first().map(String::as_str), Some("5-6"));
        assert!(a.evaluation.expected > 0.5, "{:?}", a.evaluation);
        let t = a.territory.unwrap();
        assert_eq!((t.width, t.height, t.owner.len()), (12, 12, 144));
        assert!(t.samples > 0);
        let at = |x: usize, y: usize| t.owner[(y - 1) * 12 + (x - 1)];
        // The red dot is Blue's after the capture; Blue's own dots stay Blue's.
        assert!(at(6, 6) > 0.5, "6-6: {}", at(6, 6));
        assert!(at(6, 7) > 0.9, "6-7: {}", at(6, 7));
        // A far corner is nobody's.
        assert!(at(1, 12).abs() < 0.2, "1-12: {}", at(1, 12));
        assert!(a.moves[0].visits.unwrap() >= a.moves.last().unwrap().visits.unwrap());
        // With Red to move, Red saves the dot (5-6) and it stays Red's more often.
        let mut red = trap();
        red.set_to_move(Player::Second);
        let a = analyse(&red, &within(400)).unwrap();
        let t = a.territory.unwrap();
        let red_at = t.owner[(6 - 1) * 12 + (6 - 1)];
        assert!(red_at < 0.0, "6-6 with Red to move: {red_at}");
    }

    #[test]
    fn stopped_at_once_it_still_names_a_move_and_the_present_territory() {
        let d = trap();
        let ctx = ThinkContext { stop: Some(Arc::new(AtomicBool::new(true))), ..within(5_000) };
        let began = Instant::now();
        let a = analyse(&d, &ctx).unwrap();
        assert!(began.elapsed() < Duration::from_millis(1_000), "{:?}", began.elapsed());
        assert!(d.is_playable(d.parse_move(a.best_move.as_deref().unwrap()).unwrap()));
        let t = a.territory.unwrap();
        // The stop flag is read before any ownership playout.
        assert_eq!(t.samples, 0);
        assert!(a.note.is_some());
    }

    #[test]
    fn a_finished_game_shows_its_result_and_who_holds_what() {
        let mut d = trap();
        let p = d.parse_move("5-6").unwrap();
        d.play(p);
        // Blue has captured; end the game by the rules' own test.
        let over = {
            let mut g = d.clone();
            let mut moves = Vec::new();
            while !g.status().is_over() {
                g.legal_moves(&mut moves);
                let m = moves[0];
                g.play(m);
            }
            g
        };
        let a = analyse(&over, &ThinkContext::default()).unwrap();
        assert!(a.over.is_some() && a.best_move.is_none());
        let t = a.territory.unwrap();
        assert_eq!(t.samples, 0);
        assert!(t.owner.iter().all(|v| [-1.0, 0.0, 1.0].contains(v)));
    }
}
