//! Generic negamax alpha-beta with iterative deepening and a transposition
//! table, for games that give an evaluation.

use std::time::{Duration, Instant};
use tabula_core::{Agent, Game, Status, ThinkContext};

/// Scores at or beyond this are wins (`WIN - plies`) or losses.
pub const WIN: i32 = 1_000_000;
const INF: i32 = WIN + 1;

/// A game's static evaluation, from the point of view of the side to move.
pub trait Evaluator<G: Game>: Send {
    /// Positive is good for the side to move. Keep well inside ±`WIN/2`.
    fn evaluate(&mut self, state: &G) -> i32;
    /// Put the most promising moves first (the TT move is put first anyway).
    fn order(&mut self, _state: &G, _moves: &mut [G::Move]) {}
}

#[derive(Debug, Clone)]
pub struct AlphaBetaConfig {
    pub max_depth: u32,
    pub time: Option<Duration>,
    pub max_nodes: Option<u64>,
    /// The table has `1 << tt_bits` entries.
    pub tt_bits: u32,
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig { max_depth: 64, time: Some(Duration::from_secs(1)), max_nodes: None, tt_bits: 18 }
    }
}

#[derive(Clone, Copy)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy)]
struct TtEntry<M> {
    key: u64,
    depth: u8,
    bound: Bound,
    score: i32,
    best: Option<M>,
}

/// What the last search found.
#[derive(Debug, Clone, Default)]
pub struct AbStats {
    pub depth: u32,
    pub score: i32,
    pub nodes: u64,
    pub elapsed: Duration,
}

pub struct AlphaBeta<G: Game, E: Evaluator<G>> {
    pub config: AlphaBetaConfig,
    eval: E,
    tt: Vec<Option<TtEntry<G::Move>>>,
    buffers: Vec<Vec<G::Move>>,
    nodes: u64,
    deadline: Option<Instant>,
    aborted: bool,
    pub stats: AbStats,
}

impl<G: Game, E: Evaluator<G>> AlphaBeta<G, E> {
    pub fn new(config: AlphaBetaConfig, eval: E) -> Self {
        let tt = vec![None; 1usize << config.tt_bits];
        AlphaBeta {
            config,
            eval,
            tt,
            buffers: Vec::new(),
            nodes: 0,
            deadline: None,
            aborted: false,
            stats: AbStats::default(),
        }
    }

    fn tt_index(&self, key: u64) -> usize {
        (key as usize) & (self.tt.len() - 1)
    }

    fn out_of_budget(&mut self, ctx: &ThinkContext) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes & 1023 == 0 {
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            let too_many = self.config.max_nodes.is_some_and(|n| self.nodes >= n);
            if late || too_many || ctx.stopped() {
                self.aborted = true;
            }
        }
        self.aborted
    }

    fn negamax(&mut self, state: &G, depth: u32, ply: u32, mut alpha: i32, beta: i32, ctx: &ThinkContext) -> i32 {
        self.nodes += 1;
        if let Status::Over(o) = state.status() {
            return match o.winner {
                None => 0,
                Some(w) if w == state.to_move() => WIN - ply as i32,
                Some(_) => -(WIN - ply as i32),
            };
        }
        if depth == 0 {
            return self.eval.evaluate(state);
        }
        if self.out_of_budget(ctx) {
            return 0;
        }
        let key = state.hash();
        let idx = self.tt_index(key);
        let mut tt_move = None;
        if let Some(e) = self.tt[idx] {
            if e.key == key {
                tt_move = e.best;
                if e.depth as u32 >= depth && ply > 0 {
                    match e.bound {
                        Bound::Exact => return e.score,
                        Bound::Lower if e.score >= beta => return e.score,
                        Bound::Upper if e.score <= alpha => return e.score,
                        _ => {}
                    }
                }
            }
        }
        let mut moves = self.buffers.get_mut(ply as usize).map(std::mem::take).unwrap_or_default();
        state.legal_moves(&mut moves);
        self.eval.order(state, &mut moves);
        if let Some(t) = tt_move {
            if let Some(pos) = moves.iter().position(|&m| m == t) {
                moves[..=pos].rotate_right(1);
            }
        }
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        let mut child = state.clone();
        for (i, &m) in moves.iter().enumerate() {
            if i > 0 {
                child.clone_from(state);
            }
            child.play(m);
            let score = -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha, ctx);
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                best_move = Some(m);
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        if self.buffers.len() <= ply as usize {
            self.buffers.resize_with(ply as usize + 1, Vec::new);
        }
        self.buffers[ply as usize] = moves;
        if !self.aborted {
            let bound = if best <= alpha0 {
                Bound::Upper
            } else if best >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            self.tt[idx] = Some(TtEntry { key, depth: depth.min(255) as u8, bound, score: best, best: best_move });
        }
        best
    }

    /// Search with iterative deepening; returns the best move of the last
    /// completed depth.
    pub fn search(&mut self, state: &G, ctx: &ThinkContext) -> G::Move {
        let started = Instant::now();
        self.nodes = 0;
        self.aborted = false;
        self.deadline = ctx.deadline_for(self.config.time, started);
        let mut moves = Vec::new();
        state.legal_moves(&mut moves);
        let mut best = moves[0];
        self.stats = AbStats::default();
        for depth in 1..=self.config.max_depth {
            let score = self.negamax(state, depth, 0, -INF, INF, ctx);
            if self.aborted {
                break;
            }
            let key = state.hash();
            if let Some(e) = self.tt[self.tt_index(key)] {
                if e.key == key {
                    if let Some(m) = e.best {
                        best = m;
                    }
                }
            }
            self.stats.depth = depth;
            self.stats.score = score;
            if score.abs() >= WIN - 1000 {
                break; // a forced result was found
            }
        }
        self.stats.nodes = self.nodes;
        self.stats.elapsed = started.elapsed();
        best
    }
}

impl<G: Game, E: Evaluator<G>> Agent<G> for AlphaBeta<G, E> {
    fn choose(&mut self, state: &G, ctx: &ThinkContext) -> G::Move {
        self.search(state, ctx)
    }
    fn describe(&self) -> String {
        match self.config.time {
            Some(t) => format!("alpha-beta, up to depth {} or {:.1} s", self.config.max_depth, t.as_secs_f64()),
            None => format!("alpha-beta, depth {}", self.config.max_depth),
        }
    }
}
