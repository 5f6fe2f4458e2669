//! What an engine says about a position: the shape every game's analysis
//! takes, so that the CLI (`tabula analyse`) and the server
//! (`POST /api/analysis`) show every game alike.
//!
//! A game fills in what its engine knows ([`GameMeta::analyse`]):
//! - an [`Evaluation`] from the **first player's** point of view, in the
//!   game's own unit, plus an expected score on a 0..1 scale that every game
//!   shares (for an evaluation bar and for game review);
//! - the best move and line (principal variation), in the game's notation
//!   and as people write it (SAN for Cumisitha);
//! - per-move values where the engine gives them ([`MoveValue`]: every
//!   legal Cold War move is solved exactly), from the point of view of the
//!   **side to move**, who chooses among them;
//! - a territory estimate for board-filling games ([`Territory`]);
//! - what was searched ([`SearchInfo`]).
//!
//! A finished position is not an error: its analysis has `over` set, the
//! exact result as its evaluation, and no move.
//!
//! [`GameMeta::analyse`]: crate::GameMeta::analyse

use crate::game::{Outcome, Player, Status};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// An engine's verdict on one position. Its JSON is what the server returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The game's registry id.
    pub game: String,
    /// The engine that answered, for people, e.g. `"solution table"`.
    pub engine: String,
    /// The player to move, by name (in a finished game, the one who would be).
    pub to_move: String,
    /// How the game ended, when the position is finished.
    pub over: Option<GameOver>,
    /// How good the position is for the first player.
    pub evaluation: Evaluation,
    /// The engine's move, in the game's notation; `None` when finished.
    pub best_move: Option<String>,
    /// The best line from here, the best move first, in the game's notation.
    pub pv: Vec<String>,
    /// The same line as people write it (SAN for Cumisitha).
    pub pv_display: Vec<String>,
    /// Values of single moves, where the engine gives them (every legal
    /// move for Cold War, the most searched for the tree searches).
    pub moves: Vec<MoveValue>,
    /// Who is likely to hold each point (Dots), when the engine estimates it.
    pub territory: Option<Territory>,
    /// What the engine searched.
    pub search: SearchInfo,
    /// Anything the reader should know (e.g. a budget too small to search).
    pub note: Option<String>,
    /// The engine was still getting ready (Cold War's solution being read
    /// or solved, once per process) and answered with a stand-in: asking
    /// again shortly gets the full answer.
    pub retry: bool,
}

/// How a finished game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameOver {
    /// The winner's name; `None` for a draw.
    pub winner: Option<String>,
    /// Why, e.g. `"checkmate"`.
    pub reason: String,
}

/// The unit of [`Evaluation::value`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvalUnit {
    /// An exact game-theoretic value: `value` is +1 (the first player wins),
    /// 0 (a draw) or -1, and [`Evaluation::solved`] says more.
    Solved,
    /// Hundredths of a pawn (Cumisitha).
    Centipawns,
    /// Hundredths of a piece (Cordots).
    Centipieces,
    /// The first player's chance of winning, 0..1, from a tree search (Dots).
    WinProbability,
}

/// An exact result with best play (from a solution, or a forced mate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameResult {
    /// The player it is told for wins.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The player it is told for loses.
    Loss,
}

impl GameResult {
    /// The same result told for the other player.
    pub fn flipped(self) -> GameResult {
        match self {
            GameResult::Win => GameResult::Loss,
            GameResult::Loss => GameResult::Win,
            GameResult::Draw => GameResult::Draw,
        }
    }
    /// The expected score of this result: 1, 0.5 or 0.
    pub fn expected(self) -> f64 {
        match self {
            GameResult::Win => 1.0,
            GameResult::Draw => 0.5,
            GameResult::Loss => 0.0,
        }
    }
}

/// A result and how far off it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Solved {
    /// Win, draw or loss.
    pub result: GameResult,
    /// Plies to the end with best play (the winner hurrying, the loser
    /// holding out); 0 for a draw.
    pub plies: u32,
}

/// How good a position is, always for the **first** player.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// The unit of `value`.
    pub unit: EvalUnit,
    /// The value in `unit`, positive when the first player stands better.
    /// When `solved` is set the result is exact and `value` is +1, 0 or -1
    /// (the expected score, for [`EvalUnit::WinProbability`]).
    pub value: f64,
    /// The first player's expected score, 0 (lost) to 1 (won), 0.5 level:
    /// the one scale every game shares, for the bar and for game review.
    pub expected: f64,
    /// The exact result for the first player, when known (a solved game, a
    /// forced mate or win found by the search, a finished position).
    pub solved: Option<Solved>,
}

impl Evaluation {
    /// An exact result for the first player; `unit` is the unit the game
    /// uses otherwise ([`EvalUnit::Solved`] for a solved game).
    pub fn exact(unit: EvalUnit, solved: Solved) -> Evaluation {
        let value = match (unit, solved.result) {
            (EvalUnit::WinProbability, r) => r.expected(),
            (_, GameResult::Win) => 1.0,
            (_, GameResult::Draw) => 0.0,
            (_, GameResult::Loss) => -1.0,
        };
        Evaluation { unit, value, expected: solved.result.expected(), solved: Some(solved) }
    }

    /// A search estimate: `value` in `unit` and the expected score it means.
    pub fn estimate(unit: EvalUnit, value: f64, expected: f64) -> Evaluation {
        Evaluation { unit, value, expected: expected.clamp(0.0, 1.0), solved: None }
    }

    /// The result of a finished game for the first player.
    pub fn of_outcome(unit: EvalUnit, outcome: &Outcome) -> Evaluation {
        let result = match outcome.winner {
            None => GameResult::Draw,
            Some(Player::First) => GameResult::Win,
            Some(Player::Second) => GameResult::Loss,
        };
        Evaluation::exact(unit, Solved { result, plies: 0 })
    }
}

/// One move's value, from the point of view of the **side to move** (who
/// chooses among the moves).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveValue {
    /// The move, in the game's notation (as in `legal_moves`).
    #[serde(rename = "move")]
    pub mv: String,
    /// The move as people write it (SAN for Cumisitha).
    pub display: String,
    /// The exact result the move leads to for the side to move, when known.
    pub solved: Option<Solved>,
    /// The side to move's expected score after the move (0..1), when known.
    pub expected: Option<f64>,
    /// How often a tree search tried it, for the tree searches.
    pub visits: Option<u64>,
}

/// Who is likely to hold each point of the board, from the first player's
/// point of view: +1 surely the first player's, -1 surely the second's, 0
/// nobody's or undecided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Territory {
    /// Points per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// `width * height` values, row by row from the game's first row
    /// (Dots: `owner[(y - 1) * width + (x - 1)]` for point `x-y`).
    pub owner: Vec<f32>,
    /// How many finished playouts the estimate averages.
    pub samples: u64,
    /// What the estimate counts, for people.
    pub method: String,
}

/// What the engine did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SearchInfo {
    /// The deepest full depth searched (alpha-beta), in plies.
    pub depth: Option<u32>,
    /// Nodes visited (alpha-beta).
    pub nodes: Option<u64>,
    /// Playouts run (tree search).
    pub iterations: Option<u64>,
    /// Wall time used, in milliseconds.
    pub time_ms: u64,
}

/// The budget an analysis runs with: the context's deadline, or
/// [`DEFAULT_ANALYSIS_TIME`] from `started` when it has none.
///
/// ```
/// use std::time::{Duration, Instant};
/// use tabula_core::{analysis::analysis_deadline, ThinkContext};
/// let now = Instant::now();
/// let free = ThinkContext::default();
/// assert_eq!(analysis_deadline(&free, now), now + Duration::from_secs(1));
/// let set = ThinkContext { deadline: Some(now + Duration::from_millis(50)), ..ThinkContext::default() };
/// assert_eq!(analysis_deadline(&set, now), now + Duration::from_millis(50));
/// ```
pub fn analysis_deadline(ctx: &crate::ThinkContext, started: Instant) -> Instant {
    ctx.deadline.unwrap_or(started + DEFAULT_ANALYSIS_TIME)
}

/// How long an analysis thinks when the caller sets no deadline.
pub const DEFAULT_ANALYSIS_TIME: Duration = Duration::from_secs(1);

impl Analysis {
    /// An analysis of a position with nothing found yet: no move, and the
    /// evaluation given. Games fill in the rest.
    pub fn new(game: &str, engine: impl Into<String>, to_move: &str, evaluation: Evaluation) -> Analysis {
        Analysis {
            game: game.to_string(),
            engine: engine.into(),
            to_move: to_move.to_string(),
            over: None,
            evaluation,
            best_move: None,
            pv: Vec::new(),
            pv_display: Vec::new(),
            moves: Vec::new(),
            territory: None,
            search: SearchInfo::default(),
            note: None,
            retry: false,
        }
    }

    /// The analysis of a finished game: its result, and nothing to search.
    /// `None` while the game goes on.
    ///
    /// ```
    /// use tabula_core::analysis::{Analysis, EvalUnit, GameResult};
    /// use tabula_core::{Outcome, Player, Status};
    /// let over = Status::Over(Outcome::win(Player::Second, "checkmate"));
    /// let a = Analysis::finished("chess", ["white", "black"], Player::First, over, EvalUnit::Centipawns).unwrap();
    /// assert_eq!(a.over.unwrap().winner.as_deref(), Some("black"));
    /// assert_eq!(a.evaluation.solved.unwrap().result, GameResult::Loss);
    /// assert_eq!(a.evaluation.expected, 0.0);
    /// assert!(a.best_move.is_none());
    /// ```
    pub fn finished(
        game: &str,
        players: [&str; 2],
        to_move: Player,
        status: Status,
        unit: EvalUnit,
    ) -> Option<Analysis> {
        let Status::Over(outcome) = status else { return None };
        let mut a = Analysis::new(game, "the rules", players[to_move.index()], Evaluation::of_outcome(unit, &outcome));
        a.over = Some(GameOver {
            winner: outcome.winner.map(|w| players[w.index()].to_string()),
            reason: outcome.reason.to_string(),
        });
        a.note = Some(format!("the game is over ({})", outcome.reason));
        Some(a)
    }
}

/// `p`'s expected score from the first player's: the same for the first
/// player, mirrored for the second.
pub fn expected_for(p: Player, first: f64) -> f64 {
    match p {
        Player::First => first,
        Player::Second => 1.0 - first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_names_the_fields_the_page_reads() {
        let mut a = Analysis::new("x", "test", "white", Evaluation::estimate(EvalUnit::Centipawns, 35.0, 0.53));
        a.moves.push(MoveValue {
            mv: "e2e4".into(),
            display: "e4".into(),
            solved: Some(Solved { result: GameResult::Win, plies: 3 }),
            expected: None,
            visits: None,
        });
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["evaluation"]["unit"], "centipawns");
        assert_eq!(v["moves"][0]["move"], "e2e4");
        assert_eq!(v["moves"][0]["solved"]["result"], "win");
        assert!(v["territory"].is_null() && v["over"].is_null());
        let back: Analysis = serde_json::from_value(v).unwrap();
        assert_eq!(back, a);
    }

    #[test]
    fn exact_values_are_told_in_the_unit_and_as_a_score() {
        let loss = Evaluation::exact(EvalUnit::Solved, Solved { result: GameResult::Loss, plies: 4 });
        assert_eq!((loss.value, loss.expected), (-1.0, 0.0));
        let draw = Evaluation::exact(EvalUnit::WinProbability, Solved { result: GameResult::Draw, plies: 0 });
        assert_eq!((draw.value, draw.expected), (0.5, 0.5));
        assert_eq!(GameResult::Win.flipped(), GameResult::Loss);
        assert_eq!(expected_for(Player::Second, 0.8), 1.0 - 0.8);
        assert!(Analysis::finished("x", ["a", "b"], Player::First, Status::Ongoing, EvalUnit::Solved).is_none());
        let est = Evaluation::estimate(EvalUnit::Centipieces, 10.0, 1.7);
        assert_eq!(est.expected, 1.0);
    }
}
