//! The static game API.

use crate::error::{MoveError, NotationError, RecordError};
use crate::options::GameOptions;
use rand::rngs::SmallRng;
use rand::Rng;
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One of the two seats. Each game names them (`white`, `blue`, `x`, ...).
///
/// ```
/// use tabula_core::Player;
/// assert_eq!(Player::First.other(), Player::Second);
/// assert_eq!(Player::from_index(Player::Second.index()), Player::Second);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    /// The player who moves first.
    First = 0,
    /// The other player.
    Second = 1,
}

impl Player {
    /// Both players, the first first.
    pub const BOTH: [Player; 2] = [Player::First, Player::Second];

    /// 0 for the first player, 1 for the second: an index into per-player arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
    /// The opponent.
    #[inline]
    pub fn other(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }
    /// The player of an index: 0 is the first, anything else the second.
    #[inline]
    pub fn from_index(i: usize) -> Player {
        if i == 0 {
            Player::First
        } else {
            Player::Second
        }
    }
}

/// How a finished game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// `None` is a draw.
    pub winner: Option<Player>,
    /// Short, lower-case, e.g. `"checkmate"`, `"threefold repetition"`.
    pub reason: &'static str,
}

impl Outcome {
    /// `winner` won, for `reason`.
    pub fn win(winner: Player, reason: &'static str) -> Self {
        Outcome { winner: Some(winner), reason }
    }
    /// A draw, for `reason`.
    pub fn draw(reason: &'static str) -> Self {
        Outcome { winner: None, reason }
    }
    /// OpenSpiel-style returns: +1 win, -1 loss, 0 draw.
    pub fn returns(&self) -> [f64; 2] {
        match self.winner {
            None => [0.0, 0.0],
            Some(Player::First) => [1.0, -1.0],
            Some(Player::Second) => [-1.0, 1.0],
        }
    }
    /// The result for `p` on a 0..1 scale (1 win, 0.5 draw, 0 loss).
    pub fn score_for(&self, p: Player) -> f64 {
        match self.winner {
            None => 0.5,
            Some(w) if w == p => 1.0,
            Some(_) => 0.0,
        }
    }
}

/// Whether the game goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The game goes on.
    Ongoing,
    /// The game is over, with this outcome.
    Over(Outcome),
}

impl Status {
    /// Whether the game is over.
    #[inline]
    pub fn is_over(&self) -> bool {
        matches!(self, Status::Over(_))
    }
    /// The outcome of a finished game.
    pub fn outcome(&self) -> Option<Outcome> {
        match self {
            Status::Ongoing => None,
            Status::Over(o) => Some(*o),
        }
    }
}

/// A game's rules and notation: the tight core type every engine works on.
///
/// A value is one position together with whatever history the rules need
/// (repetition counts, move counters). `Clone` must be cheap enough to copy
/// a state at every MCTS iteration; implement `clone_from` to reuse buffers.
///
/// The examples use tic-tac-toe ([`crate::example::TicTacToe`]): cells 0 to
/// 8, row by row.
///
/// ```
/// use tabula_core::{example::TicTacToe, Game, NoOptions, Player, Status};
/// let mut g = TicTacToe::new(&NoOptions);
/// for text in ["0", "3", "1", "4", "2"] {
///     let mv = g.check_move(text).unwrap();
///     g.play(mv);
/// }
/// assert_eq!(g.status().outcome().unwrap().winner, Some(Player::First));
/// ```
pub trait Game: Clone + Debug + Send + Sync + 'static {
    /// A move: small and `Copy`, so move lists are flat arrays.
    type Move: Copy + Eq + Hash + Debug + Send + Sync + 'static;
    /// The game's options ([`NoOptions`](crate::NoOptions) for none).
    type Options: GameOptions;

    /// Registry id: `coldwar`, `dots`, ...
    const ID: &'static str;
    /// Display name.
    const NAME: &'static str;
    /// Player names, first player first, e.g. `["white", "black"]`.
    const PLAYERS: [&'static str; 2];

    /// The start position.
    fn new(options: &Self::Options) -> Self;
    /// A position in the game's notation. Games without a position notation
    /// return an error saying so.
    ///
    /// ```
    /// use tabula_core::{example::TicTacToe, Game, NoOptions, Player};
    /// let g = TicTacToe::from_position("xx.oo....", &NoOptions).unwrap();
    /// assert_eq!(g.to_move(), Player::First);
    /// assert_eq!(g.position().unwrap(), "xx.oo....");
    /// assert!(TicTacToe::from_position("xx", &NoOptions).is_err());
    /// ```
    fn from_position(position: &str, options: &Self::Options) -> Result<Self, NotationError>;
    /// The position in the game's notation, or `None` where it has none.
    fn position(&self) -> Option<String>;
    /// The options the game was started with.
    fn options(&self) -> &Self::Options;

    /// The player to move (in a finished game, the one who would be).
    fn to_move(&self) -> Player;
    /// Clear `out` and write every legal move into it (none when over).
    ///
    /// ```
    /// use tabula_core::{example::TicTacToe, Game, NoOptions};
    /// let g = TicTacToe::from_position("xx.oo.xoo", &NoOptions).unwrap();
    /// let mut moves = Vec::new();
    /// g.legal_moves(&mut moves);
    /// assert_eq!(moves, [2, 5]);
    /// ```
    fn legal_moves(&self, out: &mut Vec<Self::Move>);
    /// Apply a legal move. Behaviour for an illegal move is unspecified but
    /// must not be undefined: callers check with [`Game::check_move`].
    ///
    /// ```
    /// use tabula_core::{example::TicTacToe, Game, NoOptions, Player};
    /// let mut g = TicTacToe::new(&NoOptions);
    /// g.play(4);
    /// assert_eq!((g.plies(), g.to_move()), (1, Player::Second));
    /// assert_eq!(g.hash(), g.hash_from_scratch());
    /// ```
    fn play(&mut self, mv: Self::Move);
    /// Whether the game goes on, and if not how it ended.
    fn status(&self) -> Status;
    /// Plies played in this game (from the start or a loaded position).
    fn plies(&self) -> u32;

    /// A 64-bit hash of the position (not the history), kept incrementally.
    fn hash(&self) -> u64;
    /// The same hash computed from scratch, to test the incremental one.
    fn hash_from_scratch(&self) -> u64;

    /// Read a move in the game's notation. It need not be legal.
    fn parse_move(&self, text: &str) -> Result<Self::Move, NotationError>;
    /// Write a move in the game's notation.
    fn format_move(&self, mv: Self::Move) -> String;

    /// The score by player, for games that keep one.
    fn score(&self) -> Option<[i32; 2]> {
        None
    }

    /// Say why a well-formed move is illegal here. Called only for moves
    /// that are not in `legal_moves`; games override it to explain more.
    fn explain_illegal(&self, _mv: Self::Move) -> String {
        "not a legal move in this position".to_string()
    }

    /// Read a move and check it is legal, with a reason when it is not.
    ///
    /// ```
    /// use tabula_core::{example::TicTacToe, Game, MoveErrorKind, NoOptions};
    /// let g = TicTacToe::from_position("x........", &NoOptions).unwrap();
    /// assert_eq!(g.check_move("4"), Ok(4));
    /// assert_eq!(g.check_move("0").unwrap_err().kind, MoveErrorKind::Illegal);
    /// let e = g.check_move("9").unwrap_err();
    /// assert_eq!(e.to_string(), "malformed move '9': '9' is not a cell: write a number from 0 to 8");
    /// ```
    fn check_move(&self, text: &str) -> Result<Self::Move, MoveError> {
        if let Status::Over(o) = self.status() {
            return Err(MoveError::game_over(text, format!("the game is over ({})", o.reason)));
        }
        let mv = self.parse_move(text).map_err(|e| MoveError::malformed(text, e.message))?;
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        if moves.contains(&mv) {
            Ok(mv)
        } else {
            Err(MoveError::illegal(text, self.explain_illegal(mv)))
        }
    }

    /// Play uniformly random legal moves until the game ends or `max_plies`
    /// plies were played; returns the plies played. The default generates
    /// every legal move each ply; games override it when they can pick a
    /// random move faster. `moves` is a reusable buffer, so a playout
    /// allocates nothing once it has grown.
    fn random_playout(&mut self, rng: &mut SmallRng, moves: &mut Vec<Self::Move>, max_plies: u32) -> u32 {
        let mut n = 0;
        while n < max_plies && !self.status().is_over() {
            self.legal_moves(moves);
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.random_range(0..moves.len())];
            self.play(m);
            n += 1;
        }
        n
    }

    /// The winner when a match clock runs out, by the game's tie-breaker;
    /// `None` when level. Games without a tie-breaker compare scores.
    fn tiebreak(&self) -> Option<Player> {
        match self.score() {
            Some([a, b]) if a > b => Some(Player::First),
            Some([a, b]) if b > a => Some(Player::Second),
            _ => None,
        }
    }
}

/// How hard an agent may think for one move.
#[derive(Debug, Clone, Default)]
pub struct ThinkContext {
    /// The agent's own remaining clock time, if a clock runs.
    pub remaining: Option<Duration>,
    /// Its increment per move.
    pub increment: Option<Duration>,
    /// A hard limit for this move, e.g. a shot clock.
    pub deadline: Option<Instant>,
    /// Set from outside to stop at once (UCI `stop`, server shutdown).
    pub stop: Option<Arc<AtomicBool>>,
    /// How many threads the agent may think with; 0 and 1 both mean one.
    /// Agents that cannot use more ignore it.
    pub threads: usize,
}

/// The most threads an agent thinks with, whatever it is given.
pub const MAX_THREADS: usize = 64;

impl ThinkContext {
    /// The threads to think with: [`ThinkContext::threads`], at least one
    /// and at most [`MAX_THREADS`].
    ///
    /// ```
    /// use tabula_core::ThinkContext;
    /// assert_eq!(ThinkContext::default().thread_count(), 1);
    /// assert_eq!(ThinkContext { threads: 1000, ..ThinkContext::default() }.thread_count(), 64);
    /// ```
    pub fn thread_count(&self) -> usize {
        self.threads.clamp(1, MAX_THREADS)
    }

    /// Whether someone asked the agent to stop at once.
    pub fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// When a search that started at `started` with a time budget of
    /// `budget` must stop: the budget capped by [`ThinkContext::cap`], or,
    /// without a budget, whatever the clock or the deadline allows; `None`
    /// when nothing limits the time.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use tabula_core::ThinkContext;
    /// let now = Instant::now();
    /// let free = ThinkContext::default();
    /// assert_eq!(free.deadline_for(Some(Duration::from_secs(1)), now), Some(now + Duration::from_secs(1)));
    /// assert_eq!(free.deadline_for(None, now), None);
    /// ```
    pub fn deadline_for(&self, budget: Option<Duration>, started: Instant) -> Option<Instant> {
        let clocked = self.remaining.is_some() || self.deadline.is_some();
        let budget = budget.or(clocked.then_some(Duration::from_secs(3600)))?;
        Some(started + self.cap(budget))
    }

    /// The time an agent with budget `wanted` may spend now: never more
    /// than a safe share of its clock or the deadline allows.
    pub fn cap(&self, wanted: Duration) -> Duration {
        let mut t = wanted;
        if let Some(rem) = self.remaining {
            // Keep a reserve so that a slow move never loses on time.
            let share = rem / 20 + self.increment.unwrap_or_default() / 2;
            t = t.min(share.max(Duration::from_millis(10)));
        }
        if let Some(d) = self.deadline {
            let left = d.saturating_duration_since(Instant::now());
            t = t.min(left.mul_f64(0.8));
        }
        t
    }
}

/// Something that picks moves: random play, MCTS, alpha-beta, a solver.
pub trait Agent<G: Game>: Send {
    /// Pick a legal move. `state` is ongoing.
    fn choose(&mut self, state: &G, ctx: &ThinkContext) -> G::Move;
    /// A short description, e.g. `"mcts 20000 iterations"`.
    fn describe(&self) -> String;
}

/// An AI level as shown to users.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LevelSpec {
    /// The level's name, e.g. `medium` or `perfect`.
    pub id: String,
    /// What it does, for a person.
    pub description: String,
    /// Its rating on the game's own Elo scale, where the game's `random`
    /// level is 0: the maximum-likelihood ratings of a `tabula tournament`
    /// round-robin of the levels, kept in the source with the table they
    /// come from (the game's rules page). `None` until measured.
    pub elo: Option<i32>,
}

impl LevelSpec {
    /// A level named `id`, not yet rated.
    ///
    /// ```
    /// use tabula_core::LevelSpec;
    ///
    /// let level = LevelSpec::new("easy", "MCTS, 300 playouts");
    /// assert_eq!((level.id.as_str(), level.elo), ("easy", None));
    /// ```
    pub fn new(id: impl Into<String>, description: impl Into<String>) -> Self {
        LevelSpec { id: id.into(), description: description.into(), elo: None }
    }

    /// The level with its measured rating (see [`LevelSpec::elo`]).
    ///
    /// ```
    /// use tabula_core::LevelSpec;
    ///
    /// let level = LevelSpec::new("easy", "MCTS, 300 playouts").with_elo(420);
    /// assert_eq!(level.elo, Some(420));
    /// ```
    pub fn with_elo(mut self, elo: i32) -> Self {
        self.elo = Some(elo);
        self
    }

    /// The levels with their measured ratings, `(id, elo)`, set by id;
    /// a level without an entry stays unrated.
    ///
    /// ```
    /// use tabula_core::LevelSpec;
    ///
    /// let levels = vec![LevelSpec::new("random", ""), LevelSpec::new("easy", "")];
    /// let rated = LevelSpec::rated(levels, &[("random", 0)]);
    /// assert_eq!((rated[0].elo, rated[1].elo), (Some(0), None));
    /// ```
    pub fn rated(levels: Vec<LevelSpec>, ratings: &[(&str, i32)]) -> Vec<LevelSpec> {
        levels
            .into_iter()
            .map(|level| match ratings.iter().find(|(id, _)| *id == level.id) {
                Some(&(_, elo)) => level.with_elo(elo),
                None => level,
            })
            .collect()
    }
}

/// What the registry and the front ends need beyond the rules: a
/// description, AI levels, a JSON view for the browser, a terminal picture,
/// and record formats.
pub trait GameMeta: Game {
    /// One sentence for `tabula games`.
    const DESCRIPTION: &'static str;

    /// The AI levels, weakest first.
    fn levels() -> Vec<LevelSpec>;
    /// The level used when none is named.
    fn default_level() -> &'static str;
    /// Make an agent for a level; `None` for an unknown level.
    fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Self>>>;
    /// The parametrised AI specs [`GameMeta::new_agent`] takes besides the
    /// levels (`uct:MS`, a search at any time a move, ...), written as the
    /// help and error messages show them. None by default.
    fn level_forms() -> &'static [&'static str] {
        &[]
    }

    /// Game-specific data for UIs (the board and anything to draw).
    fn view(&self) -> serde_json::Value;
    /// The board for a terminal, with ANSI colours when `color`.
    fn render_text(&self, color: bool) -> String;

    /// The time control this game's options call for (Cordots' match
    /// modes), or `None` to leave it to the players.
    fn time_control(&self) -> Option<crate::clock::TimeControl> {
        None
    }

    /// Which record format `export`/`import` use: `pgn`, `sgf` or `txt`.
    fn record_format() -> &'static str {
        "txt"
    }
    /// Write a finished or unfinished game as a record.
    fn export(log: &crate::record::GameLog) -> Result<String, RecordError> {
        crate::record::export_text::<Self>(log)
    }
    /// Read every game in a record file and replay it.
    fn import(text: &str) -> Result<Vec<crate::record::Replayed<Self>>, RecordError> {
        crate::record::import_text::<Self>(text)
    }

    /// Commands this game adds to `tabula` (Cold War's `solve`,
    /// Cumisitha's `perft`); none by default.
    fn tools() -> &'static [crate::tool::Tool] {
        &[]
    }

    /// A legal move as people write it in this position (before it is
    /// played): SAN for Cumisitha. The default is the game's own notation.
    fn display_move(&self, mv: Self::Move) -> String {
        self.format_move(mv)
    }

    /// What the game's engine says about this position (see
    /// [`crate::analysis`]): the same engine as its AI levels, thinking
    /// until `ctx.deadline` (or [`crate::analysis::DEFAULT_ANALYSIS_TIME`]
    /// without one) and stopping at once when `ctx.stop` is set. It must
    /// return by the deadline, and a finished position is answered with its
    /// result, not an error. Games without an analysis engine say so.
    fn analyse(&self, _ctx: &ThinkContext) -> Result<crate::analysis::Analysis, crate::TabulaError> {
        Err(crate::TabulaError::Unsupported(format!("{} has no analysis engine", Self::NAME)))
    }
}
