//! Load benchmark (not a test): N concurrent games, each driven by two bot
//! clients over WebSocket (one per seat) that answer every position with a
//! random legal move, at once or after a think time. Reports moves per
//! second, the p50/p99 latency from sending a move to its acknowledgement
//! (which comes after the move is committed to the database), and memory
//! per game.
//!
//!   cargo run --release -p tabula-server --example load -- --games 1000 --seconds 30
//!   cargo run --release -p tabula-server --example load -- --games 1000 --think-ms 1000-3000
//!
//! Options: --games N (default 100), --seconds S (default 20), --game ID
//! (default coldwar), --option KEY=VALUE (repeatable), --db PATH|URL
//! (default: a fresh SQLite file in the temp dir; a postgres:// URL runs on
//! PostgreSQL), --think-ms MIN-MAX (paced bots: each move waits a random
//! time in that range after the turn comes, so the server's own share of the
//! latency shows; default 0, as fast as possible). The server runs in this
//! process on a loopback port; each game finished is replaced by a new one.
//! Needs about 4 file descriptors per game (`ulimit -n`).
//!
//! A cluster: --nodes N --nats URL (with a postgres:// --db) runs N nodes in
//! this process; each game is created on one node and its two bots connect
//! to the next two, so moves are forwarded and fanned out between nodes as
//! behind a round-robin balancer.

mod common;

use common::{cpu_seconds, http, next_json, percentile, rss_kib};
use futures_util::SinkExt;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

struct Config {
    games: usize,
    seconds: u64,
    game: String,
    options: Value,
    db: Option<String>,
    think_ms: (u64, u64),
    nodes: usize,
    nats: Option<String>,
}

fn parse_args() -> Result<Config, String> {
    let mut c = Config {
        games: 100,
        seconds: 20,
        game: "coldwar".into(),
        options: json!({}),
        db: None,
        think_ms: (0, 0),
        nodes: 1,
        nats: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--games" => c.games = value()?.parse().map_err(|e| format!("--games: {e}"))?,
            "--seconds" => c.seconds = value()?.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--game" => c.game = value()?,
            "--db" => c.db = Some(value()?),
            "--nodes" => c.nodes = value()?.parse().map_err(|e| format!("--nodes: {e}"))?,
            "--nats" => c.nats = Some(value()?),
            "--think-ms" => {
                let v = value()?;
                let (lo, hi) = v.split_once('-').unwrap_or((&v, &v));
                let ms = |t: &str| t.trim().parse::<u64>().map_err(|e| format!("--think-ms {v}: {e}"));
                c.think_ms = (ms(lo)?, ms(hi)?);
                if c.think_ms.0 > c.think_ms.1 {
                    return Err(format!("--think-ms {v}: the least time is above the most"));
                }
            }
            "--option" => {
                let v = value()?;
                let (k, val) = v.split_once('=').ok_or("--option takes KEY=VALUE")?;
                c.options[k] = json!(val);
            }
            "--bench" => {} // passed by `cargo bench`
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(c)
}

#[derive(Default)]
struct Stats {
    latencies_us: Vec<u64>,
    games_finished: u64,
    errors: u64,
}

/// Read until the state after `plies` plies (or a finished game) arrives.
async fn state_after(ws: &mut Socket, plies: u64) -> Result<Value, String> {
    loop {
        let m = next_json(ws).await?;
        if m["type"] == "state" && (m["game"]["state"]["plies"] == plies || !m["game"]["result"].is_null()) {
            return Ok(m["game"].clone());
        }
        if m["type"] == "error" {
            return Err(m["error"].to_string());
        }
    }
}

async fn play_one_game(
    bases: &[String],
    turn: usize,
    cfg: &Config,
    seed: &mut u64,
    stats: &Mutex<Stats>,
    until: Instant,
) -> Result<(), String> {
    let base = &bases[turn % bases.len()];
    let created = http(
        base,
        "POST",
        "/api/games",
        &json!({"game": cfg.game, "options": cfg.options, "seats": [{"kind": "me"}, {"kind": "me"}]}),
    )
    .await?;
    let game = &created["game"];
    let id = game["id"].as_str().ok_or_else(|| format!("create failed: {created}"))?.to_string();
    let players = [game["players"][0].as_str().unwrap_or(""), game["players"][1].as_str().unwrap_or("")];
    let tokens = [
        created["tokens"][players[0]].as_str().unwrap_or("").to_string(),
        created["tokens"][players[1]].as_str().unwrap_or("").to_string(),
    ];
    let mut sockets = Vec::new();
    for seat in 0..2 {
        let url = format!("ws://{}/api/games/{id}/ws", bases[(turn + 1 + seat) % bases.len()]);
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default().read_buffer_size(8 * 1024);
        let (mut ws, _) =
            tokio_tungstenite::connect_async_with_config(&url, Some(config), true).await.map_err(|e| e.to_string())?;
        state_after(&mut ws, 0).await?;
        sockets.push(ws);
    }
    let mut state = game.clone();
    let mut plies = 0u64;
    while state["result"].is_null() && Instant::now() < until {
        let side = if state["state"]["to_move"] == players[0] { 0 } else { 1 };
        let legal = state["state"]["legal_moves"].as_array().ok_or("no legal moves")?;
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mv = legal[(*seed >> 33) as usize % legal.len()].clone();
        let (lo, hi) = cfg.think_ms;
        if hi > 0 {
            let think = lo + (*seed >> 17) % (hi - lo + 1);
            tokio::time::sleep(Duration::from_millis(think)).await;
            if Instant::now() >= until {
                break;
            }
        }
        let ws = &mut sockets[side];
        let sent = Instant::now();
        let msg = json!({"v": 1, "type": "move", "token": tokens[side], "move": mv, "ply": plies});
        ws.send(Message::Text(msg.to_string().into())).await.map_err(|e| e.to_string())?;
        // Wait for the acknowledgement, keeping the newest state seen on the way.
        let mut newest = None;
        loop {
            let m = next_json(ws).await?;
            match m["type"].as_str() {
                Some("ack") => break,
                Some("state") => newest = Some(m["game"].clone()),
                _ => return Err(format!("move refused: {m}")),
            }
        }
        let latency = sent.elapsed().as_micros() as u64;
        stats.lock().unwrap().latencies_us.push(latency);
        plies += 1;
        let after = match newest.filter(|g| g["state"]["plies"] == plies) {
            Some(g) => g,
            None => state_after(ws, plies).await?,
        };
        state_after(&mut sockets[1 - side], plies).await?;
        state = after;
    }
    if !state["result"].is_null() {
        stats.lock().unwrap().games_finished += 1;
    }
    for mut ws in sockets {
        let _ = ws.close(None).await;
    }
    Ok(())
}

fn main() {
    let cfg = match parse_args() {
        Ok(c) => Arc::new(c),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(async move {
        let temp = std::env::temp_dir().join(format!("tabula-load-{}.sqlite3", std::process::id()));
        let db = match &cfg.db {
            Some(text) => tabula_server::config::Database::parse(text),
            None => {
                let _ = std::fs::remove_file(&temp);
                tabula_server::config::Database::Sqlite(temp.clone())
            }
        };
        println!("database: {}", db.describe());
        // The bots all come from one address: lift the per-client limits.
        let mut config = tabula_server::Config::new(db);
        config.rate = tabula_server::config::RateLimits::unlimited();
        config.net.max_connections_per_client = usize::MAX;
        let mut servers = Vec::new();
        for i in 0..cfg.nodes.max(1) {
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let mut config = config.clone();
            if let Some(nats) = &cfg.nats {
                let name = format!("load{}", std::process::id());
                config.cluster = Some(tabula_server::cluster::ClusterConfig::new(nats, &name, &format!("n{i}")));
            }
            servers.push(tabula_server::start_with(listener, config).await.expect("start the server"));
        }
        if let Some(nats) = &cfg.nats {
            println!("cluster of {} nodes on NATS {nats}", servers.len());
        }
        let bases: Arc<Vec<String>> = Arc::new(servers.iter().map(|s| s.addr.to_string()).collect());
        let base = bases[0].clone();
        let rss_start = rss_kib();

        // Memory held per idle game: create N games, then measure.
        let mut idle = Vec::new();
        for chunk in 0..cfg.games.div_ceil(100) {
            let mut batch = Vec::new();
            for _ in 0..100.min(cfg.games - chunk * 100) {
                let (base, cfg) = (base.clone(), cfg.clone());
                batch.push(tokio::spawn(async move {
                    http(&base, "POST", "/api/games", &json!({"game": cfg.game, "options": cfg.options, "seats": [{"kind": "me"}, {"kind": "me"}]})).await
                }));
            }
            for b in batch {
                idle.push(b.await.unwrap().expect("create"));
            }
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let rss_idle = rss_kib();
        println!(
            "{} idle games: RSS {} -> {} KiB, {:.1} KiB per game held by the server",
            cfg.games,
            rss_start,
            rss_idle,
            (rss_idle.saturating_sub(rss_start)) as f64 / cfg.games as f64
        );

        let stats = Arc::new(Mutex::new(Stats::default()));
        let began = Instant::now();
        let cpu_began = cpu_seconds();
        let until = began + Duration::from_secs(cfg.seconds);
        let peak = Arc::new(Mutex::new(0u64));
        {
            let peak = peak.clone();
            tokio::spawn(async move {
                loop {
                    let r = rss_kib();
                    {
                        let mut p = peak.lock().unwrap();
                        *p = (*p).max(r);
                    }
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
            });
        }
        let mut drivers = Vec::new();
        for i in 0..cfg.games {
            let (bases, cfg, stats) = (bases.clone(), cfg.clone(), stats.clone());
            drivers.push(tokio::spawn(async move {
                let mut seed = i as u64 * 7919 + 1;
                let mut turn = i;
                while Instant::now() < until {
                    turn += 1;
                    if let Err(e) = play_one_game(&bases, turn, &cfg, &mut seed, &stats, until).await {
                        eprintln!("bot {i}: {e}");
                        stats.lock().unwrap().errors += 1;
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                }
            }));
        }
        for d in drivers {
            let _ = d.await;
        }
        let elapsed = began.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu_began;
        let mut s = std::mem::take(&mut *stats.lock().unwrap());
        s.latencies_us.sort_unstable();
        let moves = s.latencies_us.len();
        println!(
            "{} concurrent {} games, 2 WebSocket bots each, {:.1} s: {} moves, {:.0} moves/s, latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {} games finished, {} errors",
            cfg.games,
            cfg.game,
            elapsed,
            moves,
            moves as f64 / elapsed,
            percentile(&s.latencies_us, 0.50),
            percentile(&s.latencies_us, 0.99),
            percentile(&s.latencies_us, 1.0),
            s.games_finished,
            s.errors
        );
        println!(
            "CPU {:.1} s over {:.1} s ({:.0}% of a core), {:.3} ms of CPU per move (server and bots together)",
            cpu,
            elapsed,
            100.0 * cpu / elapsed,
            1000.0 * cpu / moves.max(1) as f64
        );
        let peak = *peak.lock().unwrap();
        println!(
            "peak RSS {} KiB: {:.1} KiB per concurrent game (server and both bots' sockets, {} games in memory)",
            peak,
            peak.saturating_sub(rss_start) as f64 / cfg.games as f64,
            servers.iter().map(|s| s.app.loaded_games()).sum::<usize>()
        );
        for server in servers {
            let h = server.app.health();
            println!(
                "server {} (last {} moves): move handled p50 {:.2} ms, p99 {:.2} ms; commit p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                server.addr, h.moves.count, h.moves.p50_ms, h.moves.p99_ms, h.commits.p50_ms, h.commits.p99_ms, h.commits.max_ms
            );
            server.shutdown().await.expect("shutdown");
        }
        if cfg.db.is_none() {
            let _ = std::fs::remove_file(&temp);
            let _ = std::fs::remove_file(temp.with_extension("sqlite3-wal"));
            let _ = std::fs::remove_file(temp.with_extension("sqlite3-shm"));
            let _ = std::fs::remove_file(temp.with_extension("sqlite3.lock"));
        }
    });
}
