//! Iterations per second of the Dots MCTS on one thread and on two (one
//! shared tree, or a tree a thread), the search before RAVE and the levels'
//! (RAVE, longer playouts), on a 39x32 board from the cross start and after
//! 60 plies. A measure, not a test: run it on a quiet machine.
//!
//!     cargo run --release -p tabula-dots --example dots_threads [-- SECONDS]

use std::time::Duration;
use tabula_ai::{Mcts, MctsConfig, Parallelism};
use tabula_core::{Game, ThinkContext};
use tabula_dots::ai::{DotsPolicy, Focus, Search, LEVEL_CUTOFF, LEVEL_RAVE};
use tabula_dots::{Dots, DotsOptions};

fn main() {
    let seconds: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let start = Dots::new(&DotsOptions::default());
    // 60 plies of the 1-thread AI at 2000 playouts a move: a middle game,
    // the same on every run so that runs compare.
    let mut middle = start.clone();
    let mut ai = Mcts::new(
        MctsConfig { iterations: Some(2000), time: None, seed: 1, ..MctsConfig::default() },
        DotsPolicy::new(60),
    );
    for _ in 0..60 {
        let mv = ai.search(&Focus::from_dots(&middle), &ThinkContext::default());
        middle.play(mv);
    }
    println!("{:<8} {:<6} {:<16} {:>14} {:>9}", "position", "search", "threads", "iterations/s", "gain");
    for (name, pos) in [("start", &start), ("ply 60", &middle)] {
        // The search before RAVE (cut-off 60, exploration 0.6) and the levels'.
        for (search, rave, cutoff, exploration) in
            [("UCT", None, 60, 0.6), ("RAVE", Some(LEVEL_RAVE), LEVEL_CUTOFF, 0.0)]
        {
            let mut base = 0.0;
            let runs = [
                (1, Parallelism::SharedTree, "1"),
                (2, Parallelism::SharedTree, "2, shared tree"),
                (2, Parallelism::SeparateTrees, "2, tree a thread"),
            ];
            for (threads, parallelism, label) in runs {
                let time = Duration::from_secs_f64(seconds);
                let chosen = match rave {
                    Some(_) => Search::level(time, cutoff),
                    None => Search { exploration, cutoff, ..Search::uct(time) },
                };
                let config = MctsConfig { reuse_tree: false, parallelism, ..chosen.mcts_config(0) };
                let mut ai = Mcts::new(config, DotsPolicy::new(cutoff));
                ai.search(&Focus::from_dots(pos), &ThinkContext { threads, ..ThinkContext::default() });
                let rate = ai.stats.iterations as f64 / ai.stats.elapsed.as_secs_f64();
                if threads == 1 {
                    base = rate;
                }
                println!("{name:<8} {search:<6} {label:<16} {rate:>14.0} {:>8.2}x", rate / base);
            }
        }
    }
}
