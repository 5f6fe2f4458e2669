//! Random full-board playouts: the engine's headline speed figure.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use tabula_core::{Game, GameOptions};
use tabula_dots::{Dots, DotsOptions};

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("dots random playout");
    for (w, h) in [(39u8, 32u8), (20, 20)] {
        let start = Dots::new(&DotsOptions::sized(w, h));
        let mut state = start.clone();
        let mut rng = SmallRng::seed_from_u64(1);
        let mut moves = Vec::new();
        group.throughput(Throughput::Elements(1));
        group.bench_function(format!("{w}x{h} games"), |b| {
            b.iter(|| {
                state.clone_from(&start);
                state.random_playout(&mut rng, &mut moves, u32::MAX)
            })
        });
    }
    group.finish();
    let _ = DotsOptions::default().pairs();
}

criterion_group!(benches, playouts);
criterion_main!(benches);
