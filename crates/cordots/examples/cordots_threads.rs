//! Time to depth of the Cordots alpha-beta on one thread and on two (Lazy
//! SMP), with nodes per second, from the start and from two middle games.
//! A measure, not a test: run it on a quiet machine.
//!
//!     cargo run --release -p tabula-cordots --example cordots_threads [-- DEPTH]

use tabula_ai::alphabeta::{AlphaBeta, AlphaBetaConfig};
use tabula_cordots::ai::CordotsEval;
use tabula_cordots::{Cordots, CordotsOptions};
use tabula_core::{Game, ThinkContext};

fn main() {
    let depth: u32 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(9);
    let start = Cordots::new(&CordotsOptions::default());
    // Middle games: a depth-5 alpha-beta, so every run measures the same
    // positions.
    let mut positions = vec![("start".to_string(), start.clone())];
    let mut g = start;
    let mut ai = AlphaBeta::new(
        AlphaBetaConfig { time: None, max_depth: 5, ..AlphaBetaConfig::default() },
        CordotsEval::default(),
    );
    for ply in 1..=24 {
        if g.status().is_over() {
            break;
        }
        let mv = ai.search(&g, &ThinkContext::default());
        g.play(mv);
        if ply % 12 == 0 {
            positions.push((format!("ply {ply}"), g.clone()));
        }
    }
    println!("{:<8} {:>7} {:>6} {:>10} {:>12} {:>9}", "position", "threads", "depth", "seconds", "nodes/s", "speed-up");
    for (name, pos) in &positions {
        let mut base = 0.0;
        for threads in [1, 2] {
            let config = AlphaBetaConfig { time: None, max_depth: depth, tt_bits: 20, ..AlphaBetaConfig::default() };
            let mut ai = AlphaBeta::new(config, CordotsEval::default());
            ai.search(pos, &ThinkContext { threads, ..ThinkContext::default() });
            let secs = ai.stats.elapsed.as_secs_f64();
            if threads == 1 {
                base = secs;
            }
            let rate = ai.stats.nodes as f64 / secs.max(1e-9);
            println!("{name:<8} {threads:>7} {:>6} {secs:>10.3} {rate:>12.0} {:>8.2}x", ai.stats.depth, base / secs);
        }
    }
}
