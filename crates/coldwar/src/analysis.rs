//! Cold War analysis: exact answers from the solution table. Every legal
//! move is marked win, draw or loss for the side to move, with the plies to
//! the end; the best line follows the fastest win, the longest loss, or a
//! drawing move.
//!
//! The table is read (or solved, once) on a thread of its own: until it is
//! ready the analysis says so and estimates the position by squares and
//! pieces held, as the MCTS levels' playouts do. The repetition rule and the
//! 500-ply cap are not part of the solution (see [`crate::solve`]).

use crate::ai::heuristic_value;
use crate::rules::{ColdWar, Move};
use crate::solve::cache::shared_table_by;
use crate::solve::{Eval, Table, Value};
use std::time::Instant;
use tabula_core::analysis::{analysis_deadline, Analysis, EvalUnit, Evaluation, GameResult, MoveValue, Solved};
use tabula_core::{Game, GameMeta, Player, TabulaError, ThinkContext};

/// The longest best line shown; a drawn line never ends.
const MAX_LINE: usize = 12;

/// The analysis of `game` with the process-wide table (see the module).
pub fn analyse(game: &ColdWar, ctx: &ThinkContext) -> Result<Analysis, TabulaError> {
    let started = Instant::now();
    if let Some(done) = finished(game) {
        return Ok(done);
    }
    let table = shared_table_by(analysis_deadline(ctx, started), &|| ctx.stopped());
    let mut a = analyse_with(game, table);
    a.search.time_ms = started.elapsed().as_millis() as u64;
    Ok(a)
}

fn finished(game: &ColdWar) -> Option<Analysis> {
    Analysis::finished(ColdWar::ID, ColdWar::PLAYERS, game.to_move(), game.status(), EvalUnit::Solved)
}

fn result_of(value: Value) -> GameResult {
    match value {
        Value::Win => GameResult::Win,
        Value::Draw => GameResult::Draw,
        Value::Loss => GameResult::Loss,
    }
}

fn solved(e: Eval) -> Solved {
    Solved { result: result_of(e.value), plies: e.plies }
}

/// The analysis of `game` from `table`, or the estimate that stands in for
/// it while the table is not ready (`None`).
pub fn analyse_with(game: &ColdWar, table: Option<&Table>) -> Analysis {
    if let Some(done) = finished(game) {
        return done;
    }
    let to_move = ColdWar::PLAYERS[game.to_move().index()];
    let Some(table) = table else {
        let value = heuristic_value(game);
        let mut a = Analysis::new(
            ColdWar::ID,
            "squares and pieces held",
            to_move,
            Evaluation::estimate(EvalUnit::WinProbability, value, value),
        );
        a.note = Some("the solution is not ready yet (it is read or solved once); ask again shortly".into());
        a.retry = true;
        return a;
    };
    let here = solved(table.eval(game));
    let for_first =
        if game.to_move() == Player::First { here } else { Solved { result: here.result.flipped(), ..here } };
    let mut a = Analysis::new(ColdWar::ID, "solution table", to_move, Evaluation::exact(EvalUnit::Solved, for_first));
    let mut legal = Vec::new();
    game.legal_moves(&mut legal);
    a.moves = table
        .move_evals(game)
        .into_iter()
        .filter(|(m, _)| legal.contains(m))
        .map(|(m, e)| {
            let s = solved(e);
            MoveValue {
                mv: game.format_move(m),
                display: game.display_move(m),
                solved: Some(s),
                expected: Some(s.result.expected()),
                visits: None,
            }
        })
        .collect();
    let line = best_line(table, game);
    a.best_move = line.first().map(|&m| game.format_move(m));
    let mut pos = game.clone();
    for m in line {
        a.pv.push(pos.format_move(m));
        a.pv_display.push(pos.display_move(m));
        pos.play(m);
    }
    a
}

/// The best moves one after the other (the first of each position's best
/// moves, so the line is the same every time), until the game ends or
/// [`MAX_LINE`] moves.
fn best_line(table: &Table, game: &ColdWar) -> Vec<Move> {
    let mut line = Vec::new();
    let mut pos = game.clone();
    while line.len() < MAX_LINE && !pos.status().is_over() {
        let Some(&m) = table.best_moves(&pos).first() else { break };
        line.push(m);
        pos.play(m);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::tests::full_table;
    use tabula_core::NoOptions;

    fn pos(p: &str) -> ColdWar {
        ColdWar::from_position(p, &NoOptions).unwrap()
    }

    #[test]
    fn a_finished_board_is_answered_with_its_result() {
        let g = pos("X1X1X1/X1X1X1/X1X1X1 O");
        let a = analyse(&g, &ThinkContext::default()).unwrap();
        let over = a.over.expect("over");
        assert_eq!(over.winner.as_deref(), Some("x"));
        assert_eq!(a.evaluation.solved.unwrap().result, GameResult::Win);
        assert!(a.best_move.is_none() && a.moves.is_empty());
    }

    #[test]
    fn without_the_table_it_estimates_and_says_so() {
        let g = ColdWar::new(&NoOptions);
        let a = analyse_with(&g, None);
        assert_eq!(a.evaluation.unit, EvalUnit::WinProbability);
        assert!(a.evaluation.solved.is_none());
        assert!(a.note.unwrap().contains("not ready"));
        assert!(a.retry);
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "solves the whole game: run with --release")]
    fn every_move_carries_the_solvers_value() {
        let table = full_table();
        let g = pos("X1X1X1/X1X1X1/X1X2. X");
        let a = analyse_with(&g, Some(table));
        assert_eq!(a.engine, "solution table");
        let mut legal = Vec::new();
        g.legal_moves(&mut legal);
        assert_eq!(a.moves.len(), legal.len());
        for (m, e) in table.move_evals(&g) {
            let shown = a.moves.iter().find(|v| v.mv == g.format_move(m)).expect("every move is shown");
            assert_eq!(shown.solved, Some(solved(e)), "{}", shown.mv);
        }
        // X takes the last square at once.
        assert_eq!(a.evaluation.solved, Some(Solved { result: GameResult::Win, plies: 1 }));
        assert!(["c1", "b1-c1"].contains(&a.best_move.as_deref().unwrap()));
        assert_eq!(a.pv.len(), 1);
        // With O to move the table tells O's loss; the analysis tells it
        // for the first player, X, as a win.
        let o = pos("X1X1X1/X1X1X1/X1X2. O");
        assert_eq!(table.eval(&o).value, Value::Loss);
        let a = analyse_with(&o, Some(table));
        assert_eq!(a.evaluation.solved.unwrap().result, GameResult::Win);
        assert_eq!(a.evaluation.expected, 1.0);
        assert!(a.moves.iter().all(|m| m.solved.unwrap().result == GameResult::Loss));
        // The start is a draw, and the best line is drawn all along.
        let start = ColdWar::new(&NoOptions);
        let a = analyse_with(&start, Some(table));
        assert_eq!(a.evaluation.solved.unwrap().result, GameResult::Draw);
        assert_eq!(a.pv.len(), MAX_LINE);
        let mut g = start.clone();
        for m in &a.pv {
            g.play(g.parse_move(m).unwrap());
            assert_eq!(table.eval(&g).value, Value::Draw);
        }
        assert!(ColdWar::new_agent("perfect", 1).is_some());
    }
}
