//! `kill -9` the real `tabula serve` in the middle of games, restart it on
//! the same database, and every acknowledged move is still there and the
//! games go on.

mod common;

use common::request;
use serde_json::{json, Value};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Played {
    /// Game id, both tokens, and the moves the server acknowledged.
    games: Vec<(String, [String; 2], Vec<String>)>,
}

/// Play random legal moves in hot-seat games until `stop`, recording
/// every acknowledged move.
fn play(addr: String, played: Arc<Mutex<Played>>, stop: Arc<AtomicBool>) {
    let mut seed = 12345u64;
    let mut current: Option<usize> = None;
    while !stop.load(Ordering::Relaxed) {
        let idx = match current {
            Some(i) => i,
            None => {
                let body = json!({"game": "coldwar", "time_control": "fischer:600+0", "seats": [{"kind": "me"}, {"kind": "me"}]});
                let Some((201, created)) = request(&addr, "POST", "/api/games", &body) else { return };
                let id = created["game"]["id"].as_str().unwrap().to_string();
                let tokens = [
                    created["tokens"]["x"].as_str().unwrap().to_string(),
                    created["tokens"]["o"].as_str().unwrap().to_string(),
                ];
                let mut p = played.lock().unwrap();
                p.games.push((id, tokens, Vec::new()));
                current = Some(p.games.len() - 1);
                p.games.len() - 1
            }
        };
        let (id, tokens, plies) = {
            let p = played.lock().unwrap();
            (p.games[idx].0.clone(), p.games[idx].1.clone(), p.games[idx].2.len())
        };
        let Some((200, game)) = request(&addr, "GET", &format!("/api/games/{id}"), &Value::Null) else { return };
        if !game["result"].is_null() {
            current = None;
            continue;
        }
        let legal = game["state"]["legal_moves"].as_array().unwrap();
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mv = legal[(seed >> 33) as usize % legal.len()].as_str().unwrap().to_string();
        let side = if game["state"]["to_move"] == "x" { 0 } else { 1 };
        let body = json!({"token": tokens[side], "move": mv, "ply": plies});
        match request(&addr, "POST", &format!("/api/games/{id}/move"), &body) {
            Some((200, _)) => played.lock().unwrap().games[idx].2.push(mv),
            // The server's move rate limit: wait and try again, as a client should.
            Some((429, _)) => std::thread::sleep(Duration::from_millis(100)),
            Some((status, e)) => panic!("move refused: {status} {e}"),
            None => return, // killed mid-request: this move was never acknowledged
        }
    }
}

#[test]
fn kill_9_mid_game_loses_no_acknowledged_move() {
    let dir = std::env::temp_dir().join(format!("tabula-crash-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("crash.sqlite3");
    let (mut child, addr) = common::serve(&db);

    let played = Arc::new(Mutex::new(Played { games: Vec::new() }));
    let stop = Arc::new(AtomicBool::new(false));
    let player = {
        let (addr, played, stop) = (addr.clone(), played.clone(), stop.clone());
        std::thread::spawn(move || play(addr, played, stop))
    };
    // Kill while moves are flowing.
    let began = Instant::now();
    while played.lock().unwrap().games.iter().map(|g| g.2.len()).sum::<usize>() < 40 {
        assert!(began.elapsed() < Duration::from_secs(60), "the server played too few moves");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    stop.store(true, Ordering::Relaxed);
    player.join().unwrap();

    let (mut child, addr) = common::serve(&db);
    let played = played.lock().unwrap();
    let mut total = 0;
    for (id, tokens, moves) in &played.games {
        let (status, game) = request(&addr, "GET", &format!("/api/games/{id}"), &Value::Null).unwrap();
        assert_eq!(status, 200);
        let stored: Vec<String> =
            game["moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap().to_string()).collect();
        // Every acknowledged move is there, in order; at most one more (sent, saved, but killed before the answer).
        assert!(stored.len() == moves.len() || stored.len() == moves.len() + 1, "{id}: {stored:?} vs {moves:?}");
        assert_eq!(&stored[..moves.len()], &moves[..], "{id}");
        total += moves.len();
        // Unfinished games go on.
        if game["result"].is_null() {
            assert_eq!(game["status"], "live");
            let side = if game["state"]["to_move"] == "x" { 0 } else { 1 };
            let mv = game["state"]["legal_moves"][0].clone();
            let body = json!({"token": tokens[side], "move": mv, "ply": stored.len()});
            let (status, after) = request(&addr, "POST", &format!("/api/games/{id}/move"), &body).unwrap();
            assert_eq!(status, 200, "{after}");
        }
    }
    assert!(total >= 40);
    child.kill().unwrap();
    child.wait().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_shuts_down_gracefully() {
    let dir = std::env::temp_dir().join(format!("tabula-term-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (mut child, addr) = common::serve(&dir.join("term.sqlite3"));
    let (status, _) = request(&addr, "GET", "/api/health", &Value::Null).unwrap();
    assert_eq!(status, 200);
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let began = Instant::now();
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(began.elapsed() < Duration::from_secs(10), "the server did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exit.success(), "exit status {exit:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
