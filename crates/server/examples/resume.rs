//! Start-up benchmark (not a test): how long a server takes to resume N
//! unfinished timed games.
//!
//!   cargo run --release -p tabula-server --example resume -- --games 10000 --plies 10
//!
//! It fills a fresh database through the API (N Cold War games with a
//! Fischer clock, each with `--plies` moves played, so every clock runs),
//! stops the server, and times a new start on that database: reading the
//! games, replaying their moves, restarting their clocks and writing them
//! back. It reports the start time and checks every game came back live.
//! With `--db PATH` the database is kept, and filled only when new, so
//! later runs time the start alone.

mod common;

use common::{cpu_seconds, http};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

fn config(db: &std::path::Path) -> tabula_server::Config {
    let mut c = tabula_server::Config::new(db);
    c.rate = tabula_server::config::RateLimits::unlimited();
    c.net.max_connections_per_client = usize::MAX;
    c
}

async fn fill(base: &str, plies: usize, seed: u64) -> Result<(), String> {
    let created = http(
        base,
        "POST",
        "/api/games",
        &json!({"game": "coldwar", "time_control": "fischer:3600+10", "seats": [{"kind": "me"}, {"kind": "me"}]}),
    )
    .await?;
    let id = created["game"]["id"].as_str().ok_or("no id")?.to_string();
    let tokens = [created["tokens"]["x"].clone(), created["tokens"]["o"].clone()];
    let mut game = created["game"].clone();
    let mut rng = seed | 1;
    for ply in 0..plies {
        let legal = game["state"]["legal_moves"].as_array().ok_or("no moves")?;
        if legal.is_empty() || !game["result"].is_null() {
            break;
        }
        rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mv = legal[(rng >> 33) as usize % legal.len()].clone();
        let answer =
            http(base, "POST", &format!("/api/games/{id}/move"), &json!({"token": tokens[ply % 2], "move": mv}))
                .await?;
        game = answer["game"].clone();
    }
    Ok(())
}

fn main() {
    let mut games = 10_000usize;
    let mut plies = 10usize;
    let mut db_arg: Option<std::path::PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--games" => games = args.next().and_then(|v| v.parse().ok()).expect("--games N"),
            "--plies" => plies = args.next().and_then(|v| v.parse().ok()).expect("--plies N"),
            "--db" => db_arg = Some(args.next().expect("--db PATH").into()),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    tabula_server::raise_fd_limit(65_536);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(async move {
        let keep = db_arg.is_some();
        let db = db_arg
            .unwrap_or_else(|| std::env::temp_dir().join(format!("tabula-resume-{}.sqlite3", std::process::id())));
        let fresh = !db.exists();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = tabula_server::start_with(listener, config(&db)).await.expect("start");
        let base = Arc::new(server.addr.to_string());
        let began = Instant::now();
        let mut tasks = Vec::new();
        let games = if fresh { games } else { 0 };
        let per = games.div_ceil(64);
        for w in 0..64 {
            let base = base.clone();
            let n = per.min(games.saturating_sub(w * per));
            tasks.push(tokio::spawn(async move {
                for i in 0..n {
                    if let Err(e) = fill(&base, plies, (w * per + i) as u64 + 1).await {
                        eprintln!("fill: {e}");
                    }
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        if fresh {
            println!("filled {games} games of {plies} plies in {:.1} s", began.elapsed().as_secs_f64());
        }
        server.shutdown().await.expect("shutdown");
        tokio::time::sleep(Duration::from_millis(200)).await;

        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let began = Instant::now();
        let cpu = cpu_seconds();
        let server = tabula_server::start_with(listener, config(&db)).await.expect("restart");
        let took = began.elapsed();
        let cpu = cpu_seconds() - cpu;
        let in_memory = server.app.health().games_in_memory;
        println!(
            "resumed {in_memory} unfinished games in {:.0} ms ({:.1} µs per game), {:.0} ms of CPU (all threads)",
            took.as_secs_f64() * 1000.0,
            took.as_secs_f64() * 1e6 / in_memory.max(1) as f64,
            cpu * 1000.0
        );
        let live =
            http(&server.addr.to_string(), "GET", "/api/games?status=live&limit=500", &json!(null)).await.unwrap();
        let running = live["games"].as_array().map_or(0, |g| g.len());
        println!("listed live afterwards: {running} (limit 500)");
        server.shutdown().await.expect("shutdown");
        if !keep {
            for suffix in ["", "-wal", "-shm", ".lock"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
            }
        }
    });
}
