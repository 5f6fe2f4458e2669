//! Challenges and the Bot API over real sockets: a built-in AI bot accepts
//! and plays a rated game; an external bot account follows its event
//! stream, accepts a challenge, plays through the game stream and move
//! endpoint, and declines another.

mod common;

use common::*;
use serde_json::{json, Value};

/// The next `gameState` with `plies` played (or the game over).
async fn next_ply(stream: &mut Ndjson, plies: u64) -> Value {
    loop {
        let g = stream.next_of("gameState").await["game"].clone();
        if g["state"]["plies"] == plies || g["status"] != "live" {
            return g;
        }
    }
}

async fn bearer_post(base: &str, token: &str, path: &str, body: Value) -> Reply {
    http_with(base, "POST", path, Some(&body.to_string()), &[("Authorization", &format!("Bearer {token}"))]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_built_in_bot_accepts_at_once_and_earns_a_rating() {
    // Test time stands still, so the move limit would never refill.
    let server = start_with("bots-builtin", |cfg| cfg.rate.moves = tabula_server::config::Rate::UNLIMITED).await;
    let base = &server.base;
    let bots = get(base, "/api/bots").await.json();
    let names: Vec<&str> = bots["bots"].as_array().unwrap().iter().map(|b| b["username"].as_str().unwrap()).collect();
    for n in ["tabula-random", "tabula-easy", "tabula-medium", "tabula-expert"] {
        assert!(names.contains(&n), "{names:?}");
    }
    let ann = signup(base, "Ann").await;
    let r = ann
        .post(
            "/api/challenges",
            json!({"to": "tabula-random", "game": "coldwar", "rated": true, "color": "first",
                                        "time_control": "fischer:300+0"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let c = r.json()["challenge"].clone();
    assert_eq!(c["status"], "accepted");
    let id = c["game_id"].as_str().unwrap().to_string();
    // Ann (x) plays random legal moves by her account; the bot answers.
    let mut ws = ann.connect(&id).await;
    let mut rng = Lcg(7);
    let mut answered = None;
    loop {
        let m = recv(&mut ws, 10).await;
        assert_ne!(m["type"], "error", "{m}");
        if m["type"] != "state" {
            continue;
        }
        let g = m["game"].clone();
        if g["status"] != "live" {
            assert_eq!(g["status"], "finished", "{}", g["result"]);
            assert!(g["rating_changes"]["o"]["user"] == "tabula-random", "{}", g["rating_changes"]);
            break;
        }
        // Presence changes send the same position again: answer each once.
        if g["state"]["to_move"] == "x" && answered != g["state"]["plies"].as_u64() {
            answered = g["state"]["plies"].as_u64();
            let legal = g["state"]["legal_moves"].as_array().unwrap();
            let mv = legal[rng.below(legal.len())].clone();
            send(&mut ws, json!({"v": 1, "type": "move", "move": mv, "ply": g["state"]["plies"]})).await;
        }
    }
    let bots = get(base, "/api/bots").await.json();
    let random = bots["bots"].as_array().unwrap().iter().find(|b| b["username"] == "tabula-random").unwrap().clone();
    assert_eq!(random["builtin"], true);
    assert_eq!(random["ratings"][0]["game"], "coldwar");
    assert_eq!(random["ratings"][0]["games"], 1);
    // A level the game lacks is refused.
    let r = ann.post("/api/challenges", json!({"to": "tabula-perfect", "game": "dots"})).await;
    assert_eq!(r.code(), "unknown_level", "{}", r.body);
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_bot_plays_through_the_bot_api() {
    let server = start("bots-external").await;
    let base = &server.base;
    let ann = signup(base, "Ann").await;
    let bob = signup(base, "RoboBob").await;
    let made = bob.post("/api/account/bot", json!({})).await;
    assert_eq!(made.json()["user"]["kind"], "bot", "{}", made.body);
    let token = bob.post("/api/account/tokens", json!({"scopes": ["bot:play"]})).await.json()["token"]["secret"]
        .as_str()
        .unwrap()
        .to_string();
    let mut events = Ndjson::open(base, "/api/stream/event", &token).await;
    // A challenge the bot declines.
    let c1 = ann.post("/api/challenges", json!({"to": "robobob", "game": "dots"})).await.json()["challenge"].clone();
    let seen = events.next_of("challenge").await;
    assert_eq!(seen["challenge"]["id"], c1["id"]);
    assert_eq!(seen["challenge"]["from"]["user"], "Ann");
    assert_eq!(
        (seen["challenge"]["from"]["rating"].as_i64(), seen["challenge"]["to"]["provisional"].as_bool()),
        (Some(1500), Some(true))
    );
    let r = bearer_post(
        base,
        &token,
        &format!("/api/challenges/{}/decline", c1["id"].as_str().unwrap()),
        json!({"reason": "variant"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let shown = ann.get(&format!("/api/challenges/{}", c1["id"].as_str().unwrap())).await.json();
    assert_eq!(shown["challenge"]["status"], "declined");
    assert_eq!(shown["challenge"]["decline_reason"], "variant");
    // Ann cannot accept her own challenge; a second answer is refused.
    let c2 = ann
        .post("/api/challenges", json!({"to": "RoboBob", "game": "coldwar", "rated": true, "color": "first", "time_control": "fischer:120+1"}))
        .await
        .json()["challenge"]
        .clone();
    let c2_id = c2["id"].as_str().unwrap().to_string();
    assert_eq!(ann.post(&format!("/api/challenges/{c2_id}/accept"), json!({})).await.code(), "not_yours");
    events.next_of("challenge").await;
    let acc = bearer_post(base, &token, &format!("/api/challenges/{c2_id}/accept"), json!({})).await;
    assert_eq!(acc.status, 200, "{}", acc.body);
    let id = acc.json()["game_id"].as_str().unwrap().to_string();
    assert_eq!(
        bearer_post(base, &token, &format!("/api/challenges/{c2_id}/accept"), json!({})).await.code(),
        "not_pending"
    );
    let start = events.next_of("gameStart").await;
    assert_eq!(start["game"]["id"], id.as_str());
    assert_eq!((start["game"]["game"].as_str(), start["game"]["player"].as_str()), (Some("coldwar"), Some("o")));
    assert_eq!(start["game"]["opponent"]["user"], "Ann");
    assert_eq!(ann.get(&format!("/api/challenges/{c2_id}")).await.json()["challenge"]["game_id"], id.as_str());
    // The bot follows its game.
    let mut game = Ndjson::open(base, &format!("/api/bot/game/stream/{id}"), &token).await;
    let full = game.next_of("gameFull").await;
    assert_eq!(full["player"], "o");
    assert_eq!(full["game"]["rated"], true);
    let mut rng = Lcg(3);
    let mut last = full["game"].clone();
    let mut bot_moves = 0;
    for _ in 0..6 {
        // Ann moves (by cookie), the bot answers on its stream.
        let legal = last["state"]["legal_moves"].as_array().unwrap().clone();
        let mv = legal[rng.below(legal.len())].clone();
        let r = ann.post(&format!("/api/games/{id}/move"), json!({"move": mv, "ply": last["state"]["plies"]})).await;
        assert_eq!(r.status, 200, "{}", r.body);
        last = next_ply(&mut game, last["state"]["plies"].as_u64().unwrap() + 1).await;
        if last["status"] != "live" {
            break;
        }
        let legal = last["state"]["legal_moves"].as_array().unwrap().clone();
        let mv = legal[rng.below(legal.len())].as_str().unwrap().to_string();
        let path = format!("/api/bot/game/{id}/move/{mv}?ply={}", last["state"]["plies"]);
        let r = bearer_post(base, &token, &path, json!({})).await;
        assert_eq!(r.json(), json!({"v": 1, "ok": true}), "{}", r.body);
        bot_moves += 1;
        last = next_ply(&mut game, last["state"]["plies"].as_u64().unwrap() + 1).await;
        if last["status"] != "live" {
            break;
        }
    }
    assert!(bot_moves > 0);
    // A stale or foreign move is refused with the usual codes.
    let r = bearer_post(base, &token, &format!("/api/bot/game/{id}/move/a1?ply=0"), json!({})).await;
    assert!(["stale_ply", "game_over"].contains(&r.code().as_str()), "{}", r.body);
    if last["status"] == "live" {
        let r = ann.post(&format!("/api/games/{id}/resign"), json!({})).await;
        assert_eq!(r.status, 200, "{}", r.body);
        last = game.next_of("gameState").await["game"].clone();
    }
    assert_eq!(last["status"], "finished");
    assert!(last["rating_changes"]["o"]["after"].is_i64(), "{}", last["rating_changes"]);
    assert!(game.next().await.is_none(), "the game stream ends with the game");
    let finish = events.next_of("gameFinish").await;
    assert_eq!(finish["game"]["id"], id.as_str());
    let profile = get(base, "/api/users/RoboBob").await.json();
    assert_eq!(profile["user"]["kind"], "bot");
    assert_eq!(profile["user"]["online"], true, "its event stream is open");
    assert_eq!(profile["ratings"][0]["games"], 1);
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn challenges_are_listed_cancelled_and_lapse() {
    let server = start("bots-challenges").await;
    let base = &server.base;
    let ann = signup(base, "Ann").await;
    let cat = signup(base, "Cat").await;
    assert_eq!(ann.post("/api/challenges", json!({"to": "ann", "game": "dots"})).await.code(), "self_challenge");
    assert_eq!(ann.post("/api/challenges", json!({"to": "nobody", "game": "dots"})).await.code(), "unknown_user");
    assert_eq!(post(base, "/api/challenges", json!({"to": "Cat", "game": "dots"})).await.code(), "not_logged_in");
    let c = ann.post("/api/challenges", json!({"to": "Cat", "game": "dots"})).await.json()["challenge"].clone();
    let id = c["id"].as_str().unwrap();
    let listed = cat.get("/api/challenges").await.json();
    assert_eq!(listed["in"][0]["id"], id);
    assert_eq!(ann.get("/api/challenges").await.json()["out"][0]["id"], id);
    assert_eq!(cat.post(&format!("/api/challenges/{id}/cancel"), json!({})).await.code(), "not_yours");
    assert_eq!(ann.post(&format!("/api/challenges/{id}/cancel"), json!({})).await.status, 200);
    assert_eq!(cat.post(&format!("/api/challenges/{id}/accept"), json!({})).await.code(), "not_pending");
    let c = ann.post("/api/challenges", json!({"to": "Cat", "game": "dots"})).await.json()["challenge"].clone();
    let id = c["id"].as_str().unwrap();
    server.advance(10 * 60_000).await;
    assert!(cat.get("/api/challenges").await.json()["in"].as_array().unwrap().is_empty());
    assert_eq!(cat.get(&format!("/api/challenges/{id}")).await.json()["challenge"]["status"], "expired");
    // A stranger sees nothing of it.
    let dee = signup(base, "Dee").await;
    assert_eq!(dee.get(&format!("/api/challenges/{id}")).await.status, 404);
    server.running.shutdown().await.unwrap();
}

/// An idle event stream stays open past the connection timeouts, sending
/// an empty line every 7 s, and still delivers events.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_event_stream_stays_open() {
    let server = start("bots-idle").await;
    let base = &server.base;
    let bot = signup(base, "Idle").await;
    let ann = signup(base, "Ann").await;
    let token =
        bot.post("/api/account/tokens", json!({})).await.json()["token"]["secret"].as_str().unwrap().to_string();
    let mut events = Ndjson::open(base, "/api/stream/event", &token).await;
    for _ in 0..20 {
        server.advance(7_000).await;
    }
    let c = ann.post("/api/challenges", json!({"to": "Idle", "game": "dots"})).await.json()["challenge"].clone();
    assert_eq!(events.next_of("challenge").await["challenge"]["id"], c["id"]);
    server.running.shutdown().await.unwrap();
}
