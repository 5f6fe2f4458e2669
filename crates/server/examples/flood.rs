//! Connection-flood benchmark (not a test): an attacker holds thousands of
//! idle and half-open connections while real players play paced games, and
//! `/api/health` is timed throughout.
//!
//!   cargo run --release -p tabula-server --example flood -- --attackers 20000 --games 100 --seconds 60
//!
//! The attacker runs in child processes (this example again, with
//! `--attack`), 9,000 connections each so that no attacker needs more
//! descriptors than a usual hard limit, from 400 loopback addresses
//! (127.1.x.y, 50 connections each, under the per-address caps): a third of
//! its connections send nothing, a third half a request head, a third a head
//! and half a body. The server closes them at its timeouts (or, at its
//! connection cap, the oldest waiting first) and the attacker opens each
//! again within half a second, so `--attackers` are open or reopening all
//! the time. The players come from addresses of their own (127.2.x.y), two
//! WebSocket clients per game, each moving 1 to 3 s after its turn comes. A
//! prober asks `/api/health` every 100 ms from 127.3.0.1. The server runs
//! with its default limits, its total cap sized from its descriptor limit.
//!
//! The server's process needs about attackers + 4 x games + 1000 file
//! descriptors to hold every attacker connection at once (with fewer, its
//! cap makes it close the oldest waiting ones); it raises its soft limit to
//! the hard limit itself.

mod common;

use common::{connect_from, cpu_seconds, load_average, next_json, percentile, request};
use futures_util::SinkExt;
use serde_json::json;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

type Socket = tokio_tungstenite::WebSocketStream<TcpStream>;

/// Attacker connections per child process.
const ATTACKERS_PER_PROCESS: usize = 9_000;

struct Args {
    attackers: usize,
    games: usize,
    seconds: u64,
    attack: Option<SocketAddr>,
    /// The attacker child's first connection number.
    first: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args { attackers: 20_000, games: 100, seconds: 60, attack: None, first: 0 };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--attackers" => a.attackers = value()?.parse().map_err(|e| format!("--attackers: {e}"))?,
            "--games" => a.games = value()?.parse().map_err(|e| format!("--games: {e}"))?,
            "--seconds" => a.seconds = value()?.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--attack" => a.attack = Some(value()?.parse().map_err(|e| format!("--attack: {e}"))?),
            "--first" => a.first = value()?.parse().map_err(|e| format!("--first: {e}"))?,
            "--bench" => {}
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

/// The attacker: keep connections `first..first + n` open, each idle or half-sent.
async fn attack(to: SocketAddr, first: usize, n: usize, seconds: u64) {
    let held = Arc::new(AtomicU64::new(0));
    let opened = Arc::new(AtomicU64::new(0));
    let until = Instant::now() + Duration::from_secs(seconds);
    for i in first..first + n {
        let (held, opened) = (held.clone(), opened.clone());
        // 50 connections per address, under the per-address caps.
        let from = Ipv4Addr::new(127, 1, (i / 50 / 250) as u8, (i / 50 % 250 + 1) as u8);
        tokio::spawn(async move {
            // Spread the first wave over a second.
            tokio::time::sleep(Duration::from_micros((i as u64 * 50) % 1_000_000)).await;
            let mut rng = i as u64 * 0x9E37_79B9_7F4A_7C15 + 1;
            while Instant::now() < until {
                let Ok(mut s) = connect_from(from, to).await else {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                };
                opened.fetch_add(1, Ordering::Relaxed);
                held.fetch_add(1, Ordering::Relaxed);
                let _ = match i % 3 {
                    0 => Ok(()),
                    1 => s.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ").await,
                    _ => s.write_all(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"ga").await,
                };
                // Hold until the server closes it.
                let mut buf = [0u8; 512];
                loop {
                    match tokio::time::timeout(until.saturating_duration_since(Instant::now()), s.read(&mut buf)).await
                    {
                        Ok(Ok(0)) | Ok(Err(_)) | Err(_) => break,
                        Ok(Ok(_)) => {}
                    }
                }
                held.fetch_sub(1, Ordering::Relaxed);
                // Open it again soon, at a random moment within half a second.
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                tokio::time::sleep(Duration::from_millis(rng % 500)).await;
            }
        });
    }
    let began = Instant::now();
    while Instant::now() < until {
        tokio::time::sleep(Duration::from_secs(5)).await;
        eprintln!(
            "attacker {first}..{}: {:>5.0} s, {} connections held, {} opened in all",
            first + n,
            began.elapsed().as_secs_f64(),
            held.load(Ordering::Relaxed),
            opened.load(Ordering::Relaxed)
        );
    }
}

#[derive(Default)]
struct Stats {
    move_latencies_us: Vec<u64>,
    moves: u64,
    games_finished: u64,
    errors: u64,
}

/// One seat of a paced game: wait for the turn, think 1-3 s, move.
async fn seat(
    mut ws: Socket,
    token: String,
    me: String,
    stats: Arc<Mutex<Stats>>,
    seed: u64,
    until: Instant,
) -> Result<(), String> {
    let mut rng = seed | 1;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut sent: Option<(u64, Instant)> = None;
    while Instant::now() < until {
        let m = next_json(&mut ws).await?;
        match m["type"].as_str() {
            Some("state") => {
                let g = &m["game"];
                if !g["result"].is_null() {
                    if me == g["players"][0] {
                        stats.lock().unwrap().games_finished += 1;
                    }
                    return Ok(());
                }
                let plies = g["state"]["plies"].as_u64().unwrap_or(0);
                if g["state"]["to_move"] == me.as_str() && sent.is_none_or(|(p, _)| p != plies) {
                    let legal = g["state"]["legal_moves"].as_array().ok_or("no legal moves")?;
                    if legal.is_empty() {
                        continue;
                    }
                    let mv = legal[(next() % legal.len() as u64) as usize].clone();
                    tokio::time::sleep(Duration::from_millis(1_000 + next() % 2_000)).await;
                    let msg = json!({"v": 1, "type": "move", "token": token, "move": mv, "ply": plies});
                    sent = Some((plies, Instant::now()));
                    ws.send(Message::Text(msg.to_string().into())).await.map_err(|e| e.to_string())?;
                }
            }
            Some("ack") => {
                if let Some((_, at)) = sent {
                    let mut s = stats.lock().unwrap();
                    s.move_latencies_us.push(at.elapsed().as_micros() as u64);
                    s.moves += 1;
                }
            }
            Some("error") => return Err(format!("refused: {m}")),
            _ => {}
        }
    }
    Ok(())
}

async fn play_games(to: SocketAddr, game_no: usize, stats: Arc<Mutex<Stats>>, until: Instant) {
    let first = Ipv4Addr::new(127, 2, (game_no / 100) as u8, (game_no % 100 * 2 + 1) as u8);
    let second = Ipv4Addr::new(127, 2, (game_no / 100) as u8, (game_no % 100 * 2 + 2) as u8);
    let mut round = 0u64;
    while Instant::now() < until {
        round += 1;
        let result: Result<(), String> = async {
            let stream = connect_from(first, to).await.map_err(|e| e.to_string())?;
            let created = request(
                stream,
                "POST",
                "/api/games",
                &json!({"game": "coldwar", "time_control": "fischer:300+5", "seats": [{"kind": "me"}, {"kind": "me"}]}),
            )
            .await?;
            let id = created["game"]["id"].as_str().ok_or_else(|| format!("create failed: {created}"))?.to_string();
            let mut seats = Vec::new();
            for (i, from) in [first, second].into_iter().enumerate() {
                let player = created["game"]["players"][i].as_str().unwrap_or("").to_string();
                let token = created["tokens"][&player].as_str().unwrap_or("").to_string();
                let stream = connect_from(from, to).await.map_err(|e| e.to_string())?;
                let (ws, _) = tokio_tungstenite::client_async(format!("ws://{to}/api/games/{id}/ws"), stream)
                    .await
                    .map_err(|e| e.to_string())?;
                seats.push(tokio::spawn(seat(
                    ws,
                    token,
                    player,
                    stats.clone(),
                    game_no as u64 * 1000 + round * 2 + i as u64,
                    until,
                )));
            }
            for s in seats {
                s.await.map_err(|e| e.to_string())??;
            }
            Ok(())
        }
        .await;
        if let Err(e) = result {
            eprintln!("game {game_no}: {e}");
            stats.lock().unwrap().errors += 1;
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    // The server holds every attacker connection and the players'; an
    // attacker child only its own.
    let need =
        if args.attack.is_some() { args.attackers + 200 } else { args.attackers + 4 * args.games + 1_000 } as u64;
    let limit = tabula_server::raise_fd_limit(need).unwrap_or(0);
    if limit < need {
        eprintln!(
            "warning: the descriptor limit is {limit}, below the {need} needed; raise `ulimit -n` (or run as root)"
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    if let Some(to) = args.attack {
        runtime.block_on(attack(to, args.first, args.attackers, args.seconds));
        return;
    }
    runtime.block_on(async move {
        let db = std::env::temp_dir().join(format!("tabula-flood-{}.sqlite3", std::process::id()));
        let _ = std::fs::remove_file(&db);
        let listener = tabula_server::listen("127.0.0.1:0").await.expect("listen");
        // The players and the prober share this process's descriptors with
        // the server: keep room for them under the server's connection cap.
        let mut config = tabula_server::Config::new(&db);
        config.net.max_connections =
            tabula_server::default_max_connections().saturating_sub(4 * args.games + 200).max(64);
        let server = tabula_server::start_with(listener, config).await.expect("start");
        let to = server.addr;
        println!(
            "server on {to}, {} connections allowed in total; {} attacker connections, {} paced games, {} s",
            tabula_server::default_max_connections().saturating_sub(4 * args.games + 200).max(64),
            args.attackers,
            args.games,
            args.seconds
        );
        let warmup = 15u64;
        let mut attackers = Vec::new();
        for first in (0..args.attackers).step_by(ATTACKERS_PER_PROCESS) {
            let n = ATTACKERS_PER_PROCESS.min(args.attackers - first);
            let child = std::process::Command::new(std::env::current_exe().expect("own path"))
                .args(["--attack", &to.to_string(), "--first", &first.to_string(), "--attackers", &n.to_string()])
                .args(["--seconds", &(args.seconds + warmup).to_string()])
                .spawn()
                .expect("start an attacker");
            attackers.push(child);
        }
        // Let the attacker fill its connections before measuring.
        tokio::time::sleep(Duration::from_secs(warmup)).await;
        let began = Instant::now();
        let cpu_began = cpu_seconds();
        let until = began + Duration::from_secs(args.seconds);
        let stats = Arc::new(Mutex::new(Stats::default()));
        let players: Vec<_> = (0..args.games).map(|g| tokio::spawn(play_games(to, g, stats.clone(), until))).collect();
        let mut health_us = Vec::new();
        let mut health_failures = 0;
        let mut held = Vec::new();
        let prober = Ipv4Addr::new(127, 3, 0, 1);
        while Instant::now() < until {
            let t = Instant::now();
            let probe = async {
                let stream = connect_from(prober, to).await.map_err(|e| e.to_string())?;
                request(stream, "GET", "/api/health", &json!(null)).await
            };
            match tokio::time::timeout(Duration::from_secs(5), probe).await {
                Ok(Ok(h)) => {
                    health_us.push(t.elapsed().as_micros() as u64);
                    held.push(h["connections"].as_u64().unwrap_or(0));
                }
                _ => health_failures += 1,
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let cpu = cpu_seconds() - cpu_began;
        for p in players {
            let _ = p.await;
        }
        for mut attacker in attackers {
            let _ = attacker.kill();
            let _ = attacker.wait();
        }
        health_us.sort_unstable();
        held.sort_unstable();
        let mut s = std::mem::take(&mut *stats.lock().unwrap());
        s.move_latencies_us.sort_unstable();
        println!(
            "/api/health: {} answers, {} failed; latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            health_us.len(),
            health_failures,
            percentile(&health_us, 0.5),
            percentile(&health_us, 0.99),
            percentile(&health_us, 1.0)
        );
        println!(
            "connections open at the server: median {}, min {}, max {}",
            held.get(held.len() / 2).copied().unwrap_or(0),
            held.first().copied().unwrap_or(0),
            held.last().copied().unwrap_or(0)
        );
        println!(
            "players: {} moves in {} s ({:.1}/s), move to ack p50 {:.2} ms, p99 {:.2} ms; {} games finished, {} errors",
            s.moves,
            args.seconds,
            s.moves as f64 / args.seconds as f64,
            percentile(&s.move_latencies_us, 0.5),
            percentile(&s.move_latencies_us, 0.99),
            s.games_finished,
            s.errors
        );
        println!(
            "server process (server, players and prober) used {:.1} s of CPU in {} s ({:.0}% of one core); machine load average {}",
            cpu,
            args.seconds,
            100.0 * cpu / args.seconds as f64,
            load_average()
        );
        server.shutdown().await.expect("shutdown");
        for suffix in ["", "-wal", "-shm", ".lock"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
        }
    });
}
