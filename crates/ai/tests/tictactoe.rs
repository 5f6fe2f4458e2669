//! The generic AIs on a game small enough to know the answers: tic-tac-toe.

use std::time::Duration;
use tabula_ai::alphabeta::WIN;
use tabula_ai::{AlphaBeta, AlphaBetaConfig, Evaluator, Mcts, MctsConfig, RandomPolicy};
use tabula_core::example::TicTacToe;
use tabula_core::{Agent, Game, NoOptions, Outcome, Status, ThinkContext};

#[derive(Clone)]
struct Zero;
impl Evaluator<TicTacToe> for Zero {
    fn evaluate(&mut self, _: &TicTacToe) -> i32 {
        0
    }
}

fn mcts(seed: u64, iterations: u64) -> Mcts<TicTacToe, RandomPolicy<TicTacToe>> {
    Mcts::new(MctsConfig { iterations: Some(iterations), seed, ..MctsConfig::default() }, RandomPolicy::default())
}

#[test]
fn mcts_takes_a_win_in_one_and_blocks_a_loss() {
    // x to move wins at 2.
    let win = TicTacToe::from_position("xx.oo....", &NoOptions).unwrap();
    assert_eq!(mcts(1, 2000).choose(&win, &ThinkContext::default()), 2);
    // o to move must block at 2 (x threatens 0-1-2).
    let block = TicTacToe::from_position("xx..o....", &NoOptions).unwrap();
    assert_eq!(mcts(2, 5000).choose(&block, &ThinkContext::default()), 2);
}

#[test]
fn mcts_is_deterministic_for_a_seed() {
    let start = TicTacToe::new(&NoOptions);
    let a: Vec<u8> = (0..3).map(|_| mcts(7, 500).choose(&start, &ThinkContext::default())).collect();
    let b: Vec<u8> = (0..3).map(|_| mcts(7, 500).choose(&start, &ThinkContext::default())).collect();
    assert_eq!(a, b);
}

#[test]
fn mcts_reuses_its_tree_between_moves() {
    let mut ai = mcts(3, 3000);
    let mut g = TicTacToe::new(&NoOptions);
    let m = ai.choose(&g, &ThinkContext::default());
    g.play(m);
    // The opponent replies; the next search starts from the known subtree.
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    g.play(moves[0]);
    ai.choose(&g, &ThinkContext::default());
    assert!(ai.stats.reused_visits > 0, "no visits were reused");
}

#[test]
fn mcts_respects_a_time_budget() {
    let mut ai = Mcts::new(
        MctsConfig { iterations: None, time: Some(Duration::from_millis(50)), ..MctsConfig::default() },
        RandomPolicy::<TicTacToe>::default(),
    );
    let started = std::time::Instant::now();
    ai.choose(&TicTacToe::new(&NoOptions), &ThinkContext::default());
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(ai.stats.iterations > 0);
}

#[test]
fn alphabeta_solves_tictactoe() {
    let mut ab = AlphaBeta::new(AlphaBetaConfig { max_depth: 9, time: None, ..AlphaBetaConfig::default() }, Zero);
    ab.search(&TicTacToe::new(&NoOptions), &ThinkContext::default());
    assert_eq!(ab.stats.score, 0, "tic-tac-toe is a draw");
    let win = TicTacToe::from_position("xx.oo....", &NoOptions).unwrap();
    assert_eq!(ab.search(&win, &ThinkContext::default()), 2);
    assert_eq!(ab.stats.score, WIN - 1);
    // o to move, x has a double threat: o loses whatever it does.
    let lost = TicTacToe::from_position("x.x.o.x.o", &NoOptions).unwrap();
    ab.search(&lost, &ThinkContext::default());
    assert!(ab.stats.score <= -(WIN - 10), "score {}", ab.stats.score);
}

#[test]
fn perfect_players_draw() {
    let mut g = TicTacToe::new(&NoOptions);
    let mut ab = AlphaBeta::new(AlphaBetaConfig { max_depth: 9, time: None, ..AlphaBetaConfig::default() }, Zero);
    while !g.status().is_over() {
        let m = ab.search(&g, &ThinkContext::default());
        g.play(m);
    }
    assert_eq!(g.status(), Status::Over(Outcome::draw("board full")));
}

#[test]
fn alphabeta_on_several_threads_solves_tictactoe() {
    for threads in [2, 4] {
        let ctx = ThinkContext { threads, ..ThinkContext::default() };
        let mut ab = AlphaBeta::new(AlphaBetaConfig { max_depth: 9, time: None, ..AlphaBetaConfig::default() }, Zero);
        ab.search(&TicTacToe::new(&NoOptions), &ctx);
        assert_eq!(ab.stats.score, 0, "{threads} threads: tic-tac-toe is a draw");
        assert_eq!(ab.stats.depth, 9, "{threads} threads: the answer comes from a finished depth");
        let win = TicTacToe::from_position("xx.oo....", &NoOptions).unwrap();
        assert_eq!(ab.search(&win, &ctx), 2);
        assert_eq!(ab.stats.score, WIN - 1);
        let block = TicTacToe::from_position("xx..o....", &NoOptions).unwrap();
        assert_eq!(ab.search(&block, &ctx), 2, "{threads} threads: o must block");
        // Perfect players draw, whichever thread's answer is taken.
        let mut g = TicTacToe::new(&NoOptions);
        while !g.status().is_over() {
            let m = ab.search(&g, &ctx);
            g.play(m);
        }
        assert_eq!(g.status(), Status::Over(Outcome::draw("board full")), "{threads} threads");
    }
}

#[test]
fn alphabeta_helpers_stop_with_the_budget() {
    // A stop request ends every thread: the search returns at once.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let ctx = ThinkContext { threads: 2, stop: Some(stop), ..ThinkContext::default() };
    let mut ab = AlphaBeta::new(AlphaBetaConfig { max_depth: 9, time: None, ..AlphaBetaConfig::default() }, Zero);
    let m = ab.search(&TicTacToe::new(&NoOptions), &ctx);
    assert!(m < 9);
    assert_eq!(ab.stats.depth, 0, "no depth can finish once stopped");
}
