//! `kill -9` nodes of a real 3-node cluster (`tabula serve --nats`) again
//! and again while clocked games against AI seats are played through every
//! node: no acknowledged move is lost, the games go on from the other
//! nodes, and the time a dead node's games wait to be taken over is not
//! charged to any clock.
//!
//! It needs PostgreSQL (`TABULA_TEST_POSTGRES`, a server URL; scripts/test
//! starts one) and `nats-server` (scripts/nats installs it); without
//! `TABULA_TEST_POSTGRES` it is skipped.

mod common;

use common::request;
use serde_json::{json, Value};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Lease of the test's nodes: a dead node's games are taken over within it.
/// `TABULA_TEST_LEASE_SECONDS` sets another, to measure the failover time
/// with it (the server's default is 3).
fn lease_seconds() -> String {
    std::env::var("TABULA_TEST_LEASE_SECONDS").unwrap_or_else(|_| "1.5".into())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn psql(url: &str, sql: &str) -> String {
    let out =
        Command::new("psql").args([url, "-tAc", sql]).output().expect("psql (PostgreSQL's client) must be installed");
    assert!(out.status.success(), "psql {sql}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

struct Cluster {
    db: String,
    nats: String,
    /// Node i's process and address (`None` while dead).
    nodes: Vec<Option<(Child, String)>>,
}

impl Cluster {
    fn spawn(&self, i: usize) -> (Child, String) {
        let node = format!("n{i}");
        let lease = lease_seconds();
        let args = ["--addr", "127.0.0.1:0", "--db", &self.db, "--nats", &self.nats];
        let args = args.into_iter().chain(["--node-id", &node, "--lease-seconds", &lease]);
        let args: Vec<&std::ffi::OsStr> = args.map(|a| a.as_ref()).collect();
        common::serve_args(&args)
    }

    fn addrs(&self) -> Vec<String> {
        self.nodes.iter().flatten().map(|(_, a)| a.clone()).collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for (child, _) in self.nodes.iter_mut().flatten() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A game being played: its id, the human's token, and the longest move
/// list any node has shown for it (every one was committed first).
struct Game {
    id: String,
    token: String,
    seen: Vec<String>,
}

fn moves_of(game: &Value) -> Vec<String> {
    game["moves"]
        .as_array()
        .map(|m| m.iter().map(|m| m["move"].as_str().unwrap_or("").to_string()).collect())
        .unwrap_or_default()
}

/// Moves the test has seen committed so far, over every game it played,
/// finished ones too: the measure of progress between kills. (The sum of
/// the live games' move lists is not one: it drops each time a finished
/// game is replaced by a new one.)
static MOVES_SEEN: AtomicUsize = AtomicUsize::new(0);

/// Records `shown` as game `g`'s moves if it is longer than what was seen.
fn saw(g: &mut Game, shown: Vec<String>) {
    if shown.len() > g.seen.len() {
        MOVES_SEEN.fetch_add(shown.len() - g.seen.len(), Ordering::Relaxed);
        g.seen = shown;
    }
}

/// Play the human side of every game through the nodes in turn until `stop`.
fn play(addrs: Arc<Mutex<Vec<String>>>, games: Arc<Mutex<Vec<Game>>>, stop: Arc<AtomicBool>) {
    let mut seed = 99u64;
    let mut turn = 0usize;
    while !stop.load(Ordering::Relaxed) {
        turn += 1;
        let addr = {
            let a = addrs.lock().unwrap();
            a[turn % a.len()].clone()
        };
        let n = games.lock().unwrap().len();
        let i = turn % n;
        let (id, token, seen) = {
            let g = &games.lock().unwrap()[i];
            (g.id.clone(), g.token.clone(), g.seen.len())
        };
        let Some((200, game)) = request(&addr, "GET", &format!("/api/games/{id}"), &Value::Null) else { continue };
        let shown = moves_of(&game);
        saw(&mut games.lock().unwrap()[i], shown.clone());
        if !game["result"].is_null() || game["status"] != "live" {
            // Over: a new game takes its place.
            let body =
                json!({"game": "coldwar", "time_control": "fischer:600+0", "seats": [{"kind": "me"}, {"kind": "ai"}]});
            if let Some((201, created)) = request(&addr, "POST", "/api/games", &body) {
                let id = created["game"]["id"].as_str().unwrap().to_string();
                let token = created["tokens"]["x"].as_str().unwrap().to_string();
                games.lock().unwrap().push(Game { id, token, seen: Vec::new() });
            }
            games.lock().unwrap().swap_remove(i);
            continue;
        }
        if game["state"]["to_move"] != "x" || shown.len() < seen {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        let legal = game["state"]["legal_moves"].as_array().unwrap();
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mv = legal[(seed >> 33) as usize % legal.len()].clone();
        let body = json!({"token": token, "move": mv, "ply": shown.len()});
        if let Some((200, after)) = request(&addr, "POST", &format!("/api/games/{id}/move"), &body) {
            let acked = moves_of(&after["game"]);
            if let Some(g) = games.lock().unwrap().iter_mut().find(|g| g.id == id) {
                saw(g, acked);
            }
        }
        // Anything else (a node killed mid-request, a 503 while a game
        // moves, a lost race with the AI) was not acknowledged.
    }
}

#[test]
fn killing_nodes_again_and_again_loses_no_acknowledged_move_and_charges_no_clock() {
    let Some(base) = std::env::var("TABULA_TEST_POSTGRES").ok().filter(|v| !v.is_empty()) else {
        eprintln!("skipped: set TABULA_TEST_POSTGRES to a PostgreSQL server's URL (scripts/test does)");
        return;
    };
    let name = format!("failover_{}", std::process::id());
    psql(&base, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
    psql(&base, &format!("CREATE DATABASE {name}"));
    let db = format!("{}/{name}", base.rsplit_once('/').unwrap().0);
    let nats_port = free_port();
    let mut nats = Command::new("nats-server")
        .args(["-a", "127.0.0.1", "-p", &nats_port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nats-server must be installed (scripts/nats installs it)");
    let began = Instant::now();
    while TcpStream::connect(("127.0.0.1", nats_port)).is_err() {
        assert!(began.elapsed() < Duration::from_secs(10), "nats-server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut cluster = Cluster { db: db.clone(), nats: format!("nats://127.0.0.1:{nats_port}"), nodes: Vec::new() };
    for i in 0..3 {
        let node = cluster.spawn(i);
        cluster.nodes.push(Some(node));
    }
    let addrs = Arc::new(Mutex::new(cluster.addrs()));

    // The clock probe: the human (x) to move with its clock running, and
    // nobody moving it: its flag's deadline only moves if a gap is not charged.
    let first = cluster.addrs()[0].clone();
    let body = json!({"game": "coldwar", "time_control": "fischer:600+0", "seats": [{"kind": "me"}, {"kind": "ai"}]});
    let (_, probe) = request(&first, "POST", "/api/games", &body).unwrap();
    let probe_id = probe["game"]["id"].as_str().unwrap().to_string();
    let probe_token = probe["tokens"]["x"].as_str().unwrap().to_string();
    let mv = probe["game"]["state"]["legal_moves"][0].clone();
    let (status, _) =
        request(&first, "POST", &format!("/api/games/{probe_id}/move"), &json!({"token": probe_token, "move": mv}))
            .unwrap();
    assert_eq!(status, 200);
    let probe_deadline = || -> Option<u64> {
        let addr = addrs.lock().unwrap()[0].clone();
        let (_, g) = request(&addr, "GET", &format!("/api/games/{probe_id}"), &Value::Null)?;
        (g["state"]["to_move"] == "x" && g["clock"]["running"] == "x").then(|| g["clock"]["deadline_ms"].as_u64())?
    };
    let began = Instant::now();
    let deadline_before = loop {
        if let Some(d) = probe_deadline() {
            break d;
        }
        assert!(began.elapsed() < Duration::from_secs(20), "the AI never answered in the probe game");
        std::thread::sleep(Duration::from_millis(20));
    };

    // Six games played by a client spread over the nodes.
    let games = Arc::new(Mutex::new(Vec::new()));
    for i in 0..6 {
        let addr = cluster.addrs()[i % 3].clone();
        let (status, created) = request(&addr, "POST", "/api/games", &body).unwrap();
        assert_eq!(status, 201, "{created}");
        games.lock().unwrap().push(Game {
            id: created["game"]["id"].as_str().unwrap().to_string(),
            token: created["tokens"]["x"].as_str().unwrap().to_string(),
            seen: Vec::new(),
        });
    }
    let stop = Arc::new(AtomicBool::new(false));
    let player = {
        let (addrs, games, stop) = (addrs.clone(), games.clone(), stop.clone());
        std::thread::spawn(move || play(addrs, games, stop))
    };
    // On a stall, what each game and lease looked like, to tell a stuck
    // game from a slow machine.
    let stalled = |addrs: &Arc<Mutex<Vec<String>>>, games: &Arc<Mutex<Vec<Game>>>, what: &str| -> ! {
        let addr = addrs.lock().unwrap()[0].clone();
        for g in games.lock().unwrap().iter() {
            let shown = request(&addr, "GET", &format!("/api/games/{}", g.id), &Value::Null);
            let state = shown.map(|(status, game)| {
                let (to_move, clock) = (&game["state"]["to_move"], &game["clock"]);
                format!(
                    "{status} {} moves, to move {to_move}, result {}, clock {clock}",
                    moves_of(&game).len(),
                    game["result"]
                )
            });
            eprintln!("game {}: seen {} moves; now {state:?}", g.id, g.seen.len());
        }
        eprintln!("leases:\n{}", psql(&db, "SELECT game_id, node, epoch, released FROM game_leases ORDER BY game_id"));
        eprintln!("nodes:\n{}", psql(&db, "SELECT node, alive_ms, expires_at, now() FROM cluster_nodes ORDER BY node"));
        panic!("{what}");
    };
    let total_seen = || MOVES_SEEN.load(Ordering::Relaxed);

    // First kill: the probe's owner, timed.
    let owner = psql(&db, &format!("SELECT node FROM game_leases WHERE game_id = '{probe_id}'"));
    let victim: usize = owner[1..owner.find('-').unwrap()].parse().unwrap();
    let killed_at = Instant::now();
    let mut kills = 0;
    let mut kill = |cluster: &mut Cluster, i: usize| {
        let (mut child, _) = cluster.nodes[i].take().unwrap();
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        *addrs.lock().unwrap() = cluster.addrs();
        let node = cluster.spawn(i);
        cluster.nodes[i] = Some(node);
        *addrs.lock().unwrap() = cluster.addrs();
        kills += 1;
    };
    kill(&mut cluster, victim);
    let began = Instant::now();
    let deadline_after = loop {
        if let Some(d) = probe_deadline().filter(|d| *d != deadline_before) {
            break d;
        }
        assert!(began.elapsed() < Duration::from_secs(15), "the probe game was never taken over");
        std::thread::sleep(Duration::from_millis(20));
    };
    let taken_over_ms = killed_at.elapsed().as_millis() as u64;
    let credited = deadline_after - deadline_before;
    // The wait was at least most of a lease (the dead node renewed every
    // third of it), and all of it but that last third is given back.
    assert!(
        credited >= 700 && credited <= taken_over_ms + 1_000,
        "credited {credited} ms of a {taken_over_ms} ms takeover"
    );

    // Then 20 more kills, one node after another, while moves flow.
    for k in 0..20 {
        let before = total_seen();
        let began = Instant::now();
        while total_seen() < before + 3 {
            if began.elapsed() > Duration::from_secs(30) {
                stalled(&addrs, &games, &format!("play stalled after kill {k}"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        kill(&mut cluster, k % 3);
    }
    // The games go on after the last kill.
    let before = total_seen();
    let began = Instant::now();
    while total_seen() < before + 6 {
        if began.elapsed() > Duration::from_secs(30) {
            stalled(&addrs, &games, "play stalled after the last kill");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    player.join().unwrap();

    // Every move any node ever showed is stored, in order.
    let addr = cluster.addrs()[0].clone();
    let mut lost = 0;
    let mut checked = 0;
    for g in games.lock().unwrap().iter() {
        let (status, game) = request(&addr, "GET", &format!("/api/games/{}", g.id), &Value::Null).unwrap();
        assert_eq!(status, 200);
        let stored = moves_of(&game);
        checked += g.seen.len();
        if stored.len() < g.seen.len() || stored[..g.seen.len()] != g.seen[..] {
            lost += g.seen.len().saturating_sub(stored.len()).max(1);
            eprintln!("game {}: acknowledged {:?}, stored {:?}", g.id, g.seen, stored);
        }
    }
    eprintln!("{kills} kills, {checked} acknowledged moves checked, {lost} lost; probe credited {credited} ms of {taken_over_ms} ms");
    assert!(kills >= 21);
    assert_eq!(lost, 0, "acknowledged moves lost");
    drop(cluster);
    let _ = nats.kill();
    let _ = nats.wait();
    psql(&base, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
}
