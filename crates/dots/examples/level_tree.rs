//! How large a level's search tree grows in a game: one side plays the
//! level (its tree kept from move to move, as in a real game), the other
//! answers with the same level, from the cross on 20x20 or the size
//! given (e.g. `39x32`); after each of
//! the level's moves it prints the playouts, the tree's nodes and the
//! node cap. Shows whether the level's time still grows the tree or the
//! cap stops it. Then, on each of those positions, fresh searches tell how
//! often the move chosen at the level's time changes with half the time,
//! next to how often it changes with another seed alone (the noise).
//! A measure, not a test: run it on a quiet machine.
//!
//!     cargo run --release -p tabula-dots --example level_tree -- [LEVEL] [MOVES] [WxH]

use tabula_ai::{Mcts, MctsConfig};
use tabula_core::{Game, GameOptions, ThinkContext};
use tabula_dots::ai::{level_search, DotsPolicy, Focus};
use tabula_dots::{Dots, DotsOptions};

fn main() {
    let mut args = std::env::args().skip(1);
    let level = args.next().unwrap_or_else(|| "expert".into());
    let moves: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(12);
    let Some(search) = level_search(&level) else {
        eprintln!("unknown level {level:?}: easy, medium, hard or expert");
        std::process::exit(2);
    };
    let size = args.next().unwrap_or_else(|| "20x20".into());
    let Some((width, height)) = size.split_once('x') else {
        eprintln!("board size {size:?} is not WIDTHxHEIGHT, e.g. 39x32");
        std::process::exit(2);
    };
    // The game's own option parser checks each side's range.
    let options = DotsOptions::from_pairs(&[("width", width), ("height", height)]).unwrap_or_else(|e| {
        eprintln!("board size {size:?}: {e}");
        std::process::exit(2);
    });
    let mut game = Dots::new(&options);
    let config = search.mcts_config(1);
    let cap = config.max_nodes;
    let mut ais =
        [Mcts::new(config.clone(), DotsPolicy::new(search.cutoff)), Mcts::new(config, DotsPolicy::new(search.cutoff))];
    println!("{level} on {width}x{height}: {:.2} s a move, node cap {cap}", search.time.as_secs_f64());
    println!("{:>5} {:>11} {:>11} {:>7}", "ply", "playouts", "nodes", "of cap");
    let mut positions = Vec::new();
    for ply in 0..2 * moves {
        if game.status().is_over() {
            break;
        }
        let side = ply % 2;
        let mv = ais[side].search(&Focus::from_dots(&game), &ThinkContext::default());
        if side == 0 {
            positions.push(game.clone());
            let stats = &ais[side].stats;
            println!(
                "{ply:>5} {:>11} {:>11} {:>6.0}%",
                stats.iterations,
                stats.nodes,
                100.0 * stats.nodes as f64 / cap as f64
            );
        }
        game.play(mv);
    }
    // Fresh trees, so that only the time and the seed differ.
    let fresh = |time: f64, seed: u64, position: &Dots| {
        let search = tabula_dots::ai::Search { time: search.time.mul_f64(time), ..search };
        let config = MctsConfig { reuse_tree: false, ..search.mcts_config(seed) };
        Mcts::new(config, DotsPolicy::new(search.cutoff)).search(&Focus::from_dots(position), &ThinkContext::default())
    };
    let (mut same_other_seed, mut same_half) = (0, 0);
    for position in &positions {
        let full = fresh(1.0, 2, position);
        same_other_seed += (fresh(1.0, 3, position) == full) as usize;
        same_half += (fresh(0.5, 4, position) == full) as usize;
    }
    let n = positions.len();
    println!("fresh searches on these {n} positions, against one at the level's time:");
    println!("  another seed, same time: same move {same_other_seed} of {n}");
    println!("  half the time:           same move {same_half} of {n}");
}
