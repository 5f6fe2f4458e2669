//! A small match loop for tuning without the CLI:
//! `cargo run --release -p tabula-cordots --example arena -- A B GAMES [SEED] [JOBS]`
//! where A and B are levels, `uct:MS`, `ab:MS` (the Cordots alpha-beta) or
//! `noq:MS` (the Cordots alpha-beta without quiescence). Colours alternate;
//! each game's end and A's results print.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use tabula_cordots::{ai, Cordots, CordotsOptions, CAPTURER, VICTIM};
use tabula_core::{Agent, Game, GameMeta, Player, ThinkContext};

fn make(spec: &str, seed: u64) -> Box<dyn Agent<Cordots>> {
    let ms = |p: &str| spec.strip_prefix(p).and_then(|v| v.parse::<u64>().ok());
    if let Some(t) = ms("ab:") {
        return Box::new(ai::alphabeta(t));
    }
    if let Some(t) = ms("noq:") {
        let mut s = ai::alphabeta(t);
        s.config.quiescence = false;
        return Box::new(s);
    }
    Cordots::new_agent(spec, seed).unwrap_or_else(|| panic!("unknown AI '{spec}'"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: arena A B GAMES [SEED] [JOBS]");
        std::process::exit(2);
    }
    let games: u64 = args[2].parse().expect("GAMES is a number");
    let seed: u64 = args.get(3).map_or(1, |s| s.parse().expect("SEED is a number"));
    let jobs: u64 = args.get(4).map_or(1, |s| s.parse().expect("JOBS is a number"));
    let next = AtomicU64::new(0);
    let tally = Mutex::new((0u32, 0u32, 0u32, 0u64));
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= games {
                    break;
                }
                let a_first = i.is_multiple_of(2);
                let mut a = make(&args[0], seed * 1000 + i);
                let mut b = make(&args[1], seed * 1000 + i + 500);
                let mut g = Cordots::new(&CordotsOptions::default());
                while !g.status().is_over() {
                    let a_to_move = (g.to_move() == Player::First) == a_first;
                    let agent = if a_to_move { &mut a } else { &mut b };
                    let m = agent.choose(&g, &ThinkContext::default());
                    g.play(m);
                }
                let o = g.status().outcome().unwrap();
                let a_side = if a_first { Player::First } else { Player::Second };
                let mut t = tally.lock().unwrap();
                match o.winner {
                    None => t.1 += 1,
                    Some(w) if w == a_side => t.0 += 1,
                    Some(_) => t.2 += 1,
                }
                t.3 += g.plies() as u64;
                let (v, c) = (g.counts(VICTIM), g.counts(CAPTURER));
                println!(
                    "game {}: A {} -> {} ({}), {} plies, victims w{} b{}, capturers w{} b{}; so far +{} ={} -{}",
                    i + 1,
                    if a_first { "white" } else { "black" },
                    match o.winner {
                        None => "draw",
                        Some(w) if w == a_side => "A wins",
                        Some(_) => "B wins",
                    },
                    o.reason,
                    g.plies(),
                    v[0],
                    v[1],
                    c[0],
                    c[1],
                    t.0,
                    t.1,
                    t.2
                );
                if std::env::var_os("ARENA_FINAL").is_some() {
                    println!("  final: {}", g.position().unwrap_or_default());
                }
            });
        }
    });
    let t = tally.into_inner().unwrap();
    let n = games.max(1) as f64;
    println!(
        "A = {}, B = {}: {} wins, {} draws, {} losses, score {:.1}%; average {} plies",
        args[0],
        args[1],
        t.0,
        t.1,
        t.2,
        (t.0 as f64 + 0.5 * t.1 as f64) / n * 100.0,
        t.3 / games.max(1)
    );
}
