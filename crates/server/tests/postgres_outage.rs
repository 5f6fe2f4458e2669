//! PostgreSQL going away under a running server: while it is down, moves
//! are refused with a 503 and never acknowledged; once it is back, play
//! goes on, and everything acknowledged before is still there. A server
//! whose lock was lost in a restart and taken by another writes nothing.
//!
//! The test runs its own throwaway PostgreSQL (scripts/postgres), because
//! it stops and restarts it. It runs when `TABULA_TEST_POSTGRES` is set,
//! as in scripts/test's PostgreSQL pass, which has installed PostgreSQL.

mod common;

use common::*;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/postgres")
}

fn postgres(args: &[&str]) -> String {
    let out = Command::new(script()).args(args).output().expect("scripts/postgres runs");
    assert!(out.status.success(), "scripts/postgres {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Stops the test's PostgreSQL however the test ends.
struct Stop(String);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = Command::new(script()).args(["stop", &self.0]).output();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Play the first legal move of the side to move; the reply.
async fn play_first(base: &str, id: &str, tokens: &Value) -> Reply {
    let g = get(base, &format!("/api/games/{id}")).await.json();
    let to_move = g["state"]["to_move"].as_str().unwrap().to_string();
    let mv = g["state"]["legal_moves"][0].clone();
    post(base, &format!("/api/games/{id}/move"), json!({"token": tokens[&to_move], "move": mv})).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_are_refused_while_postgresql_is_down_and_nothing_acknowledged_is_lost() {
    if postgres_base().is_none() {
        eprintln!("skipped: TABULA_TEST_POSTGRES is not set (scripts/test sets it)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("tabula-pg-outage-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_text = dir.to_str().unwrap().to_string();
    let url = postgres(&["start", &dir_text]);
    let _stop = Stop(dir_text.clone());
    let port = url.rsplit_once(':').unwrap().1.split('/').next().unwrap().to_string();
    let time = tabula_server::time::ManualTime::new(T0);
    let mut cfg = tabula_server::Config::new(tabula_server::config::Database::Postgres(url.clone()));
    cfg.time = tabula_server::time::Time::from_source(time.clone());
    cfg.rate.connections = tabula_server::config::Rate::UNLIMITED;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = tabula_server::start_with(listener, cfg.clone()).await.unwrap();
    let base = format!("127.0.0.1:{}", running.addr.port());

    let mut games = Vec::new();
    for game in ["coldwar", "cordots"] {
        let c = create(&base, json!({"game": game, "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
        games.push((c["game"]["id"].as_str().unwrap().to_string(), c["tokens"].clone()));
    }
    let mut acknowledged: Vec<Vec<Value>> = vec![Vec::new(); games.len()];
    for (i, (id, tokens)) in games.iter().enumerate() {
        let r = play_first(&base, id, tokens).await;
        assert_eq!(r.status, 200, "{}", r.body);
        acknowledged[i] = r.json()["game"]["moves"].as_array().unwrap().clone();
    }

    postgres(&["stop", &dir_text]);
    for (i, (id, tokens)) in games.iter().enumerate() {
        let started = Instant::now();
        let r = play_first(&base, id, tokens).await;
        assert_eq!((r.status, r.code().as_str()), (503, "database_unavailable"), "{}", r.body);
        assert!(r.json()["error"]["message"].as_str().unwrap().contains("not saved"), "{}", r.body);
        assert!(started.elapsed() < Duration::from_secs(15), "refused promptly, not hung: {:?}", started.elapsed());
        let g = get(&base, &format!("/api/games/{id}")).await.json();
        assert_eq!(g["moves"].as_array().unwrap(), &acknowledged[i], "the refused move left nothing in memory");
    }

    postgres(&["start", &dir_text, &port]);
    // The server reconnects by itself: the first move after the restart may
    // still meet a connection that died with the old server.
    for (i, (id, tokens)) in games.iter().enumerate() {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let r = play_first(&base, id, tokens).await;
            if r.status == 200 {
                acknowledged[i] = r.json()["game"]["moves"].as_array().unwrap().clone();
                break;
            }
            assert_eq!(r.code(), "database_unavailable", "{}", r.body);
            assert!(Instant::now() < deadline, "no move was accepted within 30 s of PostgreSQL's return");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    // The server took its lock again when it reconnected: a second server
    // is still refused.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let refused = tabula_server::start_with(listener, cfg.clone()).await.err().expect("the lock is held again");
    assert!(refused.to_string().contains("in use by another tabula server"), "{refused}");

    // PostgreSQL restarts again, and this time a second server takes the
    // database before the first writes anything: the first is fenced off.
    postgres(&["stop", &dir_text]);
    postgres(&["start", &dir_text, &port]);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let second = tabula_server::start_with(listener, cfg.clone()).await.unwrap();
    let second_base = format!("127.0.0.1:{}", second.addr.port());
    let (id, tokens) = &games[0];
    for _ in 0..2 {
        // The first try may meet the connection PostgreSQL closed; the
        // second finds the lock taken.
        let r = play_first(&base, id, tokens).await;
        assert_eq!((r.status, r.code().as_str()), (503, "database_unavailable"), "{}", r.body);
    }
    let r = play_first(&second_base, id, tokens).await;
    assert_eq!(r.status, 200, "{}", r.body);
    acknowledged[0] = r.json()["game"]["moves"].as_array().unwrap().clone();
    // Its last heartbeat cannot be written either.
    let _ = running.shutdown().await;
    second.shutdown().await.unwrap();

    // A new server on the same database finds every acknowledged move.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = tabula_server::start_with(listener, cfg).await.unwrap();
    let base = format!("127.0.0.1:{}", running.addr.port());
    for (i, (id, _)) in games.iter().enumerate() {
        let g = get(&base, &format!("/api/games/{id}")).await.json();
        assert_eq!(g["moves"].as_array().unwrap(), &acknowledged[i], "{id}");
        let expected = if i == 0 { 3 } else { 2 };
        assert_eq!(acknowledged[i].len(), expected, "{id}: one move before the outage, one or two after");
    }
    running.shutdown().await.unwrap();
}
