//! Cordots analysis: the alpha-beta of the `medium` to `expert` levels
//! (capture quiescence, the tie-breaker-aware evaluation), thinking until
//! the deadline. It gives the evaluation in centi-pieces for White, the best
//! move and the line the search's table remembers.

use crate::ai::{CordotsEval, EvalPolicy};
use crate::rules::{Cordots, Move};
use std::time::Instant;
use tabula_ai::alphabeta::{forced_plies, AlphaBeta, AlphaBetaConfig};
use tabula_core::analysis::{analysis_deadline, Analysis, EvalUnit, Evaluation, GameResult, Solved};
use tabula_core::{Game, GameMeta, Player, TabulaError, ThinkContext};

/// The longest line shown.
const MAX_LINE: usize = 12;

/// White's expected score for an evaluation in centi-pieces (for White):
/// the curve the MCTS level squashes the evaluation with
/// ([`EvalPolicy::white_probability`]).
///
/// ```
/// use tabula_cordots::analysis::expected_from_centipieces;
/// assert_eq!(expected_from_centipieces(0.0), 0.5);
/// assert!(expected_from_centipieces(150.0) > 0.7);
/// ```
pub fn expected_from_centipieces(cp: f64) -> f64 {
    1.0 / (1.0 + (-cp / 150.0).exp())
}

/// What one search found, for the side to move of the searched position.
struct Found {
    score: i32,
    depth: u32,
    nodes: u64,
    line: Vec<Move>,
}

fn search(game: &Cordots, ctx: &ThinkContext) -> Found {
    let config = AlphaBetaConfig { time: None, tt_bits: 20, ..AlphaBetaConfig::default() };
    let mut ab = AlphaBeta::new(config, CordotsEval::default());
    let best = ab.search(game, ctx);
    let mut line = ab.principal_variation(game, MAX_LINE);
    if line.first() != Some(&best) {
        line = vec![best];
    }
    Found { score: ab.stats.score, depth: ab.stats.depth, nodes: ab.stats.nodes, line }
}

/// The analysis of `game`, thinking until `ctx.deadline` (see the module).
pub fn analyse(game: &Cordots, ctx: &ThinkContext) -> Result<Analysis, TabulaError> {
    let started = Instant::now();
    let to_move = game.to_move();
    let players = Cordots::PLAYERS;
    if let Some(done) = Analysis::finished(Cordots::ID, players, to_move, game.status(), EvalUnit::Centipieces) {
        return Ok(done);
    }
    let ctx = ThinkContext { deadline: Some(analysis_deadline(ctx, started)), ..ctx.clone() };
    let mut legal = Vec::new();
    game.legal_moves(&mut legal);
    let name = players[to_move.index()];
    // The search answers a lone move without searching: search after it.
    let (mut a, found) = match legal.as_slice() {
        &[only] => {
            let mut next = game.clone();
            next.play(only);
            match next.status().outcome() {
                Some(outcome) => {
                    let mut a = Analysis::new(
                        Cordots::ID,
                        "the rules",
                        name,
                        Evaluation::of_outcome(EvalUnit::Centipieces, &outcome),
                    );
                    if let Some(s) = a.evaluation.solved.as_mut() {
                        s.plies = 1;
                    }
                    (a, Found { score: 0, depth: 1, nodes: 1, line: vec![only] })
                }
                None => {
                    let mut found = search(&next, &ctx);
                    let a = analysis_of(&found, &next, name, 1);
                    found.line.insert(0, only);
                    (a, found)
                }
            }
        }
        _ => {
            let found = search(game, &ctx);
            (analysis_of(&found, game, name, 0), found)
        }
    };
    let mut pos = game.clone();
    for &m in &found.line {
        pos.legal_moves(&mut legal);
        if !legal.contains(&m) {
            break;
        }
        a.pv.push(pos.format_move(m));
        a.pv_display.push(pos.display_move(m));
        pos.play(m);
    }
    a.best_move = a.pv.first().cloned();
    a.search.depth = Some(found.depth);
    a.search.nodes = Some(found.nodes);
    a.search.time_ms = started.elapsed().as_millis() as u64;
    Ok(a)
}

/// The analysis of what a search of `searched` found, for the position
/// `plies_before` plies above it (1 after a lone move), whose side to move
/// is `to_move`.
fn analysis_of(found: &Found, searched: &Cordots, to_move: &str, plies_before: u32) -> Analysis {
    let white = if searched.to_move() == Player::First { 1 } else { -1 };
    if found.depth == 0 {
        // Not even one ply searched: the static evaluation is all there is.
        let cp = white * CordotsEval::default().score(searched);
        let guess = EvalPolicy::new(0, 1.0).white_probability(searched);
        let mut a = Analysis::new(
            Cordots::ID,
            "static evaluation",
            to_move,
            Evaluation::estimate(EvalUnit::Centipieces, cp as f64, guess),
        );
        a.note = Some("no time to search: give the analysis more time".into());
        return a;
    }
    let cp = white * found.score;
    let evaluation = match forced_plies(found.score) {
        Some(plies) => {
            let result = if cp > 0 { GameResult::Win } else { GameResult::Loss };
            Evaluation::exact(EvalUnit::Centipieces, Solved { result, plies: plies + plies_before })
        }
        None => Evaluation::estimate(EvalUnit::Centipieces, cp as f64, expected_from_centipieces(cp as f64)),
    };
    Analysis::new(Cordots::ID, "alpha-beta", to_move, evaluation)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CordotsOptions;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use std::time::Duration;

    fn pos(p: &str) -> Cordots {
        Cordots::from_position(p, &CordotsOptions::default()).unwrap()
    }

    fn within(ms: u64) -> ThinkContext {
        ThinkContext { deadline: Some(Instant::now() + Duration::from_millis(ms)), ..ThinkContext::default() }
    }

    #[test]
    fn takes_the_last_victim_and_calls_it_a_win() {
        // e3-e4 takes Black's only Victim: a win in one ply.
        let g = pos("c7/8/8/8/2Cv4/4V3/8/7V w 0 0");
        let a = analyse(&g, &within(300)).unwrap();
        assert_eq!(a.best_move.as_deref(), Some("e3-e4"));
        assert_eq!(a.pv.first(), a.best_move.as_ref());
        assert_eq!(a.evaluation.solved, Some(Solved { result: GameResult::Win, plies: 1 }));
        assert_eq!(a.evaluation.expected, 1.0);
        assert!(a.search.depth.unwrap() >= 1);
        // The same position with Black to move: told for White all the same.
        let b = pos("c7/8/8/8/2Cv4/4V3/8/7V b 0 0");
        let a = analyse(&b, &within(300)).unwrap();
        assert_eq!(a.to_move, "black");
        let mut legal = Vec::new();
        b.legal_moves(&mut legal);
        assert!(legal.iter().any(|&m| Some(b.format_move(m)) == a.best_move));
    }

    #[test]
    fn the_start_is_about_level_with_a_line() {
        let g = Cordots::new(&CordotsOptions::default());
        let a = analyse(&g, &within(300)).unwrap();
        assert!(a.evaluation.solved.is_none());
        assert!((0.2..0.8).contains(&a.evaluation.expected), "{:?}", a.evaluation);
        assert!(a.pv.len() >= 2, "{:?}", a.pv);
        let mut g = g.clone();
        for m in &a.pv {
            let mv = g.check_move(m).unwrap();
            g.play(mv);
        }
    }

    #[test]
    fn a_stopped_search_falls_back_to_the_evaluation() {
        let g = Cordots::new(&CordotsOptions::default());
        let ctx = ThinkContext { stop: Some(Arc::new(AtomicBool::new(true))), ..within(1_000) };
        let began = Instant::now();
        let a = analyse(&g, &ctx).unwrap();
        assert!(began.elapsed() < Duration::from_millis(500), "{:?}", began.elapsed());
        assert!(a.best_move.is_some());
        assert_eq!(a.evaluation.unit, EvalUnit::Centipieces);
    }
}
