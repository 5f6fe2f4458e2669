//! Negamax alpha-beta with principal variation search, iterative deepening
//! and aspiration windows, a shared transposition table, quiescence search,
//! and the usual selectivity: null move, reverse futility, futility, late
//! move and SEE pruning, late move reductions, singular extensions. Moves
//! are ordered by TT move, captures by victim and capture history, killers,
//! the counter move, and quiet moves by butterfly and continuation history.
//!
//! Positions are evaluated by the network of `nnue.rs`, whose accumulator
//! each ply updates from its parent's; the hand-written `eval.rs` takes over
//! in bare-king endings and when the network is switched off.
//!
//! With more than one thread the search is Lazy SMP: every thread runs the
//! same iterative deepening on the shared table, and the main thread's
//! result is played.
//!
//! Cumisitha's rules in the search: a repeated position is *not* a draw (no
//! repetition detection at all), a position whose counter has reached 100 is
//! a draw unless the side to move is mated, and stalemate is a draw.

use super::eval::{evaluate, has_non_pawn_material, SEE_VALUE};
use super::nnue::{network, Accumulator, Network};
use super::see::see_ge;
use super::tt::{unpack, Bound, Table};
use crate::rules::COUNTER_LIMIT;
use cozy_chess::{BitBoard, Board, Color, Move, Piece, Rank, Square};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The score of a mate now; a mate in `n` plies is `MATE - n`.
pub const MATE: i32 = 30000;
/// Scores beyond this are mates.
pub const MATE_BOUND: i32 = MATE - 1000;
const INF: i32 = 31000;
/// The static evaluation of a node in check: there is none.
const NO_EVAL: i32 = -INF;
/// The deepest ply the search reaches.
pub const MAX_PLY: usize = 120;
/// Room for the nested searches of singular extensions on top of the plies.
const MAX_HEIGHT: usize = 2 * MAX_PLY + 8;

/// When to stop thinking.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Stop after this depth.
    pub depth: Option<i32>,
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
    /// Do not start a new iteration after this.
    pub soft_time: Option<Duration>,
    /// Stop at once after this.
    pub hard_time: Option<Duration>,
}

impl Limits {
    /// Search to depth `d`.
    pub fn depth(d: i32) -> Limits {
        Limits { depth: Some(d), ..Limits::default() }
    }
    /// A fixed time for the move: search until it is used up.
    pub fn movetime(t: Duration) -> Limits {
        Limits { soft_time: Some(t), hard_time: Some(t), ..Limits::default() }
    }
}

/// A score as UCI reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawns for the side to move.
    Cp(i32),
    /// Mate in this many moves; negative when we are mated.
    Mate(i32),
}

impl Score {
    /// The UCI score of an internal score.
    pub fn from_internal(s: i32) -> Score {
        if s > MATE_BOUND {
            Score::Mate((MATE - s + 1) / 2)
        } else if s < -MATE_BOUND {
            Score::Mate(-(MATE + s) / 2)
        } else {
            Score::Cp(s)
        }
    }
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(c) => write!(f, "cp {c}"),
            Score::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

/// What one finished iteration found.
#[derive(Debug, Clone)]
pub struct Info {
    /// The depth finished.
    pub depth: i32,
    /// The deepest ply reached.
    pub seldepth: i32,
    /// The score for the side to move.
    pub score: Score,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// The table's fill, per mille.
    pub hashfull: u32,
}

impl Info {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let ms = self.time.as_millis().max(1) as u64;
        self.nodes * 1000 / ms
    }
}

/// The result of a search.
#[derive(Debug, Clone)]
pub struct SearchResult {
    /// `None` only when the position has no legal move.
    pub best: Option<Move>,
    /// The score for the side to move, internal units.
    pub score: i32,
    /// The depth finished.
    pub depth: i32,
    /// Nodes of all threads.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// Keys mixed into the TT key near the counter limit, where the same
/// position's value depends on how many quiet plies are left.
static COUNTER_KEYS: [u64; 101] = {
    let mut k = [0u64; 101];
    let mut i = 0;
    while i < 101 {
        k[i] = tabula_core::splitmix::mix(0xC0FFEE ^ (i as u64 * 7919));
        i += 1;
    }
    k
};

#[inline]
fn tt_key(board: &Board) -> u64 {
    let hm = board.halfmove_clock();
    if hm >= 70 {
        board.hash() ^ COUNTER_KEYS[hm.min(100) as usize]
    } else {
        board.hash()
    }
}

/// Late move reductions by depth and move number.
fn lmr_table() -> &'static [[i32; 64]; 64] {
    static T: OnceLock<[[i32; 64]; 64]> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = [[0; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (m, cell) in row.iter_mut().enumerate().skip(1) {
                *cell = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as i32;
            }
        }
        t
    })
}

/// The history tables' bound: entries stay within ±HISTORY_MAX.
const HISTORY_MAX: i32 = 16384;

#[inline]
fn history_update(cell: &mut i32, bonus: i32) {
    *cell += bonus - *cell * bonus.abs() / HISTORY_MAX;
}

#[inline]
fn history_bonus(depth: i32) -> i32 {
    (16 * depth * depth + 32 * depth).min(1600)
}

/// Continuation history: how good a move (piece, to) was after the move
/// (piece, to) one or two plies before.
type ContHist = [[[[i32; 64]; 6]; 64]; 6];

#[derive(Clone, Copy)]
struct Frame {
    /// The static evaluation here (`NO_EVAL` in check).
    eval: i32,
    /// The move made from here, as (piece, to); `None` for the null move.
    moved: Option<(Piece, Square)>,
    /// A move left out (singular extension search).
    excluded: Option<Move>,
}

const EMPTY_FRAME: Frame = Frame { eval: NO_EVAL, moved: None, excluded: None };

/// What all threads of one search share.
struct Shared<'a> {
    tt: &'a Table,
    /// Set by the main thread when the search ends: helpers stop.
    halt: &'a AtomicBool,
    /// Set from outside (UCI `stop`).
    stop: &'a AtomicBool,
    /// Nodes of all threads, added in steps of 1024.
    nodes: &'a AtomicU64,
    threads: usize,
    limits: &'a Limits,
    start: Instant,
}

/// One search thread's tables.
struct Worker {
    history: Box<[[[i32; 64]; 64]; 2]>,
    capture_history: Box<[[[i32; 6]; 64]; 6]>,
    cont: Box<ContHist>,
    counter: Box<[[Option<Move>; 64]; 6]>,
    killers: [[Option<Move>; 2]; MAX_PLY + 8],
    stack: [Frame; MAX_PLY + 8],
    pv: Box<[[Option<Move>; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    lists: Vec<Vec<(Move, i32)>>,
    height: usize,
    nodes: u64,
    seldepth: i32,
    main: bool,
    stopped: bool,
    /// The best root move of the iteration in progress, once one is known.
    root_best: Option<(Move, i32)>,
    /// The network's hidden layers of the position at each ply.
    accumulators: Vec<Accumulator>,
    /// Evaluate with the network (else with the hand-written evaluation).
    use_nnue: bool,
    /// The network: the built-in one unless `Engine::set_network` chose another.
    net: &'static Network,
}

fn boxed_zeroed<T: Copy>(value: T) -> Box<T> {
    Box::new(value)
}

impl Worker {
    fn new(main: bool) -> Worker {
        // The continuation history is large: build it on the heap.
        let cont: Box<ContHist> =
            vec![[[[0i32; 64]; 6]; 64]; 6].into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!());
        Worker {
            history: boxed_zeroed([[[0; 64]; 64]; 2]),
            capture_history: boxed_zeroed([[[0; 6]; 64]; 6]),
            cont,
            counter: boxed_zeroed([[None; 64]; 6]),
            killers: [[None; 2]; MAX_PLY + 8],
            stack: [EMPTY_FRAME; MAX_PLY + 8],
            pv: boxed_zeroed([[None; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            lists: (0..MAX_HEIGHT).map(|_| Vec::with_capacity(64)).collect(),
            height: 0,
            nodes: 0,
            seldepth: 0,
            main,
            stopped: false,
            root_best: None,
            accumulators: vec![Accumulator::from_board(network(), &Board::default()); MAX_PLY + 8],
            use_nnue: true,
            net: network(),
        }
    }

    fn clear(&mut self) {
        *self.history = [[[0; 64]; 64]; 2];
        *self.capture_history = [[[0; 6]; 64]; 6];
        for a in self.cont.iter_mut() {
            for b in a.iter_mut() {
                for c in b.iter_mut() {
                    c.fill(0);
                }
            }
        }
        *self.counter = [[None; 64]; 6];
        self.killers = [[None; 2]; MAX_PLY + 8];
    }

    /// Called every node: is it time to stop?
    #[inline]
    fn check_stop(&mut self, sh: &Shared) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes & 1023 == 0 {
            sh.nodes.fetch_add(1024, Ordering::Relaxed);
            if sh.halt.load(Ordering::Relaxed) {
                self.stopped = true;
            }
            if self.main {
                if sh.stop.load(Ordering::Relaxed) {
                    self.stopped = true;
                }
                if let Some(h) = sh.limits.hard_time {
                    if sh.start.elapsed() >= h {
                        self.stopped = true;
                    }
                }
                if sh.threads > 1 && sh.limits.nodes.is_some_and(|n| sh.nodes.load(Ordering::Relaxed) >= n) {
                    self.stopped = true;
                }
            }
        }
        if sh.threads == 1 && sh.limits.nodes.is_some_and(|n| self.nodes >= n) {
            self.stopped = true;
        }
        self.stopped
    }

    /// Iterative deepening from `board`; only the main thread reports.
    fn iterate(
        &mut self,
        sh: &Shared,
        board: &Board,
        root_moves: &[Move],
        report: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        self.nodes = 0;
        self.stopped = false;
        self.killers = [[None; 2]; MAX_PLY + 8];
        self.stack = [EMPTY_FRAME; MAX_PLY + 8];
        self.accumulators[0] = Accumulator::from_board(self.net, board);
        let mut result = SearchResult {
            best: root_moves.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
            pv: Vec::new(),
        };
        let max_depth = sh.limits.depth.unwrap_or(MAX_PLY as i32 - 10).clamp(1, MAX_PLY as i32 - 10);
        let mut prev_score = 0;
        let fixed_time = sh.limits.soft_time.is_some() && sh.limits.soft_time == sh.limits.hard_time;
        for depth in 1..=max_depth {
            self.seldepth = 0;
            self.root_best = None;
            let mut delta = 20;
            let (mut alpha, mut beta) = if depth >= 4 { (prev_score - delta, prev_score + delta) } else { (-INF, INF) };
            let score = loop {
                let s = self.negamax(sh, board, depth, alpha, beta, 0, true, false);
                if self.stopped {
                    break s;
                }
                if s <= alpha {
                    beta = (alpha + beta) / 2;
                    alpha = (s - delta).max(-INF);
                    self.root_best = None;
                } else if s >= beta {
                    beta = (s + delta).min(INF);
                } else {
                    break s;
                }
                delta += delta / 2;
                if delta > 800 {
                    alpha = -INF;
                    beta = INF;
                }
            };
            if self.stopped {
                // A move searched to the end in the unfinished iteration is
                // better than the last iteration's best, or it would not
                // have become best.
                if let Some((m, s)) = self.root_best {
                    if depth > 1 {
                        result.best = Some(m);
                        result.score = s;
                        if result.pv.first() != Some(&m) {
                            // The root's line row still holds the line the
                            // new best move was searched with (it is only
                            // written when a root move improves), so the
                            // analysis shows more than the move alone.
                            let line = self.root_line();
                            result.pv = if line.first() == Some(&m) { line } else { vec![m] };
                        }
                    }
                }
                break;
            }
            let pv = self.root_line();
            prev_score = score;
            if let Some(&m) = pv.first() {
                result.best = Some(m);
            }
            result.score = score;
            result.depth = depth;
            result.pv = pv.clone();
            if self.main {
                let info = Info {
                    depth,
                    seldepth: self.seldepth.max(depth),
                    score: Score::from_internal(score),
                    nodes: self.total_nodes(sh),
                    time: sh.start.elapsed(),
                    pv,
                    hashfull: sh.tt.hashfull(),
                };
                report(&info);
                if let Some(soft) = sh.limits.soft_time {
                    // An iteration costs about as much as all before it:
                    // with a clock, do not start one that cannot finish.
                    let elapsed = sh.start.elapsed();
                    if !fixed_time && elapsed * 2 >= soft || elapsed >= soft {
                        break;
                    }
                }
            }
            // A forced mate found: deeper search will not change it.
            if score.abs() > MATE_BOUND && depth > (MATE - score.abs()) + 2 {
                break;
            }
        }
        result
    }

    /// The static evaluation for the side to move: the network's, except
    /// when one side has a bare king, where the hand-written evaluation's
    /// mop-up drives it to the edge so the win comes before the counter's
    /// draw (the self-play games the network learnt from rarely go there).
    #[inline]
    fn evaluate(&self, board: &Board, ply: usize) -> i32 {
        let bare_king = board.colors(Color::White).len() == 1 || board.colors(Color::Black).len() == 1;
        if self.use_nnue && !bare_king {
            self.net.evaluate(&self.accumulators[ply], board.side_to_move())
        } else {
            evaluate(board)
        }
    }

    /// The line last collected at the root: the best move so far and the
    /// replies it was searched with.
    fn root_line(&self) -> Vec<Move> {
        self.pv[0][..self.pv_len[0]].iter().flatten().copied().collect()
    }

    fn total_nodes(&self, sh: &Shared) -> u64 {
        if sh.threads == 1 {
            self.nodes
        } else {
            sh.nodes.load(Ordering::Relaxed) + (self.nodes & 1023)
        }
    }

    /// The quiet-move score from the histories.
    #[inline]
    fn quiet_score(&self, us: usize, piece: Piece, mv: Move, ply: usize) -> i32 {
        let mut s = self.history[us][mv.from as usize][mv.to as usize];
        if ply >= 1 {
            if let Some((p, to)) = self.stack[ply - 1].moved {
                s += self.cont[p as usize][to as usize][piece as usize][mv.to as usize];
            }
        }
        if ply >= 2 {
            if let Some((p, to)) = self.stack[ply - 2].moved {
                s += self.cont[p as usize][to as usize][piece as usize][mv.to as usize];
            }
        }
        s
    }

    fn score_moves(&self, board: &Board, list: &mut [(Move, i32)], ply: usize, tt_move: Option<Move>) {
        let us = board.side_to_move();
        let them_bb = board.colors(!us);
        let killers = self.killers[ply];
        let counter = if ply >= 1 {
            self.stack[ply - 1].moved.and_then(|(p, to)| self.counter[p as usize][to as usize])
        } else {
            None
        };
        for entry in list.iter_mut() {
            let mv = entry.0;
            let piece = board.piece_on(mv.from).unwrap_or(Piece::Pawn);
            let attacker = piece as usize;
            entry.1 = if Some(mv) == tt_move {
                8_000_000
            } else if them_bb.has(mv.to) || (attacker == 0 && mv.from.file() != mv.to.file()) {
                let victim = if them_bb.has(mv.to) { board.piece_on(mv.to).map_or(0, |p| p as usize) } else { 0 };
                let order = SEE_VALUE[victim] * 8 + self.capture_history[attacker][mv.to as usize][victim] / 16;
                // Losing captures go after the quiet moves.
                if SEE_VALUE[attacker] > SEE_VALUE[victim] && !see_ge(board, mv, 0) {
                    -1_000_000 + order
                } else {
                    4_000_000 + order
                }
            } else if mv.promotion == Some(Piece::Queen) {
                3_900_000
            } else if mv.promotion.is_some() {
                -2_000_000
            } else if Some(mv) == killers[0] {
                2_000_000
            } else if Some(mv) == killers[1] {
                1_900_000
            } else if Some(mv) == counter {
                1_800_000
            } else {
                self.quiet_score(us as usize, piece, mv, ply)
            };
        }
    }

    /// The `i`-th move in order: the first few by selection (most nodes
    /// cut off early), then the rest sorted once.
    #[inline]
    fn pick(list: &mut [(Move, i32)], i: usize) -> (Move, i32) {
        const SELECT: usize = 4;
        if i < SELECT {
            let mut best = i;
            for j in i + 1..list.len() {
                if list[j].1 > list[best].1 {
                    best = j;
                }
            }
            list.swap(i, best);
        } else if i == SELECT {
            list[i..].sort_unstable_by_key(|e| std::cmp::Reverse(e.1));
        }
        list[i]
    }

    /// Reward the move that cut off and punish the quiet moves (and
    /// captures) tried before it.
    #[allow(clippy::too_many_arguments)]
    fn update_histories(
        &mut self,
        board: &Board,
        best: Move,
        best_quiet: bool,
        quiets: &[(Move, Piece)],
        captures: &[(Move, Piece, usize)],
        depth: i32,
        ply: usize,
    ) {
        let us = board.side_to_move() as usize;
        let bonus = history_bonus(depth);
        if best_quiet {
            let k = &mut self.killers[ply];
            if k[0] != Some(best) {
                k[1] = k[0];
                k[0] = Some(best);
            }
            if ply >= 1 {
                if let Some((p, to)) = self.stack[ply - 1].moved {
                    self.counter[p as usize][to as usize] = Some(best);
                }
            }
            for &(mv, piece) in quiets {
                let b = if mv == best { bonus } else { -bonus };
                history_update(&mut self.history[us][mv.from as usize][mv.to as usize], b);
                for back in [1, 2] {
                    if ply >= back {
                        if let Some((p, to)) = self.stack[ply - back].moved {
                            history_update(&mut self.cont[p as usize][to as usize][piece as usize][mv.to as usize], b);
                        }
                    }
                }
            }
        }
        for &(mv, piece, victim) in captures {
            let b = if mv == best { bonus } else { -bonus };
            history_update(&mut self.capture_history[piece as usize][mv.to as usize][victim], b);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        sh: &Shared,
        board: &Board,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        pv_node: bool,
        cut_node: bool,
    ) -> i32 {
        self.pv_len[ply] = 0;
        let in_check = !board.checkers().is_empty();
        // The counter rule: at 100 the game is drawn, unless this is mate.
        if ply > 0 && board.halfmove_clock() >= COUNTER_LIMIT {
            if in_check && !board.generate_moves(|_| true) {
                return -MATE + ply as i32;
            }
            return 0;
        }
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.qsearch(sh, board, alpha, beta, ply, pv_node);
        }
        if ply >= MAX_PLY - 4 || self.height >= MAX_HEIGHT - 2 {
            return if in_check { 0 } else { scaled_eval(board, self.evaluate(board, ply)) };
        }
        self.nodes += 1;
        if self.check_stop(sh) {
            return 0;
        }
        if ply > 0 {
            // Mate distance pruning.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let excluded = self.stack[ply].excluded;
        let key = tt_key(board);
        let entry = if excluded.is_none() { sh.tt.probe(key) } else { None };
        let tt_move = entry.and_then(|e| unpack(e.mv)).filter(|&m| board.is_legal(m));
        let tt_score = entry.map(|e| from_tt(e.score as i32, ply));
        if let (Some(e), Some(s)) = (entry, tt_score) {
            if !pv_node && e.depth >= depth {
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }
        let us = board.side_to_move();
        let raw_eval = if in_check {
            NO_EVAL
        } else {
            match entry {
                Some(e) => e.eval as i32,
                None => self.evaluate(board, ply),
            }
        };
        let static_eval = if in_check { NO_EVAL } else { scaled_eval(board, raw_eval) };
        // The TT score bounds the true value better than the static evaluation.
        let eval = match (entry, tt_score) {
            (Some(e), Some(s)) if !in_check && s.abs() < MATE_BOUND => match e.bound {
                Bound::Exact => s,
                Bound::Lower if s > static_eval => s,
                Bound::Upper if s < static_eval => s,
                _ => static_eval,
            },
            _ => static_eval,
        };
        self.stack[ply].eval = static_eval;
        let improving = !in_check
            && if ply >= 2 && self.stack[ply - 2].eval != NO_EVAL {
                static_eval > self.stack[ply - 2].eval
            } else if ply >= 4 && self.stack[ply - 4].eval != NO_EVAL {
                static_eval > self.stack[ply - 4].eval
            } else {
                true
            };
        self.killers[ply + 1] = [None; 2];
        self.stack[ply + 1].excluded = None;

        if !pv_node && !in_check && excluded.is_none() {
            // Reverse futility pruning.
            if depth <= 8 && eval - 80 * (depth - improving as i32) >= beta && eval.abs() < MATE_BOUND {
                return (eval + beta) / 2;
            }
            // Null move pruning.
            if depth >= 3
                && eval >= beta
                && static_eval >= beta
                && ply >= 1
                && self.stack[ply - 1].moved.is_some()
                && has_non_pawn_material(board, us)
            {
                if let Some(null) = board.null_move() {
                    let r = 4 + depth / 3 + ((eval - beta) / 200).min(3);
                    self.stack[ply].moved = None;
                    self.accumulators[ply + 1] = self.accumulators[ply];
                    self.height += 1;
                    let s = -self.negamax(sh, &null, depth - r, -beta, -beta + 1, ply + 1, false, !cut_node);
                    self.height -= 1;
                    if self.stopped {
                        return 0;
                    }
                    if s >= beta {
                        return if s > MATE_BOUND { beta } else { s };
                    }
                }
            }
        }
        // No TT move to try first: a shallower search is cheaper here
        // (internal iterative reduction).
        if tt_move.is_none() && depth >= 4 && (pv_node || cut_node) {
            depth -= 1;
        }

        // Generate and order.
        let mut list = std::mem::take(&mut self.lists[self.height]);
        list.clear();
        board.generate_moves(|pm| {
            for m in pm {
                list.push((m, 0));
            }
            false
        });
        if list.is_empty() {
            self.lists[self.height] = list;
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        self.score_moves(board, &mut list, ply, tt_move);

        let them = board.colors(!us);
        let original_alpha = alpha;
        let mut best_score = -INF;
        let mut best_move = None;
        let mut quiets: [(Move, Piece); 64] =
            [(Move { from: Square::A1, to: Square::A1, promotion: None }, Piece::Pawn); 64];
        let mut n_quiets = 0;
        let mut captures: [(Move, Piece, usize); 32] =
            [(Move { from: Square::A1, to: Square::A1, promotion: None }, Piece::Pawn, 0); 32];
        let mut n_captures = 0;
        let mut move_count = 0;
        let mut skip_quiets = false;
        let lmr = lmr_table();
        for i in 0..list.len() {
            let (mv, order) = Self::pick(&mut list, i);
            if Some(mv) == excluded {
                continue;
            }
            let piece = board.piece_on(mv.from).unwrap_or(Piece::Pawn);
            let victim = if them.has(mv.to) { board.piece_on(mv.to).map_or(0, |p| p as usize) } else { 0 };
            let is_capture = them.has(mv.to) || (piece == Piece::Pawn && mv.from.file() != mv.to.file());
            let quiet = !is_capture && mv.promotion.is_none();
            if quiet && skip_quiets {
                continue;
            }
            move_count += 1;
            let mut child = board.clone();
            child.play_unchecked(mv);
            sh.tt.prefetch(tt_key(&child));
            let gives_check = !child.checkers().is_empty();
            let history = if quiet { self.quiet_score(us as usize, piece, mv, ply) } else { 0 };
            if ply > 0 && best_score > -MATE_BOUND {
                let lmr_depth = (depth - 1 - lmr[depth.min(63) as usize][move_count.min(63)]).max(0);
                if quiet && !gives_check {
                    // Late move pruning.
                    if depth <= 8 && move_count >= (3 + depth * depth) as usize / (2 - improving as usize) {
                        skip_quiets = true;
                        continue;
                    }
                    // Futility pruning.
                    if !in_check && lmr_depth <= 8 && static_eval + 100 + 100 * lmr_depth <= alpha {
                        continue;
                    }
                    // History pruning.
                    if lmr_depth <= 3 && history < -2000 * depth {
                        continue;
                    }
                    // The piece would be lost.
                    if lmr_depth <= 8 && !see_ge(board, mv, -25 * lmr_depth * lmr_depth) {
                        continue;
                    }
                } else if is_capture && depth <= 8 && order < 4_000_000 && !see_ge(board, mv, -100 * depth) {
                    continue;
                }
            }
            // Singular extension: is the TT move much better than the rest?
            let mut extension = 0;
            if let (Some(e), Some(ts)) = (entry, tt_score) {
                if ply > 0
                    && depth >= 8
                    && Some(mv) == tt_move
                    && e.depth >= depth - 3
                    && e.bound != Bound::Upper
                    && ts.abs() < MATE_BOUND
                {
                    let singular_beta = ts - 2 * depth;
                    self.stack[ply].excluded = Some(mv);
                    self.height += 1;
                    let s = self.negamax(
                        sh,
                        board,
                        (depth - 1) / 2,
                        singular_beta - 1,
                        singular_beta,
                        ply,
                        false,
                        cut_node,
                    );
                    self.height -= 1;
                    self.stack[ply].excluded = None;
                    if self.stopped {
                        self.lists[self.height] = list;
                        return 0;
                    }
                    if s < singular_beta {
                        extension = 1;
                    } else if singular_beta >= beta {
                        // Several moves beat beta: a cut-off without searching (multi-cut).
                        self.lists[self.height] = list;
                        return singular_beta;
                    } else if ts >= beta {
                        extension = -1;
                    }
                }
            }
            let new_depth = depth - 1 + extension;
            self.accumulators[ply + 1] = self.accumulators[ply].update(self.net, board, &child);
            self.stack[ply].moved = Some((piece, mv.to));
            self.height += 1;
            let score = if move_count == 1 {
                -self.negamax(sh, &child, new_depth, -beta, -alpha, ply + 1, pv_node, !pv_node && !cut_node)
            } else {
                let mut r = 0;
                if depth >= 3 && (quiet || is_capture && order < 4_000_000) {
                    r = lmr[depth.min(63) as usize][move_count.min(63)];
                    if !pv_node {
                        r += 1;
                    }
                    if cut_node {
                        r += 1;
                    }
                    if !improving {
                        r += 1;
                    }
                    if gives_check {
                        r -= 1;
                    }
                    if quiet {
                        if order >= 1_800_000 {
                            r -= 1;
                        }
                        r -= history / 6000;
                    }
                    r = r.clamp(0, (new_depth - 1).max(0));
                }
                let mut s = -self.negamax(sh, &child, new_depth - r, -alpha - 1, -alpha, ply + 1, false, true);
                if !self.stopped && s > alpha && r > 0 {
                    s = -self.negamax(sh, &child, new_depth, -alpha - 1, -alpha, ply + 1, false, !cut_node);
                }
                if !self.stopped && s > alpha && s < beta && pv_node {
                    s = -self.negamax(sh, &child, new_depth, -beta, -alpha, ply + 1, true, false);
                }
                s
            };
            self.height -= 1;
            if self.stopped {
                self.lists[self.height] = list;
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(mv);
                    alpha = score;
                    if ply == 0 {
                        self.root_best = Some((mv, score));
                    }
                    // Collect the principal variation.
                    self.pv[ply][0] = Some(mv);
                    let child_len = if ply < MAX_PLY { self.pv_len[ply + 1] } else { 0 };
                    for k in 0..child_len.min(MAX_PLY - 1) {
                        self.pv[ply][k + 1] = self.pv[ply + 1][k];
                    }
                    self.pv_len[ply] = child_len.min(MAX_PLY - 1) + 1;
                    if score >= beta {
                        self.update_histories(
                            board,
                            mv,
                            quiet,
                            &quiets[..n_quiets],
                            &captures[..n_captures],
                            depth,
                            ply,
                        );
                        if quiet {
                            // The cut-off move itself was not yet in the list.
                            let us_i = us as usize;
                            let bonus = history_bonus(depth);
                            history_update(&mut self.history[us_i][mv.from as usize][mv.to as usize], bonus);
                            for back in [1, 2] {
                                if ply >= back {
                                    if let Some((p, to)) = self.stack[ply - back].moved {
                                        history_update(
                                            &mut self.cont[p as usize][to as usize][piece as usize][mv.to as usize],
                                            bonus,
                                        );
                                    }
                                }
                            }
                        } else if is_capture {
                            let bonus = history_bonus(depth);
                            history_update(&mut self.capture_history[piece as usize][mv.to as usize][victim], bonus);
                        }
                        break;
                    }
                }
            }
            if quiet && n_quiets < quiets.len() {
                quiets[n_quiets] = (mv, piece);
                n_quiets += 1;
            } else if is_capture && n_captures < captures.len() {
                captures[n_captures] = (mv, piece, victim);
                n_captures += 1;
            }
        }
        self.lists[self.height] = list;
        if move_count == 0 {
            // Only the excluded move: it is singular.
            return alpha;
        }
        if best_score == -INF {
            return alpha;
        }
        if excluded.is_none() {
            let bound = if best_score >= beta {
                Bound::Lower
            } else if alpha > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            sh.tt.store(key, best_move, to_tt(best_score, ply), raw_eval, depth, bound);
        }
        best_score
    }

    fn qsearch(&mut self, sh: &Shared, board: &Board, mut alpha: i32, beta: i32, ply: usize, pv_node: bool) -> i32 {
        self.pv_len[ply] = 0;
        self.nodes += 1;
        if self.check_stop(sh) {
            return 0;
        }
        if ply as i32 > self.seldepth {
            self.seldepth = ply as i32;
        }
        let in_check = !board.checkers().is_empty();
        if board.halfmove_clock() >= COUNTER_LIMIT {
            if in_check && !board.generate_moves(|_| true) {
                return -MATE + ply as i32;
            }
            return 0;
        }
        if ply >= MAX_PLY || self.height >= MAX_HEIGHT - 2 {
            return if in_check { 0 } else { scaled_eval(board, self.evaluate(board, ply)) };
        }
        let key = tt_key(board);
        let entry = sh.tt.probe(key);
        if let Some(e) = entry {
            let s = from_tt(e.score as i32, ply);
            if !pv_node {
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }
        let us = board.side_to_move();
        let raw_eval = if in_check {
            NO_EVAL
        } else {
            match entry {
                Some(e) => e.eval as i32,
                None => self.evaluate(board, ply),
            }
        };
        let mut stand = if in_check { -INF } else { scaled_eval(board, raw_eval) };
        if let Some(e) = entry {
            let s = from_tt(e.score as i32, ply);
            if !in_check && s.abs() < MATE_BOUND {
                match e.bound {
                    Bound::Lower if s > stand => stand = s,
                    Bound::Upper if s < stand => stand = s,
                    _ => {}
                }
            }
        }
        if !in_check {
            if stand >= beta {
                if entry.is_none() {
                    sh.tt.store(key, None, to_tt(stand, ply), raw_eval, 0, Bound::Lower);
                }
                return stand;
            }
            if stand > alpha {
                alpha = stand;
            }
        }
        let original_alpha = alpha;
        let them = board.colors(!us);
        let promo_rank = Rank::Eighth.relative_to(us).bitboard();
        let ep_bb =
            board.en_passant().map_or(BitBoard::EMPTY, |f| Square::new(f, Rank::Sixth.relative_to(us)).bitboard());
        let tt_move = entry.and_then(|e| unpack(e.mv));
        let mut list = std::mem::take(&mut self.lists[self.height]);
        list.clear();
        board.generate_moves(|mut pm| {
            if !in_check {
                let targets = if pm.piece == Piece::Pawn { them | ep_bb | promo_rank } else { them };
                pm.to &= targets;
            }
            for m in pm {
                if !in_check && m.promotion.is_some_and(|p| p != Piece::Queen) {
                    continue;
                }
                let attacker = pm.piece as usize;
                let victim = board.piece_on(m.to).map_or(0, |p| if them.has(m.to) { p as usize } else { 0 });
                let mut order = victim as i32 * 16 - attacker as i32 + if m.promotion.is_some() { 100 } else { 0 };
                if Some(m) == tt_move {
                    order += 1000;
                }
                list.push((m, order));
            }
            false
        });
        if list.is_empty() && in_check {
            self.lists[self.height] = list;
            return -MATE + ply as i32;
        }
        let mut best = stand;
        let mut best_move = None;
        for i in 0..list.len() {
            let (mv, _) = Self::pick(&mut list, i);
            if !in_check {
                let victim_val = board.piece_on(mv.to).filter(|_| them.has(mv.to)).map_or(0, |p| SEE_VALUE[p as usize]);
                let promo_gain = if mv.promotion.is_some() { 800 } else { 0 };
                // Delta pruning: even winning the piece cannot reach alpha.
                if stand + victim_val + promo_gain + 200 <= alpha {
                    continue;
                }
                if promo_gain == 0 && !see_ge(board, mv, 0) {
                    continue;
                }
            }
            let mut child = board.clone();
            child.play_unchecked(mv);
            sh.tt.prefetch(tt_key(&child));
            self.accumulators[ply + 1] = self.accumulators[ply].update(self.net, board, &child);
            self.height += 1;
            let score = -self.qsearch(sh, &child, -beta, -alpha, ply + 1, pv_node);
            self.height -= 1;
            if self.stopped {
                self.lists[self.height] = list;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.lists[self.height] = list;
        let bound = if best >= beta {
            Bound::Lower
        } else if pv_node && alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        sh.tt.store(key, best_move, to_tt(best, ply), raw_eval, 0, bound);
        best
    }
}

/// The engine: the shared table and every thread's tables, kept between
/// moves of a game.
pub struct Engine {
    tt: Table,
    workers: Vec<Worker>,
}

impl Engine {
    /// A one-thread engine with a transposition table of `hash_mb` megabytes.
    pub fn new(hash_mb: usize) -> Engine {
        Engine { tt: Table::new(hash_mb), workers: vec![Worker::new(true)] }
    }

    /// Resize (and clear) the transposition table.
    pub fn set_hash(&mut self, mb: usize) {
        self.tt = Table::new(mb);
    }

    /// Search with `n` threads (Lazy SMP), at least one.
    pub fn set_threads(&mut self, n: usize) {
        let n = n.clamp(1, 256);
        self.workers.truncate(n);
        let (use_nnue, net) = (self.workers[0].use_nnue, self.workers[0].net);
        while self.workers.len() < n {
            let mut w = Worker::new(false);
            w.use_nnue = use_nnue;
            w.net = net;
            self.workers.push(w);
        }
    }

    /// Evaluate with the network (the default) or, when `false`, with the
    /// hand-written evaluation of `eval.rs` (UCI `UseNNUE`).
    pub fn set_nnue(&mut self, on: bool) {
        for w in &mut self.workers {
            w.use_nnue = on;
        }
    }

    /// Evaluate with `net` instead of the built-in network, e.g. one read
    /// from a file by [`Network::from_bytes`] and kept for the program's
    /// life with `Box::leak` (the data generator plays a network it has
    /// just trained this way).
    ///
    /// ```
    /// use tabula_cumisitha::ai::{nnue::{network, Network}, Engine, Limits};
    /// let net: &'static Network = Box::leak(Box::new(Network::from_bytes(&network().to_bytes()).unwrap()));
    /// let mut engine = Engine::new(16);
    /// engine.set_network(net);
    /// let board = cozy_chess::Board::default();
    /// let limits = Limits { depth: Some(3), ..Limits::default() };
    /// let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    /// assert!(engine.search(&board, limits, stop, &mut |_| {}).best.is_some());
    /// ```
    pub fn set_network(&mut self, net: &'static Network) {
        for w in &mut self.workers {
            w.net = net;
        }
    }

    /// The number of search threads.
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Forget everything learnt (UCI `ucinewgame`).
    pub fn new_game(&mut self) {
        self.tt.clear();
        for w in &mut self.workers {
            w.clear();
        }
    }

    /// Search `board` within `limits`; `stop` ends it from outside; `report`
    /// hears every finished iteration.
    pub fn search(
        &mut self,
        board: &Board,
        limits: Limits,
        stop: Arc<AtomicBool>,
        report: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let start = Instant::now();
        self.tt.new_search();
        for w in &mut self.workers {
            // Old history is a hint, not a rule.
            for side in w.history.iter_mut() {
                for row in side.iter_mut() {
                    for h in row.iter_mut() {
                        *h /= 2;
                    }
                }
            }
        }
        let mut root_moves = Vec::new();
        crate::rules::chess_moves(board, &mut root_moves);
        if root_moves.is_empty() {
            return SearchResult { best: None, score: 0, depth: 0, nodes: 0, time: Duration::ZERO, pv: Vec::new() };
        }
        let halt = AtomicBool::new(false);
        let nodes = AtomicU64::new(0);
        let sh = Shared {
            tt: &self.tt,
            halt: &halt,
            stop: &stop,
            nodes: &nodes,
            threads: self.workers.len(),
            limits: &limits,
            start,
        };
        let (main, helpers) = self.workers.split_first_mut().expect("an engine has a thread");
        let mut result = std::thread::scope(|s| {
            for h in helpers.iter_mut() {
                let (sh, root_moves) = (&sh, &root_moves);
                s.spawn(move || {
                    h.iterate(sh, board, root_moves, &mut |_| {});
                });
            }
            let r = main.iterate(&sh, board, &root_moves, report);
            halt.store(true, Ordering::Relaxed);
            r
        });
        // The best move must be legal whatever happened.
        if result.best.is_none_or(|m| !board.is_legal(m)) {
            result.best = root_moves.first().copied();
        }
        result.nodes = if sh.threads == 1 {
            main.nodes
        } else {
            nodes.load(Ordering::Relaxed) + self.workers.iter().map(|w| w.nodes & 1023).sum::<u64>()
        };
        result.time = start.elapsed();
        result
    }
}

/// The evaluation, shrunk as the counter grows so that a side that is ahead
/// prefers to make progress (a capture or a pawn move) before the 100-ply draw.
#[inline]
fn scaled_eval(board: &Board, raw: i32) -> i32 {
    let hm = board.halfmove_clock() as i32;
    if hm > 10 {
        raw * (110 - hm.min(100)) / 100
    } else {
        raw
    }
}

#[inline]
fn to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

#[inline]
fn from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Time for one move from the UCI clock: (soft, hard).
pub fn time_budget(remaining: Duration, increment: Duration, moves_to_go: Option<u32>) -> (Duration, Duration) {
    let overhead = Duration::from_millis(30);
    let usable = remaining.saturating_sub(overhead);
    let mtg = moves_to_go.unwrap_or(30).clamp(1, 60);
    let base = usable / mtg + increment * 3 / 4;
    let soft = base.min(usable / 2);
    let hard = (base * 3).min(usable / 3 + increment / 2).max(soft).min(usable);
    (soft.max(Duration::from_millis(1)), hard.max(Duration::from_millis(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn best_with(fen: &str, depth: i32, threads: usize) -> (String, i32) {
        let b: Board = crate::notation::fen::parse(fen).unwrap();
        let mut e = Engine::new(8);
        e.set_threads(threads);
        let r = e.search(&b, Limits::depth(depth), Arc::new(AtomicBool::new(false)), &mut |_| {});
        (crate::notation::format_uci(&b, r.best.unwrap()), r.score)
    }

    fn best(fen: &str, depth: i32) -> (String, i32) {
        best_with(fen, depth, 1)
    }

    #[test]
    fn finds_mate_in_one_and_two() {
        let (m, s) = best("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 4);
        assert_eq!(m, "a1a8");
        assert_eq!(Score::from_internal(s), Score::Mate(1));
        // A rook ladder: mate in two.
        let (_, s) = best("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", 6);
        assert_eq!(Score::from_internal(s), Score::Mate(2));
    }

    #[test]
    fn wins_material_and_avoids_stalemate() {
        // Rxd5, or Re2+ first: either wins the queen.
        let (m, s) = best("4k3/8/8/3q4/8/8/3R4/3RK3 w - - 0 1", 4);
        assert!(s > 900 && ["d2d5", "d2e2"].contains(&m.as_str()), "{m} {s}");
        // Black king a8 boxed in; Qc7 would stalemate, the engine must not play it.
        let (m, s) = best("k7/8/3Q4/8/8/8/8/4K3 w - - 0 1", 5);
        assert_ne!(m, "d6c7");
        assert!(s > 500);
    }

    #[test]
    fn repetition_is_not_scored_as_a_draw_but_the_counter_is() {
        // Up a rook: the score stays winning, not 0 (chess engines score a repetition 0).
        let (_, s) = best("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", 6);
        assert!(s > 300, "{s}");
        // Counter at 99 and no mate available at once: every move draws.
        let (_, s) = best("4k3/8/8/8/8/8/8/R3K3 w - - 99 80", 6);
        assert_eq!(s, 0);
        // Counter at 99 but mate in one: mate beats the counter.
        let (m, s) = best("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80", 4);
        assert_eq!(m, "a1a8");
        assert!(s > MATE_BOUND);
    }

    #[test]
    fn two_threads_find_the_same_mate() {
        let (m, s) = best_with("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 6, 2);
        assert_eq!(m, "a1a8");
        assert_eq!(Score::from_internal(s), Score::Mate(1));
        let (_, s) = best_with("4k3/8/8/3q4/8/8/3R4/3RK3 w - - 0 1", 6, 2);
        assert!(s > 900, "{s}");
    }

    #[test]
    fn a_node_limit_is_kept_and_a_stopped_search_still_answers() {
        let b = Board::default();
        let mut e = Engine::new(8);
        let limits = Limits { nodes: Some(5000), ..Limits::default() };
        let r = e.search(&b, limits, Arc::new(AtomicBool::new(false)), &mut |_| {});
        assert!(r.nodes <= 5001, "{}", r.nodes);
        assert!(r.best.is_some_and(|m| b.is_legal(m)));
        let stop = Arc::new(AtomicBool::new(true));
        let r = e.search(&b, Limits::default(), stop, &mut |_| {});
        assert!(r.best.is_some_and(|m| b.is_legal(m)));
    }

    #[test]
    fn time_budget_respects_the_clock() {
        let (soft, hard) = time_budget(Duration::from_secs(60), Duration::from_secs(1), None);
        assert!(soft < hard && hard < Duration::from_secs(20));
        let (soft, hard) = time_budget(Duration::from_millis(50), Duration::ZERO, Some(1));
        assert!(soft <= Duration::from_millis(50) && hard <= Duration::from_millis(50));
    }
}
