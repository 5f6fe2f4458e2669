//! Several nodes on one PostgreSQL and one NATS (cluster mode): live
//! fan-out between nodes, racing moves on different nodes, and a NATS
//! outage. They run on the PostgreSQL server of `TABULA_TEST_POSTGRES`
//! (scripts/test starts one) with a NATS server each test starts itself,
//! so it can stop it; without `TABULA_TEST_POSTGRES` they are skipped.
//! `kill -9` of a node is tested on real processes in
//! crates/cli/tests/cluster_failover.rs.

mod common;

use common::*;
use serde_json::{json, Value};
use std::time::Duration;

/// A NATS server of the test's own on a loopback port.
struct Nats {
    child: std::process::Child,
    port: u16,
}

impl Nats {
    fn start(port: u16) -> Nats {
        let mut child = std::process::Command::new("nats-server")
            .args(["-a", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("nats-server must be installed (scripts/nats installs it)");
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Nats { child, port };
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("nats-server did not start on port {port}");
    }

    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `n` nodes of one cluster on a fresh database, or `None` without
/// PostgreSQL.
async fn cluster(name: &str, nats: &Nats, n: usize) -> Option<Vec<String>> {
    postgres_base()?;
    let time = tabula_server::time::ManualTime::new(T0);
    let cfg = config(temp_db(name), &time);
    let nodes = start_cluster(&cfg, &nats.url(), n).await;
    let bases = nodes.iter().map(|r| format!("127.0.0.1:{}", r.addr.port())).collect();
    // The nodes run until the test's runtime ends.
    std::mem::forget(nodes);
    Some(bases)
}

/// A hot-seat Cold War game created on `base`: its id and both tokens.
async fn hot_seat(base: &str) -> (String, [String; 2], Value) {
    let created = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let first = created["game"]["state"]["to_move"].as_str().unwrap().to_string();
    let other = if first == "x" { "o" } else { "x" };
    let tokens = [
        created["tokens"][first.as_str()].as_str().unwrap().to_string(),
        created["tokens"][other].as_str().unwrap().to_string(),
    ];
    (id, tokens, created["game"].clone())
}

/// Play the first legal move of `game` through `base`.
async fn play(base: &str, id: &str, tokens: &[String; 2], game: &Value) -> Reply {
    let ply = game["state"]["plies"].as_u64().unwrap_or(game["moves"].as_array().map_or(0, |m| m.len() as u64));
    send_move(base, id, &tokens[(ply % 2) as usize], &game["state"]["legal_moves"][0], ply).await
}

/// Play `mv` as the move of ply `ply` through `base`.
async fn send_move(base: &str, id: &str, token: &str, mv: &Value, ply: u64) -> Reply {
    post(base, &format!("/api/games/{id}/move"), json!({"token": token, "move": mv, "ply": ply})).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_watcher_on_one_node_sees_the_moves_made_through_the_others() {
    // Without PostgreSQL (scripts/test's first pass) there is nothing to
    // run, and nats-server may not be installed yet.
    if postgres_base().is_none() {
        return;
    }
    let nats = Nats::start(Nats::free_port());
    let Some(nodes) = cluster("fanout", &nats, 3).await else { return };
    let (a, b, c) = (&nodes[0], &nodes[1], &nodes[2]);
    let (id, tokens, mut game) = hot_seat(a).await;
    let mut watcher = connect(c, &id).await;
    assert_eq!(recv_type(&mut watcher, "state", 5).await["game"]["id"], id.as_str());
    for ply in 0..4 {
        let through = if ply % 2 == 0 { a } else { b };
        let r = play(through, &id, &tokens, &game).await;
        assert_eq!(r.status, 200, "ply {ply} through {through}: {}", r.body);
        game = r.json()["game"].clone();
        let seen = recv_type(&mut watcher, "state", 5).await;
        assert_eq!(seen["game"]["moves"].as_array().unwrap().len(), ply + 1, "the watcher on C saw ply {ply}");
        assert_eq!(seen["game"]["moves"][ply]["move"], game["moves"][ply]["move"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_moves_on_different_nodes_exactly_one_wins() {
    // Without PostgreSQL (scripts/test's first pass) there is nothing to
    // run, and nats-server may not be installed yet.
    if postgres_base().is_none() {
        return;
    }
    let nats = Nats::start(Nats::free_port());
    let Some(nodes) = cluster("race", &nats, 3).await else { return };
    let (id, tokens, mut game) = hot_seat(&nodes[0]).await;
    for round in 0..6 {
        let ply = game["moves"].as_array().unwrap().len();
        if game["status"] != "live" {
            break;
        }
        let legal = game["state"]["legal_moves"].as_array().unwrap().clone();
        let token = &tokens[ply % 2];
        // Two different moves for the same ply, sent to two other nodes at once.
        let (x, y) = (&nodes[1 + round % 2], &nodes[2 - round % 2]);
        let send = |base: String, mv: Value| {
            let (id, token) = (id.clone(), token.clone());
            tokio::spawn(async move { send_move(&base, &id, &token, &mv, ply as u64).await })
        };
        let first = send(x.clone(), legal[0].clone());
        let second = send(y.clone(), legal[legal.len() - 1].clone());
        let (first, second) = (first.await.unwrap(), second.await.unwrap());
        let won: Vec<&Reply> = [&first, &second].into_iter().filter(|r| r.status == 200).collect();
        assert_eq!(won.len(), 1, "round {round}: {} / {}", first.body, second.body);
        let lost = if first.status == 200 { &second } else { &first };
        assert_eq!((lost.status, lost.code().as_str()), (409, "stale_ply"), "round {round}: {}", lost.body);
        game = won[0].json()["game"].clone();
        assert_eq!(game["moves"].as_array().unwrap().len(), ply + 1);
        // Every node reads the same game.
        for base in &nodes {
            let seen = get(base, &format!("/api/games/{id}")).await.json();
            assert_eq!(seen["moves"], game["moves"], "node {base} after round {round}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn moves_go_on_while_nats_is_down_and_watchers_catch_up() {
    // Without PostgreSQL (scripts/test's first pass) there is nothing to
    // run, and nats-server may not be installed yet.
    if postgres_base().is_none() {
        return;
    }
    let port = Nats::free_port();
    let mut nats = Nats::start(port);
    let Some(nodes) = cluster("nats-outage", &nats, 2).await else { return };
    let (a, b) = (&nodes[0], &nodes[1]);
    let (id, tokens, mut game) = hot_seat(a).await;
    let mut watcher = connect(b, &id).await;
    recv_type(&mut watcher, "state", 5).await;
    let r = play(b, &id, &tokens, &game).await;
    assert_eq!(r.status, 200, "{}", r.body);
    game = r.json()["game"].clone();
    assert_eq!(recv_type(&mut watcher, "state", 5).await["game"]["moves"].as_array().unwrap().len(), 1);

    nats.stop();
    // Moves are still acknowledged on either node, and durable.
    for ply in 1..5 {
        let through = if ply % 2 == 0 { a } else { b };
        let r = play(through, &id, &tokens, &game).await;
        assert_eq!(r.status, 200, "ply {ply} through {through} without NATS: {}", r.body);
        game = r.json()["game"].clone();
    }
    // A node that lost the game to a forced takeover finds out at its next
    // lease renewal (a third of the lease): until then it may serve reads
    // from its old copy, never writes.
    for base in &nodes {
        let until = tokio::time::Instant::now() + Duration::from_secs(3);
        loop {
            let stored = get(base, &format!("/api/games/{id}")).await.json();
            if stored["moves"] == game["moves"] {
                break;
            }
            assert!(tokio::time::Instant::now() < until, "node {base} without NATS: {}", stored["moves"]);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    // NATS back on its port: the watcher catches up with every move.
    let _nats = Nats::start(port);
    let until = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let left = until.saturating_duration_since(tokio::time::Instant::now()).as_secs();
        assert!(left > 0, "the watcher never caught up");
        let seen = recv_type(&mut watcher, "state", left).await;
        if seen["game"]["moves"] == game["moves"] {
            break;
        }
    }
    // And live updates flow again.
    let r = play(a, &id, &tokens, &game).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let plies = r.json()["game"]["moves"].as_array().unwrap().len();
    // (The owner sends its last state again when NATS is back: it may come first.)
    loop {
        let seen = recv_type(&mut watcher, "state", 5).await["game"]["moves"].as_array().unwrap().len();
        assert!(seen <= plies && seen + 1 >= plies, "{seen} moves seen, {plies} played");
        if seen == plies {
            break;
        }
    }
}

/// Wait (in real time) until one of `bases` leads the cluster; its index.
async fn leader_of(bases: &[String]) -> usize {
    let until = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        for (i, base) in bases.iter().enumerate() {
            if get(base, "/api/health").await.json()["cluster"]["leader"] == true {
                return i;
            }
        }
        assert!(tokio::time::Instant::now() < until, "no node of {bases:?} leads");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_tournament_game_taken_over_by_another_node_stays_a_tournament_game() {
    // Without PostgreSQL (scripts/test's first pass) there is nothing to
    // run, and nats-server may not be installed yet.
    if postgres_base().is_none() {
        return;
    }
    let nats = Nats::start(Nats::free_port());
    let time = tabula_server::time::ManualTime::new(T0);
    let mut nodes = start_cluster(&config(temp_db("tournament-takeover"), &time), &nats.url(), 3).await;
    let bases: Vec<String> = nodes.iter().map(|r| format!("127.0.0.1:{}", r.addr.port())).collect();
    let leader = leader_of(&bases).await;
    // Everything through a node that does not lead: forwarded to the leader.
    let other = &bases[(leader + 1) % 3];
    let (ann, bob) = (signup(other, "Ann").await, signup(other, "Bob").await);
    let r = ann
        .post(
            "/api/tournaments",
            json!({"name": "Takeover", "game": "coldwar", "system": {"kind": "round_robin", "cycles": 1}, "starts_in_s": 600}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let tid = r.json()["tournament"]["id"].as_str().unwrap().to_string();
    for who in [&ann, &bob] {
        let r = who.post(&format!("/api/tournaments/{tid}/join"), json!({})).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let r = ann.post(&format!("/api/tournaments/{tid}/start"), json!({})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let t = ann.get(&format!("/api/tournaments/{tid}")).await.json();
    let gid = t["tournament"]["rounds"][0]["games"][0]["game_id"].as_str().expect("a game of round 1").to_string();
    // The leader, which made the game and owns it, stops; the untimed game
    // waits in the database until a request reaches a node that does not
    // lead, which takes it over.
    nodes.remove(leader).shutdown().await.unwrap();
    let bases: Vec<String> = nodes.iter().map(|r| format!("127.0.0.1:{}", r.addr.port())).collect();
    let new_leader = leader_of(&bases).await;
    let follower = Browser { base: bases[1 - new_leader].clone(), cookie: ann.cookie.clone() };
    let r = follower.post(&format!("/api/games/{gid}/abort"), json!({})).await;
    assert_eq!((r.status, r.code().as_str()), (409, "tournament_game"), "{}", r.body);
    let r = follower.post(&format!("/api/games/{gid}/rematch"), json!({})).await;
    assert_eq!(r.code(), "tournament_game", "{}", r.body);
    // Its end still reaches the tournament, through the new leader.
    let r = follower.post(&format!("/api/games/{gid}/resign"), json!({})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let until = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let t = follower.get(&format!("/api/tournaments/{tid}")).await.json();
        if t["tournament"]["status"] == "finished" {
            break;
        }
        assert!(tokio::time::Instant::now() < until, "the tournament did not finish: {t}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for node in nodes {
        node.shutdown().await.unwrap();
    }
}
