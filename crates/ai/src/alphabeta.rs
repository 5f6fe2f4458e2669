//! Generic alpha-beta: principal-variation search with iterative
//! deepening, a transposition table, killer and history move ordering, and
//! an optional quiescence search. What a game knows (its evaluation, how to
//! order its moves, which moves are noisy, its own table key) comes through
//! the [`Evaluator`] hooks, so every game uses this one search.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tabula_core::{Agent, Game, Status, ThinkContext};

/// Scores at or beyond `WIN - MAX_PLY` are forced results (`WIN - plies`).
pub const WIN: i32 = 1_000_000;
const INF: i32 = WIN + 1;
/// The deepest ply the search reaches (nominal depth plus quiescence).
pub const MAX_PLY: usize = 128;
/// Noisy moves searched past the nominal depth, at most.
const MAX_QDEPTH: u32 = 12;
/// Scores this close to [`WIN`] are forced results.
const FORCED: i32 = WIN - MAX_PLY as i32 * 4;

/// Late move reductions start at this nominal depth...
const LMR_MIN_DEPTH: u32 = 3;
/// ...and with the move at this index of the ordered list.
const LMR_FIRST_MOVE: usize = 3;

/// How many plies shallower the `index`th move (0-based, in search order)
/// of a node at `depth` is searched first: one, two for the long tail of
/// a deep node. Never below the quiescence search (`depth - 1`).
fn late_move_reduction(depth: u32, index: usize) -> u32 {
    let r = if depth >= 6 && index >= 8 { 2 } else { 1 };
    r.min(depth - 1)
}

/// Null-move pruning starts at this nominal depth.
const NULL_MOVE_MIN_DEPTH: u32 = 3;

/// How much shallower the search after a pass is than a move's (beyond
/// the ply the pass itself takes): 2, 3 from depth 7.
fn null_move_reduction(depth: u32) -> u32 {
    let r = if depth >= 7 { 3 } else { 2 };
    r.min(depth - 1)
}

/// What the search knows of the position when it orders moves.
#[derive(Debug, Clone, Copy)]
pub struct OrderHints<'a, M> {
    /// The best move the transposition table remembers here.
    pub tt_move: Option<M>,
    /// Quiet moves that cut off at this ply elsewhere, the latest first.
    pub killers: [Option<M>; 2],
    /// Cut-off counts of the side to move, by [`Evaluator::history_slot`].
    pub history: &'a [i32],
}

impl<M: Copy + PartialEq> OrderHints<'_, M> {
    /// The standard ordering key (lower first): the table move, then the
    /// killers, then quiet moves by how often they cut off (`slot`).
    pub fn key(&self, mv: M, slot: Option<usize>) -> i32 {
        if Some(mv) == self.tt_move {
            i32::MIN
        } else if Some(mv) == self.killers[0] {
            -900_000_000
        } else if Some(mv) == self.killers[1] {
            -899_999_999
        } else {
            -slot.and_then(|s| self.history.get(s)).copied().unwrap_or(0).min(800_000_000)
        }
    }
}

/// A game's knowledge for alpha-beta. Only [`Evaluator::evaluate`] is
/// required; the other hooks make the search stronger where the game can
/// say more.
pub trait Evaluator<G: Game>: Send + Clone {
    /// Whether the game has a quiescence search ([`Evaluator::stand_pat`]
    /// and [`Evaluator::noisy_moves`]).
    const QUIESCENCE: bool = false;
    /// How many history slots [`Evaluator::history_slot`] uses (per side).
    const HISTORY_SLOTS: usize = 0;

    /// The static evaluation from the side to move's point of view:
    /// positive is good for it. Keep well inside ±`WIN/2`.
    fn evaluate(&mut self, state: &G) -> i32;

    /// The transposition table's key; the position's hash by default.
    /// Games whose positions are worth more or less by something beyond the
    /// position (Cordots near its ply cap) mix that in.
    fn key(&self, state: &G) -> u64 {
        state.hash()
    }

    /// Put the most promising moves first. The default orders by
    /// [`OrderHints::key`].
    fn order(&mut self, _state: &G, moves: &mut [G::Move], hints: &OrderHints<G::Move>) {
        moves.sort_by_cached_key(|&m| hints.key(m, self.history_slot(m)));
    }

    /// Whether a move is quiet (no capture): quiet moves that cut off
    /// become killers and earn history.
    fn is_quiet(&self, _state: &G, _mv: G::Move) -> bool {
        true
    }

    /// The history slot of a move, below [`Evaluator::HISTORY_SLOTS`].
    fn history_slot(&self, _mv: G::Move) -> Option<usize> {
        None
    }

    /// A position the search scores as a draw although the rules play on
    /// (e.g. one seen before, which can be repeated again).
    fn is_search_draw(&self, _state: &G) -> bool {
        false
    }

    /// The score of standing pat in the quiescence search: the evaluation
    /// without the side to move's noisy chances, which are searched instead.
    fn stand_pat(&mut self, state: &G) -> i32 {
        self.evaluate(state)
    }

    /// Pass: give the move in `state` to the opponent without moving, for
    /// null-move pruning, and return true; or return false where the game
    /// has no such thing or where passing would mislead the search (few
    /// pieces left, where having to move can be a burden). The default
    /// never passes.
    fn pass(&self, _state: &mut G) -> bool {
        false
    }

    /// Keep only the noisy moves of `moves` (the legal moves) that the
    /// quiescence search plays, best first.
    fn noisy_moves(&mut self, _state: &G, moves: &mut Vec<G::Move>) {
        moves.clear();
    }
}

/// How an [`AlphaBeta`] search is budgeted.
#[derive(Debug, Clone)]
pub struct AlphaBetaConfig {
    /// The deepest nominal depth.
    pub max_depth: u32,
    /// Thinking time per move (capped by the clock).
    pub time: Option<Duration>,
    /// Stop after this many nodes.
    pub max_nodes: Option<u64>,
    /// The table has `1 << tt_bits` entries.
    pub tt_bits: u32,
    /// Search noisy moves past the nominal depth, for games that have a
    /// quiescence search ([`Evaluator::QUIESCENCE`]).
    pub quiescence: bool,
    /// Late move reductions: quiet moves that come late in the order (not
    /// the table move, a killer or one of the first few) are searched a ply
    /// or two shallower first, and again at full depth only when that
    /// shallow search finds them better than the best so far.
    pub late_move_reductions: bool,
    /// Null-move pruning, for games whose [`Evaluator::pass`] passes: where
    /// the side to move stands at or above beta, a search after a pass, a
    /// few plies shallower, that still holds beta cuts the node off.
    pub null_move: bool,
    /// What a draw costs the side the search plays for, in evaluation
    /// units: above zero it avoids repetitions and level endings while it
    /// is not worse by more than this, and seeks them only when it is.
    pub contempt: i32,
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig {
            max_depth: 64,
            time: Some(Duration::from_secs(1)),
            max_nodes: None,
            tt_bits: 18,
            quiescence: true,
            late_move_reductions: true,
            null_move: true,
            contempt: 0,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy)]
struct TtEntry<M> {
    key: u64,
    best: Option<M>,
    score: i32,
    depth: u8,
    bound: Bound,
}

impl<M> Default for TtEntry<M> {
    fn default() -> Self {
        TtEntry { key: 0, best: None, score: 0, depth: 0, bound: Bound::Exact }
    }
}

/// What the last search found.
#[derive(Debug, Clone, Default)]
pub struct AbStats {
    /// The deepest depth finished.
    pub depth: u32,
    /// Its score for the side to move.
    pub score: i32,
    /// Nodes visited.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

/// A forced result `ply` plies from the root, made relative to the node
/// for the table (and back), so it stays right wherever it is found.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= FORCED {
        score + ply as i32
    } else if score <= -FORCED {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= FORCED {
        score - ply as i32
    } else if score <= -FORCED {
        score + ply as i32
    } else {
        score
    }
}

/// One table slot behind a one-byte try-lock. A `Mutex` would do, but its
/// lock, unlock and poison check cost a single-threaded search about a
/// tenth of its speed; this costs one compare-and-swap and one store.
struct Slot<M> {
    busy: AtomicBool,
    entry: UnsafeCell<TtEntry<M>>,
}

// SAFETY: `entry` is only read or written by the thread that has just set
// `busy` from false to true (Acquire), and that thread clears it (Release)
// when done, so no two threads ever touch `entry` at once.
unsafe impl<M: Send> Sync for Slot<M> {}

/// The transposition table, shared by the threads of a search. Each slot
/// has its own lock, only ever tried: a slot another thread holds reads as
/// a miss and is not written, so no thread waits for another.
struct Table<M> {
    slots: Box<[Slot<M>]>,
}

impl<M: Copy> Table<M> {
    fn new(bits: u32) -> Self {
        let slot = |_| Slot { busy: AtomicBool::new(false), entry: UnsafeCell::new(TtEntry::default()) };
        Table { slots: (0..1usize << bits).map(slot).collect() }
    }

    /// Runs `f` on the slot for `key`, unless another thread holds it.
    fn with_slot<R>(&self, key: u64, f: impl FnOnce(&mut TtEntry<M>) -> R) -> Option<R> {
        let slot = &self.slots[(key as usize) & (self.slots.len() - 1)];
        if slot.busy.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            return None;
        }
        // SAFETY: this thread holds `busy` (see `Slot`); `f` cannot panic
        // half-way through a write of a `Copy` entry, and the flag is
        // cleared whatever it returns.
        let r = f(unsafe { &mut *slot.entry.get() });
        slot.busy.store(false, Ordering::Release);
        Some(r)
    }

    /// The entry for `key`, if the table holds it.
    fn probe(&self, key: u64) -> Option<TtEntry<M>> {
        self.with_slot(key, |e| *e).filter(|e| e.key == key)
    }

    fn store(&self, e: TtEntry<M>) {
        self.with_slot(e.key, |slot| *slot = e);
    }
}

/// What one thread of a search owns: the evaluation, killers, history and
/// buffers. The table is shared.
struct Searcher<G: Game, E> {
    eval: E,
    killers: Vec<[Option<G::Move>; 2]>,
    /// `[side * HISTORY_SLOTS + slot]` cut-off counts.
    history: Vec<i32>,
    buffers: Vec<Vec<G::Move>>,
    /// Spare states, so a child costs a `clone_from`, not an allocation.
    children: Vec<G>,
    nodes: u64,
    aborted: bool,
    /// The best move at the root of the last depth searched.
    root_best: Option<G::Move>,
    /// Whether the move into each ply was a pass (two in a row prove nothing).
    passed: Vec<bool>,
}

/// The deepest depth any thread of a search has finished, with its score
/// and best move: the search's answer so far.
#[derive(Clone, Copy)]
struct Finished<M> {
    depth: u32,
    score: i32,
    best: Option<M>,
}

/// What the threads of one search share.
struct Shared<'a, M> {
    tt: &'a Table<M>,
    ctx: &'a ThinkContext,
    deadline: Option<Instant>,
    max_nodes: Option<u64>,
    quiescence: bool,
    late_move_reductions: bool,
    null_move: bool,
    /// The side the search chooses a move for, and what a draw costs it.
    root: tabula_core::Player,
    contempt: i32,
    /// Set when the main thread is done, so the helpers stop too.
    stop: AtomicBool,
    finished: Mutex<Finished<M>>,
}

impl<M> Shared<'_, M> {
    /// A draw's score for the side to move in `state`: below zero for the
    /// side the search plays for by the contempt, above zero for the other.
    fn draw_score<G: Game>(&self, state: &G) -> i32 {
        if state.to_move() == self.root {
            -self.contempt
        } else {
            self.contempt
        }
    }
}

impl<M: Copy> Shared<'_, M> {
    /// Records a finished depth; returns the deepest finished so far.
    fn finish(&self, depth: u32, score: i32, best: Option<M>) -> u32 {
        let mut f = self.finished.lock().unwrap_or_else(|p| p.into_inner());
        if depth > f.depth {
            *f = Finished { depth, score, best };
        }
        f.depth
    }
}

/// Negamax alpha-beta with iterative deepening, principal-variation search,
/// a transposition table, killers and history, and an optional quiescence
/// search, over any game with an [`Evaluator`].
///
/// Given more than one thread ([`ThinkContext::threads`]), it runs Lazy
/// SMP: helper threads search the same position at once, staggered in
/// depth, and share what they find through the table; the calling thread's
/// result is the answer.
pub struct AlphaBeta<G: Game, E: Evaluator<G>> {
    /// The budget.
    pub config: AlphaBetaConfig,
    tt: Table<G::Move>,
    main: Searcher<G, E>,
    helpers: Vec<Searcher<G, E>>,
    /// What the last search found.
    pub stats: AbStats,
}

impl<G: Game, E: Evaluator<G>> AlphaBeta<G, E> {
    /// A search with this budget and evaluation.
    pub fn new(config: AlphaBetaConfig, eval: E) -> Self {
        let tt = Table::new(config.tt_bits);
        AlphaBeta { config, tt, main: Searcher::new(eval), helpers: Vec::new(), stats: AbStats::default() }
    }

    /// The game's knowledge (the calling thread's copy).
    pub fn eval(&self) -> &E {
        &self.main.eval
    }
}

impl<G: Game, E: Evaluator<G>> Searcher<G, E> {
    fn new(eval: E) -> Self {
        Searcher {
            eval,
            killers: vec![[None; 2]; MAX_PLY],
            history: vec![0; 2 * E::HISTORY_SLOTS],
            buffers: Vec::new(),
            children: Vec::new(),
            nodes: 0,
            aborted: false,
            root_best: None,
            passed: vec![false; MAX_PLY + 1],
        }
    }

    fn out_of_budget(&mut self, sh: &Shared<'_, G::Move>) -> bool {
        // Checked on the first node too, so a search asked to stop finishes no depth.
        if !self.aborted && self.nodes & 1023 == 1 {
            let late = sh.deadline.is_some_and(|d| Instant::now() >= d);
            let too_many = sh.max_nodes.is_some_and(|n| self.nodes >= n);
            if late || too_many || sh.ctx.stopped() || sh.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            }
        }
        self.aborted
    }

    fn terminal(state: &G, ply: usize, sh: &Shared<'_, G::Move>) -> Option<i32> {
        match state.status() {
            Status::Ongoing => None,
            Status::Over(o) => Some(match o.winner {
                None => sh.draw_score(state),
                Some(w) if w == state.to_move() => WIN - ply as i32,
                Some(_) => -(WIN - ply as i32),
            }),
        }
    }

    fn take_buffer(&mut self, ply: usize) -> Vec<G::Move> {
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, Vec::new);
        }
        std::mem::take(&mut self.buffers[ply])
    }

    /// A copy of `state` in a spare state when there is one. Give it back
    /// to `children` when done with it.
    fn copy_of(&mut self, state: &G) -> G {
        match self.children.pop() {
            Some(mut c) => {
                c.clone_from(state);
                c
            }
            None => state.clone(),
        }
    }

    fn child(&mut self, state: &G, mv: G::Move) -> G {
        let mut c = self.copy_of(state);
        c.play(mv);
        c
    }

    fn quiesce(
        &mut self,
        state: &G,
        ply: usize,
        qdepth: u32,
        mut alpha: i32,
        beta: i32,
        sh: &Shared<'_, G::Move>,
    ) -> i32 {
        self.nodes += 1;
        if let Some(t) = Self::terminal(state, ply, sh) {
            return t;
        }
        if self.out_of_budget(sh) {
            return 0;
        }
        let stand = self.eval.stand_pat(state);
        if stand >= beta || qdepth >= MAX_QDEPTH || ply + 1 >= MAX_PLY {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut best = stand;
        let mut moves = self.take_buffer(ply);
        state.legal_moves(&mut moves);
        self.eval.noisy_moves(state, &mut moves);
        for &m in &moves {
            let child = self.child(state, m);
            let score = -self.quiesce(&child, ply + 1, qdepth + 1, -beta, -alpha, sh);
            self.children.push(child);
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.buffers[ply] = moves;
        best
    }

    fn negamax(
        &mut self,
        state: &G,
        depth: u32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        sh: &Shared<'_, G::Move>,
    ) -> i32 {
        if let Some(t) = Self::terminal(state, ply, sh) {
            self.nodes += 1;
            return t;
        }
        if depth == 0 || ply + 1 >= MAX_PLY {
            return if E::QUIESCENCE && sh.quiescence {
                self.quiesce(state, ply, 0, alpha, beta, sh)
            } else {
                self.nodes += 1;
                self.eval.evaluate(state)
            };
        }
        self.nodes += 1;
        if self.out_of_budget(sh) {
            return 0;
        }
        if ply > 0 && self.eval.is_search_draw(state) {
            return sh.draw_score(state);
        }
        let key = self.eval.key(state);
        let mut tt_move = None;
        if let Some(e) = sh.tt.probe(key) {
            tt_move = e.best;
            if e.depth as u32 >= depth && ply > 0 {
                let s = from_tt(e.score, ply);
                match e.bound {
                    Bound::Exact => return s,
                    Bound::Lower if s >= beta => return s,
                    Bound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        if sh.null_move
            && ply > 0
            && depth >= NULL_MOVE_MIN_DEPTH
            && !self.passed[ply]
            && beta.abs() < FORCED
            && self.eval.evaluate(state) >= beta
        {
            let mut child = self.copy_of(state);
            if self.eval.pass(&mut child) {
                self.passed[ply + 1] = true;
                let reduced = depth - 1 - null_move_reduction(depth);
                let score = -self.negamax(&child, reduced, ply + 1, -beta, -beta + 1, sh);
                self.passed[ply + 1] = false;
                self.children.push(child);
                if self.aborted {
                    return 0;
                }
                if score >= beta {
                    // A forced win found after a pass is not proven.
                    return if score >= FORCED { beta } else { score };
                }
            } else {
                self.children.push(child);
            }
        }
        let mut moves = self.take_buffer(ply);
        state.legal_moves(&mut moves);
        let side = state.to_move().index();
        let history = &self.history[side * E::HISTORY_SLOTS..(side + 1) * E::HISTORY_SLOTS];
        let killers = self.killers[ply];
        let hints = OrderHints { tt_move, killers, history };
        self.eval.order(state, &mut moves, &hints);
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        let may_reduce = sh.late_move_reductions && ply > 0 && depth >= LMR_MIN_DEPTH;
        for (i, &m) in moves.iter().enumerate() {
            let child = self.child(state, m);
            let score = if i == 0 {
                -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha, sh)
            } else {
                let reduction = if may_reduce
                    && i >= LMR_FIRST_MOVE
                    && Some(m) != tt_move
                    && !killers.contains(&Some(m))
                    && self.eval.is_quiet(state, m)
                {
                    late_move_reduction(depth, i)
                } else {
                    0
                };
                // A null window first: most moves only need proving worse;
                // a late quiet move is tried shallower before that.
                let mut s = -self.negamax(&child, depth - 1 - reduction, ply + 1, -alpha - 1, -alpha, sh);
                if reduction > 0 && s > alpha && !self.aborted {
                    s = -self.negamax(&child, depth - 1, ply + 1, -alpha - 1, -alpha, sh);
                }
                if s > alpha && s < beta && !self.aborted {
                    -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha, sh)
                } else {
                    s
                }
            };
            self.children.push(child);
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                best_move = Some(m);
                if ply == 0 {
                    self.root_best = best_move;
                }
                if score > alpha {
                    alpha = score;
                }
                if alpha >= beta {
                    if self.eval.is_quiet(state, m) {
                        let killers = &mut self.killers[ply];
                        if killers[0] != Some(m) {
                            killers[1] = killers[0];
                            killers[0] = Some(m);
                        }
                        if let Some(slot) = self.eval.history_slot(m) {
                            self.history[side * E::HISTORY_SLOTS + slot] += (depth * depth) as i32;
                        }
                    }
                    break;
                }
            }
        }
        self.buffers[ply] = moves;
        if !self.aborted {
            let bound = if best <= alpha0 {
                Bound::Upper
            } else if best >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            sh.tt.store(TtEntry { key, best: best_move, score: to_tt(best, ply), depth: depth.min(255) as u8, bound });
        }
        best
    }

    /// Iterative deepening from `first` depth up, until the budget, the
    /// stop flag or a forced result ends it. Each depth finished goes to
    /// the shared record, and a depth another thread has already finished
    /// is skipped: the table holds its results, so this thread goes deeper.
    fn deepen(&mut self, state: &G, first: u32, max_depth: u32, sh: &Shared<'_, G::Move>) {
        self.nodes = 0;
        self.aborted = false;
        self.killers.fill([None; 2]);
        for h in self.history.iter_mut() {
            *h /= 8;
        }
        let mut depth = first;
        while depth <= max_depth {
            self.root_best = None;
            let score = self.negamax(state, depth, 0, -INF, INF, sh);
            if self.aborted {
                break;
            }
            let deepest = sh.finish(depth, score, self.root_best);
            if score.abs() >= FORCED {
                sh.stop.store(true, Ordering::Relaxed);
                break; // a forced result
            }
            depth = depth.max(deepest) + 1;
        }
    }
}

impl<G: Game, E: Evaluator<G>> AlphaBeta<G, E> {
    /// Search with iterative deepening; returns the best move of the
    /// deepest depth searched to the end (a depth cut short by the budget
    /// is thrown away). `state` is ongoing.
    ///
    /// ```
    /// use tabula_ai::{AlphaBeta, AlphaBetaConfig, Evaluator};
    /// use tabula_core::{example::TicTacToe, Game, NoOptions, ThinkContext};
    /// // No knowledge at all: the search alone finds the block on cell 2.
    /// #[derive(Clone)]
    /// struct Blind;
    /// impl Evaluator<TicTacToe> for Blind {
    ///     fn evaluate(&mut self, _: &TicTacToe) -> i32 {
    ///         0
    ///     }
    /// }
    /// let g = TicTacToe::from_position("xx..o....", &NoOptions).unwrap();
    /// let config = AlphaBetaConfig { time: None, ..AlphaBetaConfig::default() };
    /// let mut ai = AlphaBeta::new(config, Blind);
    /// assert_eq!(ai.search(&g, &ThinkContext::default()), 2);
    /// ```
    pub fn search(&mut self, state: &G, ctx: &ThinkContext) -> G::Move {
        let started = Instant::now();
        let mut moves = Vec::new();
        state.legal_moves(&mut moves);
        let mut best = moves[0];
        self.stats = AbStats::default();
        if moves.len() == 1 {
            return best;
        }
        let threads = ctx.thread_count();
        while self.helpers.len() + 1 < threads {
            self.helpers.push(Searcher::new(self.main.eval.clone()));
        }
        let sh = Shared {
            tt: &self.tt,
            ctx,
            deadline: ctx.deadline_for(self.config.time, started),
            max_nodes: self.config.max_nodes,
            quiescence: self.config.quiescence,
            late_move_reductions: self.config.late_move_reductions,
            null_move: self.config.null_move,
            root: state.to_move(),
            contempt: self.config.contempt,
            stop: AtomicBool::new(false),
            finished: Mutex::new(Finished { depth: 0, score: 0, best: None }),
        };
        let max_depth = self.config.max_depth;
        let (main, helpers) = (&mut self.main, &mut self.helpers[..threads - 1]);
        let helper_nodes = std::thread::scope(|scope| {
            // Half the helpers start a depth deeper, so the threads do not
            // all search the same tree in step.
            let running: Vec<_> = helpers
                .iter_mut()
                .enumerate()
                .map(|(i, h)| {
                    let sh = &sh;
                    scope.spawn(move || {
                        h.deepen(state, 1 + (i as u32 % 2), max_depth, sh);
                        h.nodes
                    })
                })
                .collect();
            main.deepen(state, 1, max_depth, &sh);
            sh.stop.store(true, Ordering::Relaxed);
            running.into_iter().map(|t| t.join().expect("a search thread panicked")).sum::<u64>()
        });
        let f = sh.finished.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = f.best {
            best = m;
        }
        self.stats.depth = f.depth;
        self.stats.score = f.score;
        self.stats.nodes = self.main.nodes + helper_nodes;
        self.stats.elapsed = started.elapsed();
        best
    }
}

impl<G: Game, E: Evaluator<G>> AlphaBeta<G, E> {
    /// The line the table remembers from `state` after a search: each
    /// position's best move, while it is legal and the line does not come
    /// back to a position already on it; at most `max` moves.
    pub fn principal_variation(&self, state: &G, max: usize) -> Vec<G::Move> {
        let mut line = Vec::new();
        let mut seen = vec![state.hash()];
        let mut pos = state.clone();
        let mut legal = Vec::new();
        while line.len() < max && !pos.status().is_over() {
            let Some(m) = self.tt.probe(self.main.eval.key(&pos)).and_then(|e| e.best) else { break };
            pos.legal_moves(&mut legal);
            if !legal.contains(&m) {
                break;
            }
            pos.play(m);
            line.push(m);
            if seen.contains(&pos.hash()) {
                break;
            }
            seen.push(pos.hash());
        }
        line
    }
}

/// The plies to a forced result of a search score (`WIN - plies`, for the
/// side it is told for when positive); `None` for an estimate.
///
/// ```
/// use tabula_ai::alphabeta::{forced_plies, WIN};
/// assert_eq!(forced_plies(WIN - 3), Some(3));
/// assert_eq!(forced_plies(-(WIN - 4)), Some(4));
/// assert_eq!(forced_plies(250), None);
/// ```
pub fn forced_plies(score: i32) -> Option<u32> {
    (score.abs() >= FORCED).then(|| (WIN - score.abs()) as u32)
}

impl<G: Game, E: Evaluator<G>> Agent<G> for AlphaBeta<G, E> {
    fn choose(&mut self, state: &G, ctx: &ThinkContext) -> G::Move {
        self.search(state, ctx)
    }
    fn describe(&self) -> String {
        let q = if E::QUIESCENCE && self.config.quiescence { " with quiescence" } else { "" };
        match self.config.time {
            Some(t) => format!("{} alpha-beta{q}, {:.1} s", G::NAME, t.as_secs_f64()),
            None => format!("{} alpha-beta{q}, depth {}", G::NAME, self.config.max_depth),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::example::TicTacToe;
    use tabula_core::NoOptions;

    #[derive(Clone)]
    struct Blind;
    impl Evaluator<TicTacToe> for Blind {
        fn evaluate(&mut self, _: &TicTacToe) -> i32 {
            0
        }
    }

    /// Tic-tac-toe is a draw: the search scores it 0 without contempt and
    /// minus the contempt with it, for whichever side it plays.
    #[test]
    fn contempt_scores_a_draw_below_zero_for_the_side_searching() {
        for position in [".........", "x........"] {
            let g = TicTacToe::from_position(position, &NoOptions).unwrap();
            for contempt in [0, 30] {
                let config = AlphaBetaConfig { time: None, contempt, ..AlphaBetaConfig::default() };
                let mut ai = AlphaBeta::new(config, Blind);
                ai.search(&g, &ThinkContext::default());
                assert_eq!(ai.stats.score, -contempt, "{position}, contempt {contempt}");
            }
        }
    }
}
