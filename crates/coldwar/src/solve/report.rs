//! What `tabula solve coldwar` prints, and facts about the solution.

use crate::rules::{ColdWar, BOARDS};
use crate::solve::{Table, TableCensus};
use serde_json::{json, Value as Json};
use tabula_core::{Game, Player};

/// The solution of a position as one JSON object: `value` and `plies` for
/// the side to move, `best` (the best moves) and every move's value.
pub fn solve_report(table: &Table, game: &ColdWar) -> Json {
    let eval = table.eval(game);
    let moves: Vec<Json> = table
        .move_evals(game)
        .into_iter()
        .map(|(m, e)| json!({ "move": game.format_move(m), "value": e.value.as_str(), "plies": e.plies }))
        .collect();
    json!({
        "game": ColdWar::ID,
        "position": game.position(),
        "to_move": ColdWar::PLAYERS[game.to_move().index()],
        "value": eval.value.as_str(),
        "plies": eval.plies,
        "best": table.best_moves(game).into_iter().map(|m| game.format_move(m)).collect::<Vec<_>>(),
        "moves": moves,
    })
}

/// The positions (board and side to move) reachable from the start,
/// counted by their value for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReachableCensus {
    /// Positions reachable from the start.
    pub positions: u64,
    /// Their values: wins, losses, draws, the longest forced win and the
    /// longest loss among them.
    pub values: TableCensus,
    /// Of those, finished boards (one side holds every square).
    pub finished: u64,
    /// The most plies needed to reach any of them.
    pub depth: u32,
}

impl ReachableCensus {
    /// The census as JSON, for `tabula solve --stats`.
    pub fn to_json(&self) -> Json {
        json!({
            "positions": self.positions,
            "wins": self.values.wins,
            "losses": self.values.losses,
            "draws": self.values.draws,
            "finished": self.finished,
            "depth": self.depth,
            "longest_win": self.values.longest_win,
            "longest_loss": self.values.longest_loss,
        })
    }
}

/// Walk every position reachable from the start (breadth first; finished
/// boards are not expanded; repetition and the ply cap are ignored, as in
/// the solution) and count them by value.
pub fn reachable_census(table: &Table) -> ReachableCensus {
    let key = |g: &ColdWar| g.board_index() as u64 * 2 + g.to_move().index() as u64;
    let mut seen = vec![0u64; (2 * BOARDS as usize).div_ceil(64)];
    let mut mark = |k: u64| -> bool {
        let (w, b) = ((k / 64) as usize, k % 64);
        let fresh = seen[w] & (1 << b) == 0;
        seen[w] |= 1 << b;
        fresh
    };
    let start = ColdWar::new(&Default::default());
    mark(key(&start));
    let mut frontier = vec![key(&start)];
    let mut census = ReachableCensus::default();
    let mut moves = Vec::new();
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &k in &frontier {
            let side = Player::from_index((k % 2) as usize);
            let board = ColdWar::bare((k / 2) as u32, side);
            census.positions += 1;
            census.values.count(table.eval(&board));
            if board.status().is_over() {
                census.finished += 1;
                continue;
            }
            board.board_moves(&mut moves);
            for &m in &moves {
                let mut child = board.clone();
                child.apply_to_board(m);
                let ck = key(&child);
                if mark(ck) {
                    next.push(ck);
                }
            }
        }
        if !next.is_empty() {
            census.depth += 1;
        }
        frontier = next;
    }
    census
}
