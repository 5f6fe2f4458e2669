//! A small match loop for tuning without the CLI:
//! `cargo run --release -p tabula-cordots --example arena -- A B GAMES [SEED]`
//! where A and B are levels or `uct:MS`. Colours alternate; A's results print.

use tabula_cordots::{Cordots, CordotsOptions};
use tabula_core::{Game, GameMeta, Player, ThinkContext};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: arena A B GAMES [SEED]");
        std::process::exit(2);
    }
    let games: u64 = args[2].parse().expect("GAMES is a number");
    let seed: u64 = args.get(3).map_or(1, |s| s.parse().expect("SEED is a number"));
    let (mut wins, mut draws, mut losses, mut plies) = (0, 0, 0, 0);
    for i in 0..games {
        let a_first = i % 2 == 0;
        let make = |spec: &str, s| Cordots::new_agent(spec, s).unwrap_or_else(|| panic!("unknown AI '{spec}'"));
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
        match o.winner {
            None => draws += 1,
            Some(w) if w == a_side => wins += 1,
            Some(_) => losses += 1,
        }
        plies += g.plies() as u64;
        println!(
            "game {}: A {} -> {:?} ({}), {} plies",
            i + 1,
            if a_first { "white" } else { "black" },
            o.winner,
            o.reason,
            g.plies()
        );
    }
    println!(
        "A = {}, B = {}: {wins} wins, {draws} draws, {losses} losses; average {} plies",
        args[0],
        args[1],
        plies / games.max(1)
    );
}
