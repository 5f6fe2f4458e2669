//! A Cordots alpha-beta: principal-variation search with iterative
//! deepening, a transposition table, killer and history move ordering, and a
//! capture quiescence search, so that no line ends in the middle of an
//! exchange. Game ends (eliminations, no move, repetition, the untimed ply
//! cap with its tie-breaker) come from [`Cordots::status`], so the search
//! sees the exact tie-breaker result whenever the cap is within its reach.

use crate::ai::CordotsEval;
use crate::game::{Cordots, Move};
use std::time::{Duration, Instant};
use tabula_core::{Agent, Game, Status, ThinkContext};

/// Scores at or beyond `WIN - MAX_PLY` are forced results (`WIN - plies`).
pub const WIN: i32 = 1_000_000;
const INF: i32 = WIN + 1;
const MAX_PLY: usize = 128;
/// Captures searched past the nominal depth, at most.
const MAX_QDEPTH: u32 = 12;

#[derive(Debug, Clone)]
pub struct SearchConfig {
    pub time: Option<Duration>,
    pub max_depth: u32,
    pub max_nodes: Option<u64>,
    /// The table has `1 << tt_bits` entries.
    pub tt_bits: u32,
    /// Search captures beyond the nominal depth.
    pub quiescence: bool,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            time: Some(Duration::from_secs(1)),
            max_depth: 64,
            max_nodes: None,
            tt_bits: 20,
            quiescence: true,
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    best: Option<Move>,
    score: i32,
    depth: u8,
    /// 0 exact, 1 lower bound, 2 upper bound.
    bound: u8,
}

/// What the last search found.
#[derive(Debug, Clone, Default)]
pub struct SearchStats {
    pub depth: u32,
    pub score: i32,
    pub nodes: u64,
    pub elapsed: Duration,
}

pub struct Searcher {
    pub config: SearchConfig,
    pub eval: CordotsEval,
    tt: Vec<Entry>,
    killers: [[Option<Move>; 2]; MAX_PLY],
    /// `[side][from][to]` cut-off counts.
    history: Box<[[[i32; 64]; 64]; 2]>,
    buffers: Vec<Vec<Move>>,
    children: Vec<Cordots>,
    nodes: u64,
    deadline: Option<Instant>,
    aborted: bool,
    pub stats: SearchStats,
}

fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN - MAX_PLY as i32 * 4 {
        score + ply as i32
    } else if score <= -(WIN - MAX_PLY as i32 * 4) {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN - MAX_PLY as i32 * 4 {
        score - ply as i32
    } else if score <= -(WIN - MAX_PLY as i32 * 4) {
        score + ply as i32
    } else {
        score
    }
}

impl Searcher {
    pub fn new(config: SearchConfig, eval: CordotsEval) -> Self {
        let tt = vec![Entry::default(); 1usize << config.tt_bits];
        Searcher {
            config,
            eval,
            tt,
            killers: [[None; 2]; MAX_PLY],
            history: Box::new([[[0; 64]; 64]; 2]),
            buffers: Vec::new(),
            children: Vec::new(),
            nodes: 0,
            deadline: None,
            aborted: false,
            stats: SearchStats::default(),
        }
    }

    /// The table key: near the ply cap the value of a position depends on
    /// the plies left, so they are mixed in there.
    fn key(&self, g: &Cordots) -> u64 {
        let plies_left = self.eval.plies_left(g);
        if plies_left < 64 {
            g.hash() ^ (plies_left as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        } else {
            g.hash()
        }
    }

    fn out_of_budget(&mut self, ctx: &ThinkContext) -> bool {
        if !self.aborted && self.nodes & 1023 == 0 {
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            let too_many = self.config.max_nodes.is_some_and(|n| self.nodes >= n);
            if late || too_many || ctx.stopped() {
                self.aborted = true;
            }
        }
        self.aborted
    }

    fn terminal(g: &Cordots, ply: usize) -> Option<i32> {
        match g.status() {
            Status::Ongoing => None,
            Status::Over(o) => Some(match o.winner {
                None => 0,
                Some(w) if w == g.to_move() => WIN - ply as i32,
                Some(_) => -(WIN - ply as i32),
            }),
        }
    }

    fn take_buffer(&mut self, ply: usize) -> Vec<Move> {
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, Vec::new);
        }
        std::mem::take(&mut self.buffers[ply])
    }

    fn child(&mut self, g: &Cordots, m: Move) -> Cordots {
        let mut c = match self.children.pop() {
            Some(mut c) => {
                c.clone_from(g);
                c
            }
            None => g.clone(),
        };
        c.play(m);
        c
    }

    /// Order `moves`: the table move, captures (more first), killers, then
    /// by history; moves that die on arrival and sacrifices last.
    fn order(&self, g: &Cordots, moves: &mut [Move], tt_move: Option<Move>, ply: usize) {
        let side = g.to_move().index();
        let killers = if ply < MAX_PLY { self.killers[ply] } else { [None; 2] };
        moves.sort_by_cached_key(|&m| {
            if Some(m) == tt_move {
                return i32::MIN;
            }
            let r = g.resolve(m.from, m.to);
            let n = r.captured.count_ones() as i32;
            let mut key = if n > 0 {
                -1_000_000_000 - n * 1_000_000
            } else if Some(m) == killers[0] {
                -900_000_000
            } else if Some(m) == killers[1] {
                -899_999_999
            } else {
                -self.history[side][m.from as usize][m.to as usize].min(800_000_000)
            };
            if r.dies {
                key += 1_500_000_000;
            }
            if r.sacrifice {
                key = key.saturating_add(500_000_000);
            }
            key
        });
    }

    fn quiesce(&mut self, g: &Cordots, ply: usize, qdepth: u32, mut alpha: i32, beta: i32, ctx: &ThinkContext) -> i32 {
        self.nodes += 1;
        if let Some(t) = Self::terminal(g, ply) {
            return t;
        }
        if self.out_of_budget(ctx) {
            return 0;
        }
        let stand = self.eval.quiet_score(g);
        if stand >= beta || qdepth >= MAX_QDEPTH || ply + 1 >= MAX_PLY {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut best = stand;
        let mut moves = self.take_buffer(ply);
        g.legal_moves(&mut moves);
        // Captures that survive, more captured first.
        moves.retain(|m| {
            let r = g.resolve(m.from, m.to);
            r.captured != 0 && !r.sacrifice
        });
        moves.sort_by_cached_key(|m| -(g.resolve(m.from, m.to).captured.count_ones() as i32));
        for &m in &moves {
            let child = self.child(g, m);
            let score = -self.quiesce(&child, ply + 1, qdepth + 1, -beta, -alpha, ctx);
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

    fn negamax(&mut self, g: &Cordots, depth: u32, ply: usize, mut alpha: i32, beta: i32, ctx: &ThinkContext) -> i32 {
        if let Some(t) = Self::terminal(g, ply) {
            self.nodes += 1;
            return t;
        }
        if depth == 0 || ply + 1 >= MAX_PLY {
            return if self.config.quiescence {
                self.quiesce(g, ply, 0, alpha, beta, ctx)
            } else {
                self.nodes += 1;
                self.eval.score(g)
            };
        }
        self.nodes += 1;
        if self.out_of_budget(ctx) {
            return 0;
        }
        // A position seen before can be repeated again: score it a draw, so
        // the side ahead makes progress and the side behind seeks it.
        if ply > 0 && g.repetitions() >= 2 {
            return 0;
        }
        let key = self.key(g);
        let idx = (key as usize) & (self.tt.len() - 1);
        let e = self.tt[idx];
        let mut tt_move = None;
        if e.key == key {
            tt_move = e.best;
            if e.depth as u32 >= depth && ply > 0 {
                let s = from_tt(e.score, ply);
                match e.bound {
                    0 => return s,
                    1 if s >= beta => return s,
                    2 if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        let mut moves = self.take_buffer(ply);
        g.legal_moves(&mut moves);
        self.order(g, &mut moves, tt_move, ply);
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        for (i, &m) in moves.iter().enumerate() {
            let child = self.child(g, m);
            let score = if i == 0 {
                -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha, ctx)
            } else {
                let s = -self.negamax(&child, depth - 1, ply + 1, -alpha - 1, -alpha, ctx);
                if s > alpha && s < beta && !self.aborted {
                    -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha, ctx)
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
                if score > alpha {
                    alpha = score;
                }
                if alpha >= beta {
                    if g.resolve(m.from, m.to).captured == 0 {
                        if ply < MAX_PLY && self.killers[ply][0] != Some(m) {
                            self.killers[ply][1] = self.killers[ply][0];
                            self.killers[ply][0] = Some(m);
                        }
                        let h = &mut self.history[g.to_move().index()][m.from as usize][m.to as usize];
                        *h += (depth * depth) as i32;
                    }
                    break;
                }
            }
        }
        self.buffers[ply] = moves;
        if !self.aborted {
            let bound = if best <= alpha0 {
                2
            } else if best >= beta {
                1
            } else {
                0
            };
            self.tt[idx] = Entry { key, best: best_move, score: to_tt(best, ply), depth: depth.min(255) as u8, bound };
        }
        best
    }

    /// Iterative deepening; the best move of the deepest finished search.
    pub fn search(&mut self, g: &Cordots, ctx: &ThinkContext) -> Move {
        let started = Instant::now();
        self.nodes = 0;
        self.aborted = false;
        self.killers = [[None; 2]; MAX_PLY];
        for side in self.history.iter_mut() {
            for row in side.iter_mut() {
                for h in row.iter_mut() {
                    *h /= 8;
                }
            }
        }
        self.deadline = ctx.deadline_for(self.config.time, started);
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let mut best = moves[0];
        self.stats = SearchStats::default();
        if moves.len() == 1 {
            return best;
        }
        for depth in 1..=self.config.max_depth {
            let score = self.negamax(g, depth, 0, -INF, INF, ctx);
            let key = self.key(g);
            let e = self.tt[(key as usize) & (self.tt.len() - 1)];
            if self.aborted {
                // A partly searched depth still improves on the last one when
                // its first (the previous best) move was refuted or beaten.
                break;
            }
            if e.key == key {
                if let Some(m) = e.best {
                    best = m;
                }
            }
            self.stats.depth = depth;
            self.stats.score = score;
            if score.abs() >= WIN - MAX_PLY as i32 * 4 {
                break; // a forced result
            }
        }
        self.stats.nodes = self.nodes;
        self.stats.elapsed = started.elapsed();
        best
    }
}

impl Agent<Cordots> for Searcher {
    fn choose(&mut self, state: &Cordots, ctx: &ThinkContext) -> Move {
        self.search(state, ctx)
    }
    fn describe(&self) -> String {
        match self.config.time {
            Some(t) => format!("Cordots alpha-beta with quiescence, {:.1} s", t.as_secs_f64()),
            None => format!("Cordots alpha-beta with quiescence, depth {}", self.config.max_depth),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CordotsOptions;

    fn pos(p: &str) -> Cordots {
        Cordots::from_position(p, &CordotsOptions::default()).unwrap()
    }

    fn best(g: &Cordots, depth: u32) -> String {
        let config = SearchConfig { time: None, max_depth: depth, tt_bits: 12, ..SearchConfig::default() };
        let mut s = Searcher::new(config, CordotsEval::default());
        g.format_move(s.search(g, &ThinkContext::default()))
    }

    /// d3-d4 takes a black Victim (c4); e4-e5 takes two black Capturers
    /// (e6 with e7, f5 with g5). Victims stand 2 to 2.
    const CHOICE: &str = "v6c/4C3/4c3/5cC1/1Cv1C3/3C4/8/V6V w 0 0";

    #[test]
    fn takes_more_material_far_from_the_cap() {
        assert_eq!(best(&pos(CHOICE), 2), "e4-e5");
    }

    #[test]
    fn takes_the_tie_breaker_win_at_the_cap() {
        // The move reaches ply 300: only the Victim capture wins there.
        let g = pos(CHOICE).with_plies(299);
        assert_eq!(best(&g, 1), "d3-d4");
        assert_eq!(best(&g, 3), "d3-d4");
    }

    #[test]
    fn near_the_cap_a_victim_is_worth_more_than_two_capturers() {
        // Beyond the search's reach of the cap, the evaluation must see it.
        let g = pos(CHOICE).with_plies(280);
        assert_eq!(best(&g, 2), "d3-d4");
    }

    #[test]
    fn does_not_sacrifice_two_victims_for_a_capturer() {
        // b7-b8 would force the sacrifice: b8 goes, a1 becomes a Capturer.
        let g = pos("c7/1V6/8/8/8/8/4v3/V3C2c w 1 0");
        let sq = |s| crate::bitboard::parse_square(s).unwrap();
        assert!(g.resolve(sq("b7"), sq("b8")).sacrifice);
        for depth in 1..=4 {
            let m = best(&g, depth);
            assert!(!m.contains('='), "depth {depth} chose {m}");
        }
    }

    #[test]
    fn quiescence_sees_the_recapture() {
        // e3-e4 takes e5 (with e6), but then f3-e3 takes d3 (with c3) and
        // e2 (with e1): two Victims for a Capturer. At depth 1 only the
        // capture search sees it.
        let g = pos("7c/8/4C3/4c3/8/2cVCc2/4V3/C3c3 w 0 0");
        let config =
            SearchConfig { time: None, max_depth: 1, tt_bits: 12, quiescence: false, ..SearchConfig::default() };
        let mut plain = Searcher::new(config.clone(), CordotsEval::default());
        assert_eq!(g.format_move(plain.search(&g, &ThinkContext::default())), "e3-e4");
        let mut q = Searcher::new(SearchConfig { quiescence: true, ..config }, CordotsEval::default());
        assert_ne!(g.format_move(q.search(&g, &ThinkContext::default())), "e3-e4");
    }
}
