//! Speed figures: deep perft on the standard positions (too slow for unit
//! tests), random playouts through the Game API, and search nodes per second.

use criterion::{criterion_group, criterion_main, Criterion};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use tabula_core::{Game, NoOptions};
use tabula_cumisitha::ai::{Engine, Limits};
use tabula_cumisitha::tools::perft::{perft, STANDARD_POSITIONS};
use tabula_cumisitha::Cumisitha;

fn deep_perft(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    for (name, fen, counts) in STANDARD_POSITIONS {
        let board = tabula_cumisitha::notation::fen::parse(fen).unwrap();
        // The deepest published depth under ~20 million nodes.
        let depth = counts.iter().take_while(|&&n| n <= 20_000_000).count();
        let expected = counts[depth - 1];
        g.bench_function(format!("{name} depth {depth}"), |b| {
            b.iter(|| assert_eq!(perft(&board, depth as u32), expected))
        });
    }
    g.finish();
}

fn playouts(c: &mut Criterion) {
    let start = Cumisitha::new(&NoOptions);
    let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(1);
    let mut moves = Vec::new();
    let mut state = start.clone();
    c.bench_function("random playout", |b| {
        b.iter(|| {
            state.clone_from(&start);
            state.random_playout(&mut rng, &mut moves, u32::MAX)
        })
    });
}

fn search(c: &mut Criterion) {
    let mut g = c.benchmark_group("search");
    g.sample_size(10);
    let board = tabula_cumisitha::notation::fen::parse(STANDARD_POSITIONS[1].1).unwrap();
    g.bench_function("kiwipete depth 7", |b| {
        b.iter(|| {
            let mut e = Engine::new(16);
            e.search(&board, Limits::depth(7), Arc::new(AtomicBool::new(false)), &mut |_| {})
        })
    });
    g.finish();
}

criterion_group!(benches, deep_perft, playouts, search);
criterion_main!(benches);
