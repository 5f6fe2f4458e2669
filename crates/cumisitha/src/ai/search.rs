//! Negamax alpha-beta with principal variation search, iterative deepening
//! and aspiration windows, a transposition table, quiescence search, null
//! move pruning, late move reductions, and move ordering by TT move,
//! MVV-LVA, killers and history.
//!
//! Cumisitha's rules in the search: a repeated position is *not* a draw (no
//! repetition detection at all), a position whose counter has reached 100 is
//! a draw unless the side to move is mated, and stalemate is a draw.

use super::eval::{evaluate, has_non_pawn_material, SEE_VALUE};
use super::see::see_ge;
use super::tt::{unpack, Bound, Table};
use crate::rules::COUNTER_LIMIT;
use cozy_chess::{BitBoard, Board, Move, Piece, Rank, Square};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The score of a mate now; a mate in `n` plies is `MATE - n`.
pub const MATE: i32 = 30000;
/// Scores beyond this are mates.
pub const MATE_BOUND: i32 = MATE - 1000;
const INF: i32 = 31000;
/// The deepest ply the search reaches.
pub const MAX_PLY: usize = 120;

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
    /// Search for `t`.
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
    /// Nodes searched.
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
        board.hash() ^ COUNTER_KEYS[hm as usize]
    } else {
        board.hash()
    }
}

fn lmr_table() -> [[u8; 64]; 64] {
    let mut t = [[0u8; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, cell) in row.iter_mut().enumerate().skip(1) {
            *cell = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as u8;
        }
    }
    t
}

/// The engine: tables kept between moves of a game.
pub struct Engine {
    tt: Table,
    history: Box<[[[i32; 64]; 64]; 2]>,
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    pv: Box<[[Option<Move>; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    lists: Vec<Vec<(Move, i32)>>,
    lmr: [[u8; 64]; 64],
    nodes: u64,
    seldepth: i32,
    start: Instant,
    limits: Limits,
    stop: Arc<AtomicBool>,
    stopped: bool,
}

impl Engine {
    /// An engine with a transposition table of `hash_mb` megabytes.
    pub fn new(hash_mb: usize) -> Engine {
        Engine {
            tt: Table::new(hash_mb),
            history: Box::new([[[0; 64]; 64]; 2]),
            killers: [[None; 2]; MAX_PLY + 1],
            pv: Box::new([[None; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            lists: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            lmr: lmr_table(),
            nodes: 0,
            seldepth: 0,
            start: Instant::now(),
            limits: Limits::default(),
            stop: Arc::new(AtomicBool::new(false)),
            stopped: false,
        }
    }

    /// Resize (and clear) the transposition table.
    pub fn set_hash(&mut self, mb: usize) {
        self.tt = Table::new(mb);
    }

    /// Forget everything learnt (UCI `ucinewgame`).
    pub fn new_game(&mut self) {
        self.tt.clear();
        *self.history = [[[0; 64]; 64]; 2];
        self.killers = [[None; 2]; MAX_PLY + 1];
    }

    fn out_of_time(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes & 1023 == 0 {
            if self.stop.load(Ordering::Relaxed) {
                self.stopped = true;
            }
            if let Some(h) = self.limits.hard_time {
                if self.start.elapsed() >= h {
                    self.stopped = true;
                }
            }
        }
        if let Some(n) = self.limits.nodes {
            if self.nodes >= n {
                self.stopped = true;
            }
        }
        self.stopped
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
        self.start = Instant::now();
        self.limits = limits;
        self.stop = stop;
        self.stopped = false;
        self.nodes = 0;
        self.tt.age = self.tt.age.wrapping_add(1);
        self.killers = [[None; 2]; MAX_PLY + 1];
        for side in self.history.iter_mut() {
            for row in side.iter_mut() {
                for h in row.iter_mut() {
                    *h /= 8;
                }
            }
        }
        let mut root_moves = Vec::new();
        crate::rules::chess_moves(board, &mut root_moves);
        let mut result = SearchResult {
            best: root_moves.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
            pv: Vec::new(),
        };
        if root_moves.is_empty() {
            return result;
        }
        let max_depth = self.limits.depth.unwrap_or(MAX_PLY as i32 - 10).clamp(1, MAX_PLY as i32 - 10);
        let mut prev_score = 0;
        for depth in 1..=max_depth {
            self.seldepth = 0;
            // Aspiration window around the last score.
            let mut delta = 30;
            let (mut alpha, mut beta) = if depth >= 4 { (prev_score - delta, prev_score + delta) } else { (-INF, INF) };
            let score = loop {
                let s = self.negamax(board, depth, alpha, beta, 0, true);
                if self.stopped {
                    break s;
                }
                if s <= alpha {
                    alpha = (alpha - delta).max(-INF);
                    beta = (alpha + beta) / 2;
                } else if s >= beta {
                    beta = (beta + delta).min(INF);
                } else {
                    break s;
                }
                delta += delta / 2 + 10;
                if delta > 1000 {
                    alpha = -INF;
                    beta = INF;
                }
            };
            // A stopped iteration's best move is kept only when it was
            // searched to the end (the PV's first move is then set).
            let pv: Vec<Move> = self.pv[0][..self.pv_len[0]].iter().flatten().copied().collect();
            if self.stopped {
                if depth > 1 {
                    break;
                }
                if let Some(&m) = pv.first() {
                    result.best = Some(m);
                }
                break;
            }
            prev_score = score;
            if let Some(&m) = pv.first() {
                result.best = Some(m);
            }
            result.score = score;
            result.depth = depth;
            result.pv = pv.clone();
            let info = Info {
                depth,
                seldepth: self.seldepth.max(depth),
                score: Score::from_internal(score),
                nodes: self.nodes,
                time: self.start.elapsed(),
                pv,
                hashfull: self.tt.hashfull(),
            };
            report(&info);
            if let Some(soft) = self.limits.soft_time {
                // A new iteration takes a few times the last one: do not start what cannot finish.
                if self.start.elapsed() * 2 >= soft && Some(soft) != self.limits.hard_time
                    || self.start.elapsed() >= soft
                {
                    break;
                }
                if Some(soft) == self.limits.hard_time && self.start.elapsed() * 3 >= soft * 2 {
                    break;
                }
            }
            // A forced mate found: deeper search will not change it.
            if score.abs() > MATE_BOUND && depth > (MATE - score.abs()) + 2 {
                break;
            }
        }
        // The best move must be legal whatever happened.
        if result.best.is_none_or(|m| !board.is_legal(m)) {
            result.best = root_moves.first().copied();
        }
        result.nodes = self.nodes;
        result.time = self.start.elapsed();
        result
    }

    fn score_moves(&mut self, board: &Board, ply: usize, tt_move: Option<Move>) {
        let us = board.side_to_move();
        let them_bb = board.colors(!us);
        let killers = self.killers[ply];
        let history = &self.history[us as usize];
        let list = &mut self.lists[ply];
        for entry in list.iter_mut() {
            let mv = entry.0;
            let attacker = board.piece_on(mv.from).map_or(0, |p| p as usize);
            entry.1 = if Some(mv) == tt_move {
                4_000_000
            } else if them_bb.has(mv.to) || (attacker == 0 && mv.from.file() != mv.to.file()) {
                let victim = board.piece_on(mv.to).map_or(0, |p| p as usize);
                let mvv = victim as i32 * 16 - attacker as i32;
                // Losing captures go after the quiet moves.
                if SEE_VALUE[attacker] > SEE_VALUE[victim] && !see_ge(board, mv, 0) {
                    -200_000 + mvv
                } else {
                    2_000_000 + mvv
                }
            } else if mv.promotion == Some(Piece::Queen) {
                1_900_000
            } else if mv.promotion.is_some() {
                -100_000
            } else if Some(mv) == killers[0] {
                1_000_000
            } else if Some(mv) == killers[1] {
                900_000
            } else {
                history[mv.from as usize][mv.to as usize]
            };
        }
    }

    #[inline]
    fn pick(list: &mut [(Move, i32)], i: usize) -> Move {
        let mut best = i;
        for j in i + 1..list.len() {
            if list[j].1 > list[best].1 {
                best = j;
            }
        }
        list.swap(i, best);
        list[i].0
    }

    fn negamax(&mut self, board: &Board, mut depth: i32, mut alpha: i32, beta: i32, ply: usize, pv_node: bool) -> i32 {
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
        if depth <= 0 || ply >= MAX_PLY - 4 {
            return self.qsearch(board, alpha, beta, ply);
        }
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        if ply > 0 {
            // Mate distance pruning.
            let a = alpha.max(-MATE + ply as i32);
            let b = beta.min(MATE - ply as i32 - 1);
            if a >= b {
                return a;
            }
        }
        let key = tt_key(board);
        let entry = self.tt.probe(key);
        let tt_move = entry.and_then(|e| unpack(e.mv)).filter(|&m| board.is_legal(m));
        if let Some(e) = entry {
            if !pv_node && e.depth as i32 >= depth {
                let s = from_tt(e.score as i32, ply);
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
        let static_eval = if in_check {
            -INF
        } else {
            match entry {
                Some(e) => e.eval as i32,
                None => scaled_eval(board),
            }
        };
        let us = board.side_to_move();
        if !pv_node && !in_check && ply > 0 {
            // Reverse futility pruning.
            if depth <= 6 && static_eval - 90 * depth >= beta && beta.abs() < MATE_BOUND {
                return static_eval;
            }
            // Null move pruning.
            if depth >= 3 && static_eval >= beta && has_non_pawn_material(board, us) {
                if let Some(null) = board.null_move() {
                    let r = 3 + depth / 4 + ((static_eval - beta) / 200).min(3);
                    let s = -self.negamax(&null, depth - 1 - r, -beta, -beta + 1, ply + 1, false);
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
        if tt_move.is_none() && depth >= 4 {
            depth -= 1;
        }
        // Generate and order.
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        board.generate_moves(|pm| {
            for m in pm {
                list.push((m, 0));
            }
            false
        });
        if list.is_empty() {
            self.lists[ply] = list;
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        self.lists[ply] = list;
        self.score_moves(board, ply, tt_move);
        let mut list = std::mem::take(&mut self.lists[ply]);

        let them = board.colors(!us);
        let original_alpha = alpha;
        let mut best_score = -INF;
        let mut best_move = None;
        let mut quiets_tried: [Option<Move>; 64] = [None; 64];
        let mut n_quiets = 0;
        let futile = !pv_node && !in_check && depth <= 3 && static_eval + 100 + 120 * depth <= alpha;
        for i in 0..list.len() {
            let mv = Self::pick(&mut list, i);
            let is_capture =
                them.has(mv.to) || (board.piece_on(mv.from) == Some(Piece::Pawn) && mv.from.file() != mv.to.file());
            let quiet = !is_capture && mv.promotion.is_none();
            let mut child = board.clone();
            child.play_unchecked(mv);
            let gives_check = !child.checkers().is_empty();
            if quiet && best_score > -MATE_BOUND && !gives_check {
                // Futility and late move pruning of quiet moves.
                if futile && i > 0 {
                    continue;
                }
                if !pv_node && !in_check && depth <= 4 && n_quiets >= 4 + depth as usize * depth as usize * 2 {
                    continue;
                }
            }
            if !quiet
                && !pv_node
                && !in_check
                && i > 0
                && depth <= 4
                && best_score > -MATE_BOUND
                && !see_ge(board, mv, -90 * depth)
            {
                continue;
            }
            let new_depth = depth - 1;
            let score = if i == 0 {
                -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, pv_node)
            } else {
                let mut r = 0;
                if depth >= 3 && i >= 3 && quiet && !in_check && !gives_check {
                    r = self.lmr[depth.min(63) as usize][i.min(63)] as i32;
                    if pv_node {
                        r -= 1;
                    }
                    if Some(mv) == self.killers[ply][0] || Some(mv) == self.killers[ply][1] {
                        r -= 1;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut s = -self.negamax(&child, new_depth - r, -alpha - 1, -alpha, ply + 1, false);
                if s > alpha && r > 0 {
                    s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1, false);
                }
                if s > alpha && s < beta && pv_node {
                    s = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, true);
                }
                s
            };
            if self.stopped {
                self.lists[ply] = list;
                return 0;
            }
            if quiet && n_quiets < 64 {
                quiets_tried[n_quiets] = Some(mv);
                n_quiets += 1;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(mv);
                    alpha = score;
                    // Collect the principal variation.
                    self.pv[ply][0] = Some(mv);
                    let child_len = self.pv_len[ply + 1];
                    for k in 0..child_len {
                        self.pv[ply][k + 1] = self.pv[ply + 1][k];
                    }
                    self.pv_len[ply] = child_len + 1;
                    if score >= beta {
                        if quiet {
                            let k = &mut self.killers[ply];
                            if k[0] != Some(mv) {
                                k[1] = k[0];
                                k[0] = Some(mv);
                            }
                            let bonus = (depth * depth).min(400);
                            let h = &mut self.history[us as usize];
                            for q in quiets_tried[..n_quiets].iter().flatten() {
                                let cell = &mut h[q.from as usize][q.to as usize];
                                let b = if *q == mv { bonus } else { -bonus };
                                *cell += 32 * b - *cell * b.abs() / 512;
                            }
                        }
                        break;
                    }
                }
            }
        }
        self.lists[ply] = list;
        if best_score == -INF {
            // Every move was pruned: fall back to the static evaluation.
            return alpha;
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(key, best_move, to_tt(best_score, ply), static_eval, depth, bound);
        best_score
    }

    fn qsearch(&mut self, board: &Board, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = 0;
        self.nodes += 1;
        if self.out_of_time() {
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
        if ply >= MAX_PLY {
            return scaled_eval(board);
        }
        let us = board.side_to_move();
        let stand = if in_check { -INF } else { scaled_eval(board) };
        if !in_check {
            if stand >= beta {
                return stand;
            }
            if stand > alpha {
                alpha = stand;
            }
        }
        let them = board.colors(!us);
        let promo_rank = Rank::Eighth.relative_to(us).bitboard();
        let ep_bb =
            board.en_passant().map_or(BitBoard::EMPTY, |f| Square::new(f, Rank::Sixth.relative_to(us)).bitboard());
        let mut list = std::mem::take(&mut self.lists[ply]);
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
                let order = victim as i32 * 16 - attacker as i32 + if m.promotion.is_some() { 100 } else { 0 };
                list.push((m, order));
            }
            false
        });
        if list.is_empty() && in_check {
            self.lists[ply] = list;
            return -MATE + ply as i32;
        }
        let mut best = stand;
        for i in 0..list.len() {
            let mv = Self::pick(&mut list, i);
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
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1);
            if self.stopped {
                self.lists[ply] = list;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.lists[ply] = list;
        best
    }
}

/// The evaluation, shrunk as the counter grows so that a side that is ahead
/// prefers to make progress (a capture or a pawn move) before the 100-ply draw.
#[inline]
fn scaled_eval(board: &Board) -> i32 {
    let e = evaluate(board);
    let hm = board.halfmove_clock() as i32;
    if hm > 10 {
        e * (110 - hm) / 100
    } else {
        e
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

    fn best(fen: &str, depth: i32) -> (String, i32) {
        let b: Board = crate::notation::fen::parse(fen).unwrap();
        let mut e = Engine::new(8);
        let r = e.search(&b, Limits::depth(depth), Arc::new(AtomicBool::new(false)), &mut |_| {});
        (crate::notation::format_uci(&b, r.best.unwrap()), r.score)
    }

    #[test]
    fn finds_mate_in_one_and_two() {
        let (m, s) = best("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 4);
        assert_eq!(m, "a1a8");
        assert_eq!(Score::from_internal(s), Score::Mate(1));
        // Mate in two with a rook lift: Qh7+?  Use a classic: Kb6 Ka8 Rc8#? Use a ladder.
        let (_, s) = best("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", 6);
        assert_eq!(Score::from_internal(s), Score::Mate(2));
    }

    #[test]
    fn wins_material_and_avoids_stalemate() {
        let (m, _) = best("4k3/8/8/3q4/8/8/3R4/3RK3 w - - 0 1", 4);
        assert_eq!(m, "d2d5");
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
    fn time_budget_respects_the_clock() {
        let (soft, hard) = time_budget(Duration::from_secs(60), Duration::from_secs(1), None);
        assert!(soft < hard && hard < Duration::from_secs(20));
        let (soft, hard) = time_budget(Duration::from_millis(50), Duration::ZERO, Some(1));
        assert!(soft <= Duration::from_millis(50) && hard <= Duration::from_millis(50));
    }
}
