//! Random full-board playouts for a fixed number of games, for profiling
//! (`perf stat` gives the CPU time on a busy machine).
//! Usage: playout_speed [GAMES] [WIDTH HEIGHT]

use rand::SeedableRng;
use tabula_core::Game;
use tabula_dots::{Dots, DotsOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let w: u8 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(39);
    let h: u8 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(32);
    let start = Dots::new(&DotsOptions::sized(w, h));
    let mut state = start.clone();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
    let mut moves = Vec::new();
    let began = std::time::Instant::now();
    let mut plies = 0u64;
    for _ in 0..games {
        state.clone_from(&start);
        plies += state.random_playout(&mut rng, &mut moves, u32::MAX) as u64;
    }
    let secs = began.elapsed().as_secs_f64();
    println!(
        "{games} games of {w}x{h} in {secs:.2} s wall: {:.0} games/s, {:.1} plies/game",
        games as f64 / secs,
        plies as f64 / games as f64
    );
}
