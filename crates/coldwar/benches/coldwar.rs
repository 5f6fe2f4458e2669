//! Speed figures for Cold War: move generation, random playouts and the
//! full retrograde solve (the target: under 60 s and 1 GiB).
//!
//! `cargo bench -p tabula-coldwar` (the solve group alone:
//! `cargo bench -p tabula-coldwar -- solve`).

use criterion::{criterion_group, criterion_main, Criterion};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::hint::black_box;
use std::time::Duration;
use tabula_coldwar::{ColdWar, Table};
use tabula_core::Game;

fn playouts(c: &mut Criterion) {
    let start = ColdWar::new(&Default::default());
    let mut rng = SmallRng::seed_from_u64(7);
    let mut moves = Vec::new();
    let mut game = start.clone();
    c.bench_function("coldwar random playout (<= 500 plies)", |b| {
        b.iter(|| {
            game.clone_from(&start);
            black_box(game.random_playout(&mut rng, &mut moves, 500))
        })
    });
    c.bench_function("coldwar legal moves at the start", |b| {
        b.iter(|| {
            start.legal_moves(&mut moves);
            black_box(moves.len())
        })
    });
}

fn solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("solve");
    group.sample_size(10).measurement_time(Duration::from_secs(120)).warm_up_time(Duration::from_secs(1));
    group.bench_function("coldwar full retrograde solve", |b| b.iter(|| black_box(Table::build(&mut |_, _| {}))));
    group.finish();
}

criterion_group!(benches, playouts, solve);
criterion_main!(benches);
