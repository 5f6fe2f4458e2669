//! The `perfect` level: plays from the solution table.

use super::policy::ColdWarPolicy;
use crate::rules::{ColdWar, Move};
use crate::solve::cache::shared_table;
use crate::solve::{Table, Value};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tabula_ai::{levels, Mcts};
use tabula_core::{Agent, Game, ThinkContext};

/// The search that picks among drawing moves: `medium`'s budget, which
/// draws `expert` and beats `easy` nearly as often as `expert` does.
const PRESSURE_LEVEL: &str = "medium";

/// Plays the fastest win, the longest loss, or else a drawing move. Among
/// drawing moves it plays the one an MCTS search (`medium`'s budget, the
/// board heuristic of the search levels) likes best: a draw is all perfect
/// play can force, so what wins games is pressure on a fallible opponent,
/// and the search supplies it without ever leaving the draw. Without the
/// search it prefers the drawing moves that leave the opponent the most
/// losing replies, and breaks remaining ties by the seed.
pub struct PerfectAgent {
    table: &'static Table,
    rng: SmallRng,
    /// Picks among the drawing moves; `None` falls back to the ones that
    /// set the most traps.
    pressure: Option<Mcts<ColdWar, ColdWarPolicy>>,
}

impl PerfectAgent {
    /// An agent on the process-wide table (read or solved on first use).
    pub fn new(seed: u64) -> Self {
        Self::with_table(shared_table(), seed)
    }

    /// An agent that plays from `table` (tests pass a table they built).
    pub fn with_table(table: &'static Table, seed: u64) -> Self {
        let budget = levels::mcts_budget(PRESSURE_LEVEL).expect("a generic level");
        let search = Mcts::new(levels::mcts_config(budget, seed), ColdWarPolicy::default());
        PerfectAgent { table, rng: SmallRng::seed_from_u64(seed), pressure: Some(search) }
    }

    /// The same agent without the search: among drawing moves it plays one
    /// that leaves the most losing replies (ties by the seed). Instant, for
    /// tests and analysis.
    pub fn without_search(mut self) -> Self {
        self.pressure = None;
        self
    }
}

impl PerfectAgent {
    /// The drawing moves after which the opponent has the most replies
    /// that lose.
    fn most_traps(&self, state: &ColdWar, drawing: Vec<Move>) -> Vec<Move> {
        let traps: Vec<usize> = drawing
            .iter()
            .map(|&m| {
                let mut next = state.clone();
                next.play(m);
                self.table.move_evals(&next).iter().filter(|(_, e)| e.value == Value::Loss).count()
            })
            .collect();
        let most = traps.iter().copied().max().unwrap_or(0);
        drawing.into_iter().zip(traps).filter(|&(_, t)| t == most).map(|(m, _)| m).collect()
    }
}

impl Agent<ColdWar> for PerfectAgent {
    fn choose(&mut self, state: &ColdWar, ctx: &ThinkContext) -> Move {
        let best = self.table.best_moves(state);
        if best.is_empty() {
            // Only a finished board has no best move, and agents are only
            // asked on ongoing games; fall back to any legal move.
            let mut moves = Vec::new();
            state.legal_moves(&mut moves);
            return moves[self.rng.random_range(0..moves.len())];
        }
        if self.table.eval(state).value != Value::Draw {
            return best[self.rng.random_range(0..best.len())];
        }
        if let (Some(search), true) = (self.pressure.as_mut(), best.len() > 1) {
            search.search(state, ctx);
            // The most visited root move that keeps the draw; the search
            // sees every legal move, so one is there unless the clock cut
            // it short before it tried them all.
            if let Some(m) = search.root_moves().iter().map(|r| r.mv).find(|m| best.contains(m)) {
                return m;
            }
        }
        let best = self.most_traps(state, best);
        best[self.rng.random_range(0..best.len())]
    }

    fn describe(&self) -> String {
        "perfect play from the solution table".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::tests::full_table;
    use tabula_core::{GameMeta, NoOptions, Player, Status};

    fn play_out(x: &mut dyn Agent<ColdWar>, o: &mut dyn Agent<ColdWar>) -> ColdWar {
        let mut g = ColdWar::new(&NoOptions);
        while !g.status().is_over() {
            let ctx = ThinkContext::default();
            let m = if g.to_move() == Player::First { x.choose(&g, &ctx) } else { o.choose(&g, &ctx) };
            g.play(m);
        }
        g
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "solves the whole game: run with --release")]
    fn perfect_play_takes_the_fastest_win_and_beats_random_play() {
        let table = full_table();
        let mut agent = PerfectAgent::with_table(table, 1);
        let g = ColdWar::from_position("X1X1X1/X1X1X1/X1X2. X", &NoOptions).unwrap();
        for _ in 0..20 {
            let m = agent.choose(&g, &ThinkContext::default());
            assert!(["c1", "b1-c1"].contains(&g.format_move(m).as_str()));
        }
        for seed in 0..6 {
            let mut perfect = PerfectAgent::with_table(table, seed);
            let mut random = ColdWar::new_agent("random", seed).unwrap();
            let (x, o): (&mut dyn Agent<ColdWar>, &mut dyn Agent<ColdWar>) =
                if seed % 2 == 0 { (&mut perfect, random.as_mut()) } else { (random.as_mut(), &mut perfect) };
            let g = play_out(x, o);
            let perfect_side = if seed % 2 == 0 { Player::First } else { Player::Second };
            assert_eq!(g.status().outcome().unwrap().winner, Some(perfect_side), "seed {seed}");
        }
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "solves the whole game: run with --release")]
    fn the_search_only_ever_picks_a_drawing_move_in_a_drawn_position() {
        let table = full_table();
        let mut random = ColdWar::new_agent("random", 7).unwrap();
        let mut perfect = PerfectAgent::with_table(table, 3);
        let mut g = ColdWar::new(&NoOptions);
        let mut checked = 0;
        while !g.status().is_over() && checked < 40 {
            if table.eval(&g).value == Value::Draw {
                let m = perfect.choose(&g, &ThinkContext::default());
                let best = table.best_moves(&g);
                assert!(best.contains(&m), "{} is not a drawing move in {:?}", g.format_move(m), g.position());
                checked += 1;
            }
            g.play(random.choose(&g, &ThinkContext::default()));
        }
        assert!(checked >= 10, "only {checked} drawn positions on the way");
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "solves the whole game: run with --release")]
    fn perfect_against_perfect_is_a_draw() {
        let table = full_table();
        // One with the search that picks among drawing moves, one without.
        let (mut x, mut o) = (PerfectAgent::with_table(table, 1), PerfectAgent::with_table(table, 2).without_search());
        let g = play_out(&mut x, &mut o);
        assert!(matches!(g.status(), Status::Over(o) if o.winner.is_none()), "{:?}", g.status());
    }
}
