//! AI seats over real sockets: only listed levels, a thinking AI stops when
//! its game ends, a capped pool with a fair queue whose waiting charges the
//! right clock, and a slow first build that never blocks the server.

mod common;

use common::*;
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::time::Duration;

async fn wait_for(what: &str, check: impl AsyncFnMut() -> bool) {
    poll_until(what, Duration::from_secs(30), check).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_listed_levels_are_accepted() {
    let server = start("levels").await;
    let base = &server.base;
    for level in ["uct:86400000", "uct-iter:18446744073709551615", "godlike", ""] {
        let r = post(
            base,
            "/api/games",
            json!({"game": "dots", "seats": [{"kind": "me"}, {"kind": "ai", "level": level}]}),
        )
        .await;
        assert_eq!((r.status, r.code().as_str()), (400, "unknown_level"), "{level}: {}", r.body);
        assert!(r.json()["error"]["message"].as_str().unwrap().contains("medium"), "the message lists the levels");
    }
    let meta = get(base, "/api/games/meta").await.json();
    for game in meta["games"].as_array().unwrap() {
        for level in game["levels"].as_array().unwrap() {
            let body = json!({"game": game["id"], "seats": [{"kind": "me"}, {"kind": "ai", "level": level["id"]}]});
            let r = post(base, "/api/games", body).await;
            assert_eq!(r.status, 201, "{} {}: {}", game["id"], level["id"], r.body);
            server.advance(10_000).await; // stay under the creation rate
        }
    }
    server.running.shutdown().await.unwrap();
}

/// A game stored with an unbounded AI level (as an older server accepted)
/// is not resumed after a restart: it ends with no result, saying why, its
/// AI never thinks, and a rematch of it is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_unbounded_ai_is_never_resumed() {
    let server = start("ai-unlisted").await;
    let base = server.base.clone();
    // The AI is o, so it does not think before x moves.
    let created =
        create(&base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "ai", "level": "perfect"}]})).await;
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let x = created["tokens"]["x"].as_str().unwrap().to_string();
    let (db, time) = (server.db.clone(), server.time.clone());
    // Every node stops before the row changes: on a cluster, a node still
    // running would write the game back as it holds it.
    server.shutdown().await;
    let changed = sql::exec(
        &db,
        "UPDATE games SET seats = replace(seats, '\"perfect\"', '\"uct:86400000\"') WHERE id = ?1",
        &[(&id).into()],
    );
    assert_eq!(changed, 1);
    time.advance(1_000);
    let server = start_on(db, time).await;
    let g = get(&server.base, &format!("/api/games/{id}")).await.json();
    assert_eq!(g["status"], "aborted", "{g}");
    assert_eq!(
        g["result"],
        json!({"winner": null, "reason": "aborted: the AI level uct:86400000 is not offered by this server"})
    );
    assert_eq!(server.health().await["ai_thinking"], 0);
    let r = post(&server.base, &format!("/api/games/{id}/move"), json!({"token": x, "move": "b2"})).await;
    assert_eq!(r.code(), "game_over", "{}", r.body);
    let r = post(&server.base, &format!("/api/games/{id}/rematch"), json!({"token": x})).await;
    assert_eq!((r.status, r.code().as_str()), (400, "unknown_level"), "{}", r.body);
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thinking_ai_stops_when_its_game_ends() {
    let (registry, control) = stubborn::registry();
    let server = start_with("ai-stop", |c| c.registry = registry).await;
    let base = &server.base;
    // Resignation while the AI thinks on its first move.
    let created =
        create(base, json!({"game": "stubborn", "seats": [{"kind": "ai", "level": "stubborn"}, {"kind": "me"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    let o = created["tokens"]["o"].as_str().unwrap();
    wait_for("the AI thinks", async || control.thinking.load(Ordering::SeqCst) == 1).await;
    assert_eq!(server.health().await["ai_thinking"], 1);
    let r = post(base, &format!("/api/games/{id}/resign"), json!({"token": o})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    wait_for("the AI stops", async || control.stopped.load(Ordering::SeqCst) == 1).await;
    wait_for("the pool is free", async || server.health().await["ai_thinking"] == 0).await;
    let g = get(base, &format!("/api/games/{id}")).await.json();
    assert_eq!(g["moves"], json!([]), "a stopped AI's move is not played");
    assert_eq!(g["result"]["reason"], "o resigned");

    // Abort stops it too: o has not moved, so o may abort while x's AI thinks.
    let created =
        create(base, json!({"game": "stubborn", "seats": [{"kind": "ai", "level": "stubborn"}, {"kind": "me"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    let o = created["tokens"]["o"].as_str().unwrap();
    wait_for("the AI thinks", async || control.thinking.load(Ordering::SeqCst) == 1).await;
    let r = post(base, &format!("/api/games/{id}/abort"), json!({"token": o})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    wait_for("the AI stops on abort", async || control.stopped.load(Ordering::SeqCst) == 2).await;
    assert_eq!(get(base, &format!("/api/games/{id}")).await.json()["status"], "aborted");

    // The flag falling stops it too.
    let created = create(
        base,
        json!({"game": "stubborn", "time_control": "fischer:60+0", "seats": [{"kind": "me"}, {"kind": "ai", "level": "stubborn"}]}),
    )
    .await;
    let id = created["game"]["id"].as_str().unwrap();
    let x = created["tokens"]["x"].as_str().unwrap();
    post(base, &format!("/api/games/{id}/move"), json!({"token": x, "move": "b2"})).await;
    wait_for("the AI thinks", async || control.thinking.load(Ordering::SeqCst) == 1).await;
    control.releases.fetch_add(1, Ordering::SeqCst); // the AI's first move
    wait_for("the AI moved", async || get(base, &format!("/api/games/{id}")).await.json()["state"]["plies"] == 2).await;
    let mv = get(base, &format!("/api/games/{id}")).await.json()["state"]["legal_moves"][0].clone();
    post(base, &format!("/api/games/{id}/move"), json!({"token": x, "move": mv})).await;
    wait_for("the AI thinks again", async || control.thinking.load(Ordering::SeqCst) == 1).await;
    server.advance(60_000).await; // its clock runs out while it thinks
    wait_for("the AI stops on the flag", async || control.stopped.load(Ordering::SeqCst) == 3).await;
    let g = get(base, &format!("/api/games/{id}")).await.json();
    assert_eq!(g["result"]["reason"], "o ran out of time");

    // Shutdown stops a thinking AI.
    let created =
        create(base, json!({"game": "stubborn", "seats": [{"kind": "ai", "level": "stubborn"}, {"kind": "me"}]})).await;
    assert!(created["game"]["id"].is_string());
    wait_for("the AI thinks", async || control.thinking.load(Ordering::SeqCst) == 1).await;
    server.shutdown().await;
    wait_for("the AI stops on shutdown", async || control.stopped.load(Ordering::SeqCst) == 4).await;
}

/// With one thinking slot, a second AI waits its turn; its clock runs
/// while it waits, and it starts the moment the first is done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ais_queue_fairly_and_their_clocks_run_while_they_wait() {
    let (registry, control) = stubborn::registry();
    // One node's thinking slot: a server alone even on clusters.
    let server = start_alone_with("ai-queue", |c| {
        c.registry = registry;
        c.ai.max_thinking = 1;
    })
    .await;
    let base = &server.base;
    let mut games: Vec<(String, String)> = Vec::new();
    // Two games, each played to the AI's second move (ply 3), one after the other.
    for _ in 0..2 {
        let created = create(
            base,
            json!({"game": "stubborn", "time_control": "fischer:60+0", "seats": [{"kind": "me"}, {"kind": "ai", "level": "stubborn"}]}),
        )
        .await;
        let id = created["game"]["id"].as_str().unwrap().to_string();
        let x = created["tokens"]["x"].as_str().unwrap().to_string();
        post(base, &format!("/api/games/{id}/move"), json!({"token": x, "move": "b2"})).await;
        wait_for("the AI thinks", async || control.thinking.load(Ordering::SeqCst) == 1).await;
        control.releases.fetch_add(1, Ordering::SeqCst);
        wait_for("the AI moved", async || get(base, &format!("/api/games/{id}")).await.json()["state"]["plies"] == 2)
            .await;
        games.push((id, x));
    }
    // First game: x moves, its AI takes the only slot.
    let (a, xa) = &games[0];
    let mv = get(base, &format!("/api/games/{a}")).await.json()["state"]["legal_moves"][0].clone();
    post(base, &format!("/api/games/{a}/move"), json!({"token": xa, "move": mv})).await;
    wait_for("A's AI thinks", async || control.thinking.load(Ordering::SeqCst) == 1).await;
    // Second game: its AI must wait.
    let (b, xb) = &games[1];
    let mv = get(base, &format!("/api/games/{b}")).await.json()["state"]["legal_moves"][0].clone();
    post(base, &format!("/api/games/{b}/move"), json!({"token": xb, "move": mv})).await;
    wait_for("B's AI queues", async || server.health().await["ai_queued"] == 1).await;
    assert_eq!(server.health().await["ai_thinking"], 1);
    server.advance(10_000).await;
    let g: Value = get(base, &format!("/api/games/{b}")).await.json();
    assert_eq!(g["clock"]["running"], "o", "the waiting AI's clock runs");
    assert_eq!(g["clock"]["remaining_ms"]["o"], 50_000);
    // A resigns: its AI stops, B's starts at once and plays when released.
    post(base, &format!("/api/games/{a}/resign"), json!({"token": xa})).await;
    wait_for("B's AI thinks", async || {
        let h = server.health().await;
        h["ai_queued"] == 0 && h["ai_thinking"] == 1 && control.thinking.load(Ordering::SeqCst) == 1
    })
    .await;
    assert_eq!(control.stopped.load(Ordering::SeqCst), 1);
    control.releases.fetch_add(1, Ordering::SeqCst);
    wait_for("B's AI moved", async || get(base, &format!("/api/games/{b}")).await.json()["state"]["plies"] == 4).await;
    let g = get(base, &format!("/api/games/{b}")).await.json();
    assert_eq!(g["moves"][3]["clocks"]["o"], 50_000, "charged for the wait, to the AI's side");
    assert_eq!(g["moves"][3]["clocks"]["x"], 60_000);
    server.running.shutdown().await.unwrap();
}

/// Two AIs thinking at once on a two-thread runtime: the server still
/// answers. Making an agent (a solution table built on first use, e.g. Cold
/// War's `perfect`) and its thought run in one blocking task, off the async
/// threads; the stubborn agents hold both threads' worth of thinking until
/// released, so this shows it without measuring how fast anything is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thinking_ais_do_not_block_the_server() {
    let (registry, control) = stubborn::registry();
    let server = start_with("ai-off-runtime", |c| {
        c.registry = registry;
        c.ai.max_thinking = 2;
    })
    .await;
    let base = &server.base;
    let body = json!({"game": "stubborn", "seats": [{"kind": "ai", "level": "stubborn"}, {"kind": "me"}]});
    let (a, b) = tokio::join!(post(base, "/api/games", body.clone()), post(base, "/api/games", body));
    let ids: Vec<String> = [a, b].iter().map(|r| r.json()["game"]["id"].as_str().unwrap().to_string()).collect();
    wait_for("both AIs think", async || control.thinking.load(Ordering::SeqCst) == 2).await;
    // A hang detector, not a speed measure: a blocked runtime never answers.
    let health = tokio::time::timeout(Duration::from_secs(30), server.health())
        .await
        .expect("/api/health did not answer while two AIs were thinking");
    assert_eq!(health["ai_thinking"], 2);
    for id in &ids {
        let g = tokio::time::timeout(Duration::from_secs(30), get(base, &format!("/api/games/{id}")))
            .await
            .expect("a game did not answer while two AIs were thinking");
        assert_eq!(g.json()["state"]["plies"], 0);
    }
    control.releases.fetch_add(2, Ordering::SeqCst);
    for id in &ids {
        wait_for("the AI moved", async || get(base, &format!("/api/games/{id}")).await.json()["state"]["plies"] == 1)
            .await;
    }
    server.running.shutdown().await.unwrap();
}
