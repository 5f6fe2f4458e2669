//! Storage and memory over real sockets: one server per database, a failed
//! write that costs only its own game, eviction and reload, expiry, and the
//! rate limits.

mod common;

use common::*;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_server_on_the_same_database_is_refused() {
    let server = start("second-server").await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let err =
        tabula_server::start(listener, database(&server.db)).await.err().expect("the second server must not start");
    let message = err.to_string();
    assert!(message.contains("in use by another tabula server"), "{message}");
    let holder = match postgres_base() {
        None => format!("process {}", std::process::id()),
        Some(_) => "connected from 127.0.0.1:".to_string(),
    };
    assert!(message.contains(&holder), "the message names the holder: {message}");
    // The first server is untouched, and once it stops the database is free.
    assert_eq!(post(&server.base, "/api/games", json!({"game": "coldwar"})).await.status, 201);
    let (db, time) = (server.db.clone(), server.time.clone());
    server.running.shutdown().await.unwrap();
    let again = start_on(db, time).await;
    again.running.shutdown().await.unwrap();
}

/// A write the database refuses fails its own game's move (500, nothing
/// changed) while the moves of other games committed at the same moment
/// go through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_write_fails_only_its_own_game() {
    let server = start("isolation").await;
    let base = &server.base;
    let mut games = Vec::new();
    for _ in 0..8 {
        let c = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
        games.push((c["game"]["id"].as_str().unwrap().to_string(), c["tokens"]["x"].as_str().unwrap().to_string()));
    }
    let doomed = games[0].0.clone();
    if postgres_base().is_some() {
        sql::exec(
            &server.db,
            &format!(
                "CREATE FUNCTION refuse_one() RETURNS trigger LANGUAGE plpgsql AS $body$
                 BEGIN IF NEW.game_id = '{doomed}' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END
                 $body$"
            ),
            &[],
        );
        sql::exec(
            &server.db,
            "CREATE TRIGGER refuse_one BEFORE INSERT ON moves FOR EACH ROW EXECUTE FUNCTION refuse_one()",
            &[],
        );
    } else {
        let db = rusqlite::Connection::open(&server.db).unwrap();
        db.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
        db.execute_batch(&format!(
            "CREATE TRIGGER refuse_one BEFORE INSERT ON moves WHEN NEW.game_id = '{doomed}'
             BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;"
        ))
        .unwrap();
    }
    // Every game moves at once, so the writes share commit batches.
    let moves = games.iter().map(|(id, x)| {
        let (base, id, x) = (base.clone(), id.clone(), x.clone());
        tokio::spawn(
            async move { post(&base, &format!("/api/games/{id}/move"), json!({"token": x, "move": "b2"})).await },
        )
    });
    let replies: Vec<Reply> = futures_util::future::join_all(moves).await.into_iter().map(Result::unwrap).collect();
    assert_eq!((replies[0].status, replies[0].code().as_str()), (500, "internal"), "{}", replies[0].body);
    assert!(replies[0].json()["error"]["message"].as_str().unwrap().contains("not saved"));
    for (i, r) in replies.iter().enumerate().skip(1) {
        assert_eq!(r.status, 200, "game {i} paid for another game's failure: {}", r.body);
    }
    // The refused move left nothing behind, in memory or on disk.
    let g = get(base, &format!("/api/games/{doomed}")).await.json();
    assert_eq!(g["moves"], json!([]));
    let stored = sql::texts(&server.db, &format!("SELECT CAST(plies AS TEXT) FROM games WHERE id = '{doomed}'"));
    assert_eq!(stored, ["0"]);
    // Once the database accepts it again, the game goes on.
    let drop_trigger =
        if postgres_base().is_some() { "DROP TRIGGER refuse_one ON moves" } else { "DROP TRIGGER refuse_one" };
    sql::exec(&server.db, drop_trigger, &[]);
    let r = post(base, &format!("/api/games/{doomed}/move"), json!({"token": games[0].1, "move": "b2"})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    server.running.shutdown().await.unwrap();
}

async fn in_memory(server: &TestServer) -> u64 {
    server.health().await["games_in_memory"].as_u64().unwrap()
}

/// Wait (briefly, in real time) for housekeeping to reach `n` games in memory.
async fn settles_at(server: &TestServer, n: u64) {
    for _ in 0..500 {
        if in_memory(server).await == n {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(in_memory(server).await, n);
}

/// Finished and idle games leave memory and come back when asked for;
/// forgotten games expire with a reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_leave_memory_come_back_and_expire() {
    // Pings would close the unread test socket over these long jumps. One
    // node's memory: a server alone even when the tests run on clusters.
    let server = start_alone_with("evict", |c| c.net.ws_ping_interval_ms = u64::MAX / 4).await;
    let base = &server.base;
    let c = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let finished = c["game"]["id"].as_str().unwrap().to_string();
    let x = c["tokens"]["x"].as_str().unwrap();
    post(base, &format!("/api/games/{finished}/move"), json!({"token": x, "move": "b2"})).await;
    post(base, &format!("/api/games/{finished}/resign"), json!({"token": x})).await;
    let before = get(base, &format!("/api/games/{finished}")).await.json();
    let c = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let idle = c["game"]["id"].as_str().unwrap().to_string();
    let idle_x = c["tokens"]["x"].as_str().unwrap().to_string();
    let c = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let watched = c["game"]["id"].as_str().unwrap().to_string();
    let mut ws = connect(base, &watched).await;
    recv_type(&mut ws, "state", 5).await;
    let c = create(
        base,
        json!({"game": "coldwar", "time_control": "fischer:60+0", "seats": [{"kind": "me"}, {"kind": "open"}]}),
    )
    .await;
    let waiting = c["game"]["id"].as_str().unwrap().to_string();
    assert_eq!(in_memory(&server).await, 4);

    server.advance(61_000).await; // the finished game, unwatched, leaves
    settles_at(&server, 3).await;
    let reloaded = get(base, &format!("/api/games/{finished}")).await.json();
    assert_eq!(reloaded["moves"], before["moves"]);
    assert_eq!((reloaded["status"].as_str(), reloaded["result"].clone()), (Some("finished"), before["result"].clone()));
    assert_eq!(in_memory(&server).await, 4);

    server.advance(10 * 60_000).await; // idle unwatched games leave too; the watched one stays
    server.advance(10_000).await;
    settles_at(&server, 1).await;
    // The idle game comes back on a move.
    let r = post(base, &format!("/api/games/{idle}/move"), json!({"token": idle_x, "move": "b2"})).await;
    assert_eq!(r.status, 200, "{}", r.body);

    // A day later the waiting game nobody joined is aborted, saying why.
    server.advance(24 * 3_600_000).await;
    server.advance(10_000).await;
    let g = get(base, &format!("/api/games/{waiting}")).await.json();
    assert_eq!(g["status"], "aborted", "{g}");
    assert_eq!(g["result"], json!({"winner": null, "reason": "aborted: nobody joined within 24 hours"}));
    // Two weeks without a move abort the untimed live games.
    server.advance(14 * 24 * 3_600_000).await;
    server.advance(10_000).await;
    for id in [&idle, &watched] {
        let g = get(base, &format!("/api/games/{id}")).await.json();
        assert_eq!(g["result"]["reason"], "aborted: no move for 14 days", "{g}");
    }
    let pushed = recv_type(&mut ws, "state", 5).await;
    assert_eq!(pushed["game"]["status"], "aborted", "the watcher is told");
    server.running.shutdown().await.unwrap();
}

/// Past a limit: 429, JSON, Retry-After; after that time, allowed again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_answer_429_with_retry_after() {
    // Each node counts for itself (docs/deploy.md): a server alone.
    let server = start_alone_with("limits", |_| {}).await;
    let base = &server.base;
    let body = json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]});
    let mut created: Vec<Value> = Vec::new();
    for _ in 0..20 {
        created.push(create(base, body.clone()).await);
    }
    let r = post(base, "/api/games", body.clone()).await;
    assert_eq!((r.status, r.code().as_str()), (429, "rate_limited"), "{}", r.body);
    let retry: u64 = r
        .headers
        .to_ascii_lowercase()
        .lines()
        .find_map(|l| l.strip_prefix("retry-after: ")?.trim().parse().ok())
        .expect("a Retry-After header");
    assert_eq!(retry, 2, "30 a minute: one every 2 s");
    server.advance(retry * 1000).await;
    assert_eq!(post(base, "/api/games", body.clone()).await.status, 201);

    // Moves: HTTP and WebSocket count together, per address.
    let id = created[0]["game"]["id"].as_str().unwrap();
    let mut codes = Vec::new();
    for _ in 0..41 {
        codes.push(post(base, &format!("/api/games/{id}/move"), json!({"token": "wrong", "move": "b2"})).await.code());
    }
    assert_eq!(codes.iter().filter(|c| *c == "bad_token").count(), 40);
    assert_eq!(codes.last().unwrap(), "rate_limited");
    let mut ws = connect(base, id).await;
    recv_type(&mut ws, "state", 5).await;
    send(&mut ws, json!({"v": 1, "type": "move", "token": "wrong", "move": "b2"})).await;
    assert_eq!(recv_type(&mut ws, "error", 5).await["error"]["code"], "rate_limited");
    server.advance(1_000).await;
    send(&mut ws, json!({"v": 1, "type": "move", "token": "wrong", "move": "b2"})).await;
    assert_eq!(recv_type(&mut ws, "error", 5).await["error"]["code"], "bad_token");

    // WebSocket connections: 30 at once (the second that passed gave the
    // one used back), then refused before the upgrade.
    let mut sockets = Vec::new();
    for _ in 0..30 {
        sockets.push(connect(base, id).await);
    }
    let refused = get(base, &format!("/api/games/{id}/ws")).await;
    assert_eq!((refused.status, refused.code().as_str()), (429, "rate_limited"), "{}", refused.body);
    server.running.shutdown().await.unwrap();
}

/// Many games resume at once (read in bulk and rebuilt on several
/// threads): each comes back with its own moves, clock and turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_unfinished_games_resume_each_with_its_own_state() {
    // A restart of one server (a cluster's nodes take games over one by
    // one instead: tests/cluster.rs and the kill -9 test).
    let server = start_alone_with("resume-many", |c| c.rate = tabula_server::config::RateLimits::unlimited()).await;
    let base = server.base.clone();
    let mut ids = Vec::new();
    for i in 0..24u64 {
        let c = create(
            &base,
            json!({"game": "coldwar", "time_control": "fischer:60+0", "seats": [{"kind": "me"}, {"kind": "me"}]}),
        )
        .await;
        let id = c["game"]["id"].as_str().unwrap().to_string();
        let tokens = [c["tokens"]["x"].as_str().unwrap().to_string(), c["tokens"]["o"].as_str().unwrap().to_string()];
        // Game i gets i % 4 + 1 plies, 100 ms apart (all within the first-move time).
        for ply in 0..(i % 4 + 1) as usize {
            let g = get(&base, &format!("/api/games/{id}")).await.json();
            let mv = g["state"]["legal_moves"][i as usize % 3].clone();
            let r = post(&base, &format!("/api/games/{id}/move"), json!({"token": tokens[ply % 2], "move": mv})).await;
            assert_eq!(r.status, 200, "{}", r.body);
            server.advance(100).await;
        }
        ids.push(id);
    }
    let mut before = Vec::new();
    for id in &ids {
        before.push(get(&base, &format!("/api/games/{id}")).await.json());
    }
    let (db, time) = (server.db.clone(), server.time.clone());
    server.running.shutdown().await.unwrap();
    time.advance(3_600_000);
    let server = start_alone_on(db, time).await;
    assert_eq!(server.health().await["games_in_memory"], 24, "every timed game is resumed");
    for (id, before) in ids.iter().zip(&before) {
        let after = get(&server.base, &format!("/api/games/{id}")).await.json();
        assert_eq!(after["status"], "live", "{id}: {after}");
        assert_eq!(after["moves"], before["moves"], "{id}");
        assert_eq!(after["state"]["to_move"], before["state"]["to_move"], "{id}");
        assert_eq!(after["clock"]["remaining_ms"], before["clock"]["remaining_ms"], "{id}: downtime charged");
        assert_eq!(after["clock"]["running"], before["clock"]["running"], "{id}");
    }
    server.running.shutdown().await.unwrap();
}
