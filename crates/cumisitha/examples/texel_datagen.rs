//! Self-play games for tuning the evaluation (Texel's method) and training
//! its network (`nnue_train`): the engine
//! plays itself at a fixed number of nodes per move from the book openings
//! followed by seeded random plies, and every quiet position (not in check,
//! the engine's best move neither a capture nor a promotion) is written with
//! the game's result.
//!
//! Output, one position a line: `FEN | RESULT | SCORE` where RESULT is
//! White's points (1, 0.5, 0) and SCORE the engine's search score in
//! centipawns from White's side.
//!
//! ```text
//! cargo run --release -p tabula-cumisitha --example texel_datagen -- \
//!     --games 20000 --nodes 5000 --threads 2 --seed 1 --out target/texel/games.txt
//! ```
//! `scripts/cumisitha-texel.sh` runs this and the tuner;
//! `scripts/cumisitha-nnue.sh` runs it with `--hce` (the hand-written
//! evaluation plays, so the data owes nothing to an earlier network) and
//! the network's trainer.

use cozy_chess::{Color, Piece};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tabula_core::{Game, NoOptions, Player, Status};
use tabula_cumisitha::ai::nnue::Network;
use tabula_cumisitha::ai::{Engine, Limits, MATE_BOUND};
use tabula_cumisitha::notation::to_fen;
use tabula_cumisitha::tools::arena::opening;
use tabula_cumisitha::Cumisitha;
mod common;
use common::at_least_one;

/// Self-play positions with the engine's scores and the games' results.
#[derive(clap::Parser)]
struct Args {
    /// Games to play.
    #[arg(long, default_value_t = 1000, value_parser = at_least_one::<usize>)]
    games: usize,
    /// Nodes the engine searches for each move.
    #[arg(long, default_value_t = 5000, value_parser = at_least_one::<u64>)]
    nodes: u64,
    /// Games played at once, one engine each.
    #[arg(long, default_value_t = 1, value_parser = at_least_one::<usize>)]
    threads: usize,
    /// Seed of the random plies after the book opening.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random plies played after the book opening.
    #[arg(long, default_value_t = 8)]
    random_plies: u32,
    /// Play with the hand-written evaluation instead of the network.
    #[arg(long, conflicts_with = "net")]
    hce: bool,
    /// Play with this network file (as `nnue_train` writes it) instead of the built-in one.
    #[arg(long)]
    net: Option<std::path::PathBuf>,
    /// Where to write the positions.
    #[arg(long, default_value = "target/texel/games.txt")]
    out: std::path::PathBuf,
}

/// Play game `number`; returns the lines to write.
fn play(number: usize, args: &Args, engine: &mut Engine) -> Result<Vec<String>, String> {
    let (_, book) = opening(number, args.random_plies, args.seed).map_err(|e| e.to_string())?;
    let mut state = Cumisitha::new(&NoOptions);
    for m in &book {
        let mv = state.check_move(m).map_err(|e| e.to_string())?;
        state.play(mv);
    }
    engine.new_game();
    let mut positions: Vec<(String, i32)> = Vec::new();
    // A game both sides agree is decided is adjudicated, so the engine's
    // slow mates at low node counts do not cost time.
    let mut decided_for = 0i32;
    let mut white_points = None;
    while !state.status().is_over() {
        let board = state.board().clone();
        let limits = Limits { nodes: Some(args.nodes), ..Limits::default() };
        let r = engine.search(&board, limits, Arc::new(AtomicBool::new(false)), &mut |_| {});
        let best = r.best.ok_or("no move in an ongoing game")?;
        let white_score = if board.side_to_move() == Color::White { r.score } else { -r.score };
        let capture = board.colors(!board.side_to_move()).has(best.to)
            || (board.piece_on(best.from) == Some(Piece::Pawn) && best.from.file() != best.to.file());
        if board.checkers().is_empty() && !capture && best.promotion.is_none() && r.score.abs() < 2000 {
            positions.push((to_fen(&board), white_score));
        }
        let sign = if white_score >= 1500 {
            1
        } else if white_score <= -1500 {
            -1
        } else {
            0
        };
        decided_for = if sign != 0 && sign == decided_for.signum() { decided_for + sign } else { sign };
        if decided_for.abs() >= 8 || r.score.abs() > MATE_BOUND && decided_for.abs() >= 2 {
            white_points = Some(if decided_for > 0 { 1.0 } else { 0.0 });
            break;
        }
        state.play(best);
    }
    let points = match (white_points, state.status()) {
        (Some(p), _) => p,
        (None, Status::Over(o)) => o.score_for(Player::First),
        (None, Status::Ongoing) => 0.5,
    };
    Ok(positions.into_iter().map(|(fen, s)| format!("{fen} | {points} | {s}")).collect())
}

fn main() {
    let args = <Args as clap::Parser>::parse();
    if let Some(dir) = args.out.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let net = args.net.as_ref().map(|path| {
        let read = std::fs::read(path).map_err(|e| e.to_string());
        match read.and_then(|bytes| Network::from_bytes(&bytes).map_err(|e| e.to_string())) {
            Ok(net) => &*Box::leak(Box::new(net)),
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                std::process::exit(1);
            }
        }
    });
    let file = match std::fs::File::create(&args.out) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: cannot create {}: {e}", args.out.display());
            std::process::exit(1);
        }
    };
    let out = Mutex::new(std::io::BufWriter::new(file));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let lines = AtomicUsize::new(0);
    let began = Instant::now();
    let failed = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..args.threads {
            s.spawn(|| {
                let mut engine = Engine::new(16);
                engine.set_nnue(!args.hce);
                if let Some(net) = net {
                    engine.set_network(net);
                }
                loop {
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    if n >= args.games {
                        break;
                    }
                    match play(n, &args, &mut engine) {
                        Ok(ls) => {
                            let mut w = out.lock().unwrap();
                            for l in &ls {
                                let _ = writeln!(w, "{l}");
                            }
                            lines.fetch_add(ls.len(), Ordering::Relaxed);
                        }
                        Err(e) => {
                            *failed.lock().unwrap() = Some(e);
                            break;
                        }
                    }
                    let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if d.is_multiple_of(100) || d == args.games {
                        let secs = began.elapsed().as_secs_f64();
                        eprint!(
                            "\r{d}/{} games, {} positions, {:.0} s, about {:.0} s left   ",
                            args.games,
                            lines.load(Ordering::Relaxed),
                            secs,
                            secs / d as f64 * (args.games - d) as f64
                        );
                    }
                }
            });
        }
    });
    eprintln!();
    if let Some(e) = failed.into_inner().unwrap() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    if let Err(e) = out.into_inner().unwrap().flush() {
        eprintln!("error: writing {}: {e}", args.out.display());
        std::process::exit(1);
    }
    println!("{} positions from {} games in {}", lines.load(Ordering::Relaxed), args.games, args.out.display());
}
