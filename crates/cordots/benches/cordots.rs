//! Cordots speed: random playouts (the figure `tabula bench cordots` also
//! reports), move generation and a short alpha-beta search.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::hint::black_box;
use tabula_cordots::{Cordots, CordotsOptions};
use tabula_core::Game;

/// A mid-game position reached by random play from the start.
fn midgame() -> Cordots {
    let mut g = Cordots::new(&CordotsOptions::default());
    let mut rng = SmallRng::seed_from_u64(11);
    let mut buf = Vec::new();
    g.random_playout(&mut rng, &mut buf, 40);
    g
}

fn playouts(c: &mut Criterion) {
    let start = Cordots::new(&CordotsOptions::default());
    // Measure the plies of a fixed batch of playouts, so throughput is in plies.
    let mut rng = SmallRng::seed_from_u64(1);
    let mut buf = Vec::new();
    let mut probe = start.clone();
    let mut plies = 0u64;
    for _ in 0..100 {
        probe.clone_from(&start);
        plies += probe.random_playout(&mut rng, &mut buf, u32::MAX) as u64;
    }
    let mut group = c.benchmark_group("cordots");
    group.throughput(Throughput::Elements(plies));
    group.bench_function("100 random playouts (throughput in plies)", |b| {
        let mut state = start.clone();
        b.iter(|| {
            let mut rng = SmallRng::seed_from_u64(1);
            for _ in 0..100 {
                state.clone_from(&start);
                black_box(state.random_playout(&mut rng, &mut buf, u32::MAX));
            }
        })
    });
    group.finish();

    let mid = midgame();
    let mut moves = Vec::new();
    c.bench_function("cordots legal_moves (mid-game)", |b| {
        b.iter(|| {
            black_box(&mid).legal_moves(&mut moves);
            black_box(moves.len())
        })
    });
    let mut m = Vec::new();
    mid.legal_moves(&mut m);
    c.bench_function("cordots play (mid-game, every legal move)", |b| {
        let mut s = mid.clone();
        b.iter(|| {
            for &mv in &m {
                s.clone_from(&mid);
                s.play(black_box(mv));
            }
        })
    });
}

criterion_group!(benches, playouts);
criterion_main!(benches);
