//! Cumisitha analysis: the alpha-beta engine of the AI levels, thinking
//! until the deadline. It gives the evaluation in centipawns (or the
//! distance to a forced mate) and the principal variation, in UCI and SAN.

use crate::ai::eval::evaluate;
use crate::ai::search::{Engine, Limits, MATE, MATE_BOUND};
use crate::rules::Cumisitha;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tabula_core::analysis::{analysis_deadline, Analysis, EvalUnit, Evaluation, GameResult, Solved};
use tabula_core::{Game, GameMeta, Player, TabulaError, ThinkContext};

/// The transposition table of one analysis, in megabytes: enough for the
/// few seconds an analysis runs, small enough to allocate per request.
const HASH_MB: usize = 16;

/// Time kept back from the deadline for building the answer.
const MARGIN: Duration = Duration::from_millis(5);

/// White's expected score for an evaluation in centipawns (for White): the
/// logistic curve lichess fits to its games, so that the evaluation bar and
/// the game review read as they do there.
///
/// ```
/// use tabula_cumisitha::analysis::expected_from_centipawns;
/// assert_eq!(expected_from_centipawns(0.0), 0.5);
/// assert!((expected_from_centipawns(300.0) - 0.75).abs() < 0.01);
/// ```
pub fn expected_from_centipawns(cp: f64) -> f64 {
    1.0 / (1.0 + (-0.003_682_08 * cp).exp())
}

/// The analysis of `game`, thinking until `ctx.deadline` (see the module).
pub fn analyse(game: &Cumisitha, ctx: &ThinkContext) -> Result<Analysis, TabulaError> {
    let started = Instant::now();
    let to_move = game.to_move();
    if let Some(done) =
        Analysis::finished(Cumisitha::ID, Cumisitha::PLAYERS, to_move, game.status(), EvalUnit::Centipawns)
    {
        return Ok(done);
    }
    let time = analysis_deadline(ctx, started).saturating_duration_since(started).saturating_sub(MARGIN);
    let limits = Limits { depth: None, nodes: None, soft_time: Some(time), hard_time: Some(time) };
    let stop = ctx.stop.clone().unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
    let mut engine = Engine::new(HASH_MB);
    let result = engine.search(game.board(), limits, stop, &mut |_| {});
    let sign = if to_move == Player::First { 1 } else { -1 };
    let mut a = if result.depth == 0 {
        // Not even one ply searched: the static evaluation is all there is.
        let cp = sign * evaluate(game.board());
        let mut a = Analysis::new(
            Cumisitha::ID,
            "static evaluation",
            Cumisitha::PLAYERS[to_move.index()],
            Evaluation::estimate(EvalUnit::Centipawns, cp as f64, expected_from_centipawns(cp as f64)),
        );
        a.note = Some("no time to search: give the analysis more time".into());
        a
    } else {
        Analysis::new(Cumisitha::ID, "alpha-beta", Cumisitha::PLAYERS[to_move.index()], evaluation(sign * result.score))
    };
    let mut pos = game.clone();
    let mut legal = Vec::new();
    for &m in &result.pv {
        pos.legal_moves(&mut legal);
        if !legal.contains(&m) {
            break;
        }
        a.pv.push(pos.format_move(m));
        a.pv_display.push(pos.display_move(m));
        pos.play(m);
    }
    a.best_move = result.best.map(|m| game.format_move(m)).or_else(|| a.pv.first().cloned());
    if a.pv.is_empty() {
        if let Some(m) = result.best {
            a.pv.push(game.format_move(m));
            a.pv_display.push(game.display_move(m));
        }
    }
    a.search.depth = Some(result.depth.max(0) as u32);
    a.search.nodes = Some(result.nodes);
    a.search.time_ms = started.elapsed().as_millis() as u64;
    Ok(a)
}

/// The evaluation of a search score given for White.
fn evaluation(white: i32) -> Evaluation {
    if white.abs() > MATE_BOUND {
        let plies = (MATE - white.abs()) as u32;
        let result = if white > 0 { GameResult::Win } else { GameResult::Loss };
        return Evaluation::exact(EvalUnit::Centipawns, Solved { result, plies });
    }
    Evaluation::estimate(EvalUnit::Centipawns, white as f64, expected_from_centipawns(white as f64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::NoOptions;

    fn pos(fen: &str) -> Cumisitha {
        Cumisitha::from_position(fen, &NoOptions).unwrap()
    }

    fn within(ms: u64) -> ThinkContext {
        ThinkContext { deadline: Some(Instant::now() + Duration::from_millis(ms)), ..ThinkContext::default() }
    }

    #[test]
    fn a_mate_in_one_is_found_and_told_for_white() {
        // Black to move mates with Qh4#... after 1. f3 e5 2. g4.
        let g = pos("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2");
        let a = analyse(&g, &within(500)).unwrap();
        assert_eq!(a.best_move.as_deref(), Some("d8h4"));
        assert_eq!(a.pv_display.first().map(String::as_str), Some("Qh4#"));
        assert_eq!(a.evaluation.solved, Some(Solved { result: GameResult::Loss, plies: 1 }));
        assert_eq!(a.evaluation.expected, 0.0);
        // And White mates in one in the mirror position.
        let w = pos("rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
        let a = analyse(&w, &within(500)).unwrap();
        assert_eq!(a.pv_display.first().map(String::as_str), Some("Qh5#"));
        assert_eq!(a.evaluation.solved.unwrap().result, GameResult::Win);
    }

    #[test]
    fn an_extra_queen_shows_for_the_side_that_has_it() {
        let black_up = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1");
        let a = analyse(&black_up, &within(200)).unwrap();
        assert!(a.evaluation.value < -500.0, "{:?}", a.evaluation);
        assert!(a.evaluation.expected < 0.2);
        assert!(!a.pv.is_empty() && a.search.depth.unwrap() >= 1);
        assert_eq!(a.to_move, "white");
    }

    #[test]
    fn a_finished_game_and_a_stopped_search_still_answer() {
        let mated = pos("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        let a = analyse(&mated, &ThinkContext::default()).unwrap();
        assert_eq!(a.over.unwrap().winner.as_deref(), Some("black"));
        assert!(a.best_move.is_none());
        // Stopped before it starts: the engine notices within a few
        // thousand nodes and still names a legal move.
        let stop = Arc::new(AtomicBool::new(true));
        let g = Cumisitha::new(&NoOptions);
        let ctx = ThinkContext { stop: Some(stop), ..ThinkContext::default() };
        let began = Instant::now();
        let a = analyse(&g, &ctx).unwrap();
        assert!(began.elapsed() < Duration::from_millis(900), "{:?}", began.elapsed());
        assert!(g.check_move(a.best_move.as_deref().unwrap()).is_ok());
    }
}
