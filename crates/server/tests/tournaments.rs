//! Tournaments through the server (issue 15): created, joined and played
//! over HTTP by accounts, started on time by the server, with results
//! recorded from the games, entry limits, withdrawals, forfeits by no-show,
//! a restart in the middle, and a whole Dots championship played by bots.

mod common;

use common::*;
use serde_json::{json, Value};
use std::time::Duration;

/// A tournament as the API shows it to `who`.
async fn show(who: &Browser, id: &str) -> Value {
    let r = who.get(&format!("/api/tournaments/{id}")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["tournament"].clone()
}

/// Poll the tournament until `ready` holds (results are recorded just
/// after the game's own answer).
async fn wait_until(who: &Browser, id: &str, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..200 {
        let t = show(who, id).await;
        if ready(&t) {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{what}: not reached; the tournament is {}", show(who, id).await);
}

/// The live games (with a server game) of the tournament, in order.
fn live_games(t: &Value) -> Vec<Value> {
    let mut games: Vec<Value> =
        t["rounds"].as_array().unwrap().iter().flat_map(|r| r["games"].as_array().unwrap().clone()).collect();
    if let Some(rounds) = t["bracket"]["rounds"].as_array() {
        for r in rounds {
            for m in r.as_array().unwrap() {
                games.extend(m["games"].as_array().unwrap().iter().cloned());
            }
        }
    }
    games.retain(|g| g["status"] == "live");
    games.sort_by_key(|g| g["tid_game"].as_u64());
    games
}

async fn create_tournament(who: &Browser, body: Value) -> Value {
    let r = who.post("/api/tournaments", body).await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["tournament"].clone()
}

async fn join(who: &Browser, id: &str) -> Reply {
    who.post(&format!("/api/tournaments/{id}/join"), json!({})).await
}

fn standings_line(t: &Value) -> Vec<(u64, String, f64)> {
    t["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["rank"].as_u64().unwrap(), s["user"].as_str().unwrap().to_string(), s["points"].as_f64().unwrap()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_robin_starts_on_time_and_plays_to_the_end() {
    let server = start("tournament-rr").await;
    let base = &server.base;
    let ann = signup(base, "Ann").await;
    let bob = signup(base, "Bob").await;
    let cid = signup(base, "Cid").await;
    let t = create_tournament(
        &ann,
        json!({"name": "Sunday Dots", "game": "dots", "options": {"width": 6, "height": 6},
               "system": {"kind": "round_robin", "cycles": 1}, "starts_in_s": 60}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_string();
    assert_eq!((t["status"].as_str(), t["system_name"].as_str()), (Some("registration"), Some("round-robin")));
    assert_eq!((t["time_control"].as_str(), t["created_by"].as_str()), (Some("none"), Some("Ann")));
    assert_eq!(t["me"]["is_creator"], true);
    assert_eq!(t["me"]["can_join"], true);
    assert_eq!(t["starts_at_ms"].as_u64(), Some(T0 + 60_000));
    for who in [&ann, &bob, &cid] {
        let r = join(who, &id).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    assert_eq!(join(&bob, &id).await.code(), "already_joined");
    let listed = get(base, "/api/tournaments?status=registration").await.json();
    assert_eq!(listed["tournaments"][0]["id"], id.as_str());
    assert_eq!(listed["tournaments"][0]["players"], 3);
    assert_eq!(get(base, "/api/tournaments?status=running").await.json()["tournaments"], json!([]));
    assert_eq!(get(base, "/api/tournaments?status=soon").await.code(), "bad_request");
    // The tournament's socket shows it now and after every change.
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{base}/api/tournaments/{id}/ws")).await.unwrap();
    let first = recv_type(&mut ws, "tournament", 5).await;
    assert_eq!(first["tournament"]["player_count"], 3);
    // Nothing happens before the start time; then round 1 is paired.
    server.advance(59_000).await;
    assert_eq!(show(&ann, &id).await["status"], "registration");
    server.advance(1_000).await;
    let t = wait_until(&ann, &id, "the start", |t| t["status"] == "running" && !live_games(t).is_empty()).await;
    assert_eq!(t["round"], 1);
    let pushed = recv_type(&mut ws, "tournament", 5).await;
    assert_eq!(pushed["tournament"]["status"], "running");
    // Three rounds, one game each and a rest; in every game the second
    // player resigns, except a draw in the last round.
    let mut played = Vec::new();
    for round in 1..=3u64 {
        let t = wait_until(&ann, &id, "a live game", |t| t["round"] == round && live_games(t).len() == 1).await;
        let g = live_games(&t)[0].clone();
        assert_eq!(t["rounds"][round as usize - 1]["byes"][0]["kind"], "rest");
        let gid = g["game_id"].as_str().unwrap();
        let game = get(base, &format!("/api/games/{gid}")).await.json();
        assert_eq!(game["status"], "live", "{game}");
        assert_eq!(game["options"]["width"], "6");
        let seats: Vec<String> =
            game["seats"].as_array().unwrap().iter().map(|s| s["user"].as_str().unwrap().to_string()).collect();
        assert_eq!(seats, vec![g["first_user"].as_str().unwrap(), g["second_user"].as_str().unwrap()]);
        let by_name = |n: &str| [&ann, &bob, &cid][["Ann", "Bob", "Cid"].iter().position(|x| *x == n).unwrap()];
        let (first, second) = (by_name(g["first_user"].as_str().unwrap()), by_name(g["second_user"].as_str().unwrap()));
        // Tournament games cannot be aborted.
        assert_eq!(first.post(&format!("/api/games/{gid}/abort"), json!({})).await.code(), "tournament_game");
        if round < 3 {
            let r = second.post(&format!("/api/games/{gid}/resign"), json!({})).await;
            assert_eq!(r.status, 200, "{}", r.body);
        } else {
            for (who, action) in [(first, "offer"), (second, "accept")] {
                let r = who.post(&format!("/api/games/{gid}/draw"), json!({"action": action})).await;
                assert_eq!(r.status, 200, "{}", r.body);
            }
        }
        played.push((g["first_user"].as_str().unwrap().to_string(), g["second_user"].as_str().unwrap().to_string()));
    }
    let t = wait_until(&ann, &id, "the end", |t| t["status"] == "finished").await;
    assert_eq!(t["end_reason"], Value::Null);
    // Everyone met everyone once.
    let mut pairs: Vec<(String, String)> =
        played.iter().map(|(a, b)| if a < b { (a.clone(), b.clone()) } else { (b.clone(), a.clone()) }).collect();
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), 3);
    // Points: 1 for each first player of rounds 1-2, ½ each in round 3.
    let mut points = std::collections::HashMap::new();
    for (i, (a, b)) in played.iter().enumerate() {
        let (pa, pb) = if i < 2 { (1.0, 0.0) } else { (0.5, 0.5) };
        *points.entry(a.clone()).or_insert(0.0) += pa;
        *points.entry(b.clone()).or_insert(0.0) += pb;
    }
    for (_, user, p) in standings_line(&t) {
        assert_eq!(p, points[&user], "{user}: {}", t["standings"]);
    }
    let top = standings_line(&t)[0].clone();
    assert_eq!(t["winner"]["user"].as_str(), Some(top.1.as_str()));
    assert_eq!(t["standings"][0]["tiebreaks"][0]["name"], "direct encounter");
    // The crosstable shows each game from both sides.
    let cells = &t["crosstable"]["cells"];
    let symbols: Vec<&str> = cells
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap().iter().filter_map(|c| c.as_str()))
        .collect();
    let mut sorted = symbols.clone();
    sorted.sort();
    assert_eq!(sorted, vec!["0", "0", "1", "1", "½", "½"], "{cells}");
    assert_eq!(get(base, "/api/tournaments?status=finished").await.json()["tournaments"][0]["id"], id.as_str());
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entry_limits_and_the_creators_start_are_checked() {
    let server = start("tournament-limits").await;
    let base = &server.base;
    let ann = signup(base, "Ann").await;
    let bob = signup(base, "Bob").await;
    let cid = signup(base, "Cid").await;
    let robo = signup(base, "Robo").await;
    assert_eq!(robo.post("/api/account/bot", json!({})).await.status, 200);
    let body = |extra: Value| {
        let mut b = json!({"name": "Limits", "game": "dots", "system": {"kind": "round_robin"}, "starts_in_s": 600});
        b.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        b
    };
    // Bad requests are refused with a clear code.
    for (extra, code) in [
        (json!({"system": {"kind": "round_robin", "cycles": 0}}), "bad_system"),
        (json!({"system": {"kind": "ladder"}}), "bad_system"),
        (json!({"game": "go"}), "unknown_game"),
        (json!({"name": " "}), "bad_request"),
        (json!({"starts_at_ms": T0 - 60_001, "starts_in_s": null}), "bad_request"),
        (json!({"min_rating": 1800, "max_rating": 1200}), "bad_request"),
        (json!({"max_players": 1}), "bad_request"),
        (json!({"time_control": "hourglass"}), "bad_time_control"),
        (json!({"options": {"width": 2}}), "bad_option"),
    ] {
        let mut b = body(extra.clone());
        b.as_object_mut().unwrap().retain(|_, v| !v.is_null());
        let r = ann.post("/api/tournaments", b).await;
        assert_eq!((r.status, r.code()), (400, code.to_string()), "{extra}: {}", r.body);
    }
    let guest = post(base, "/api/tournaments", body(json!({}))).await;
    assert_eq!(guest.code(), "not_logged_in");
    // Rating range: new accounts are 1500.
    let high = create_tournament(&ann, body(json!({"min_rating": 1600}))).await;
    let r = join(&bob, high["id"].as_str().unwrap()).await;
    assert_eq!((r.status, r.code()), (403, "out_of_range".to_string()), "{}", r.body);
    assert_eq!(show(&bob, high["id"].as_str().unwrap()).await["me"]["can_join"], false);
    // No bots.
    let humans = create_tournament(&ann, body(json!({"bots_allowed": false, "max_players": 2}))).await;
    let hid = humans["id"].as_str().unwrap();
    let r = join(&robo, hid).await;
    assert_eq!((r.status, r.code()), (403, "bots_not_allowed".to_string()), "{}", r.body);
    // Full.
    assert_eq!(join(&ann, hid).await.status, 200);
    assert_eq!(join(&bob, hid).await.status, 200);
    let r = join(&cid, hid).await;
    assert_eq!((r.status, r.code()), (409, "full".to_string()), "{}", r.body);
    assert_eq!(post(base, &format!("/api/tournaments/{hid}/join"), json!({})).await.code(), "not_logged_in");
    // Only the creator starts it early; then nobody joins a round-robin.
    assert_eq!(bob.post(&format!("/api/tournaments/{hid}/start"), json!({})).await.code(), "not_creator");
    let r = ann.post(&format!("/api/tournaments/{hid}/start"), json!({})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["tournament"]["status"], "running");
    assert_eq!(ann.post(&format!("/api/tournaments/{hid}/start"), json!({})).await.code(), "already_started");
    assert_eq!(join(&cid, hid).await.code(), "already_started");
    // Too few players: the creator is told; at the start time it is cancelled.
    let lone = create_tournament(&ann, body(json!({"starts_in_s": 30}))).await;
    let lid = lone["id"].as_str().unwrap();
    assert_eq!(join(&cid, lid).await.status, 200);
    let r = ann.post(&format!("/api/tournaments/{lid}/start"), json!({})).await;
    assert_eq!((r.status, r.code()), (409, "too_few_players".to_string()), "{}", r.body);
    server.advance(30_000).await;
    let t = wait_until(&ann, lid, "the cancellation", |t| t["status"] == "finished").await;
    assert!(t["end_reason"].as_str().unwrap().contains("cancelled"), "{}", t["end_reason"]);
    assert!(t["end_reason"].as_str().unwrap().contains("1 joined"), "{}", t["end_reason"]);
    assert_eq!(t["winner"], Value::Null);
    assert_eq!(join(&bob, lid).await.code(), "finished");
    assert_eq!(get(base, "/api/tournaments/nope").await.code(), "not_found");
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_withdrawal_resigns_the_live_game_and_forfeits_the_rest() {
    let server = start("tournament-withdraw").await;
    let base = &server.base;
    let names = ["Ann", "Bob", "Cid", "Dee"];
    let mut players = Vec::new();
    for n in names {
        players.push(signup(base, n).await);
    }
    let t = create_tournament(
        &players[0],
        json!({"name": "W", "game": "dots", "options": {"width": 6, "height": 6},
               "system": {"kind": "round_robin"}, "starts_in_s": 60}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_string();
    for p in &players {
        assert_eq!(join(p, &id).await.status, 200);
    }
    // Withdrawing before the start takes the entry back; it cannot be renewed.
    let r = players[3].post(&format!("/api/tournaments/{id}/withdraw"), json!({})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["tournament"]["player_count"], 3);
    assert_eq!(r.json()["tournament"]["me"]["joined"], false);
    assert_eq!(join(&players[3], &id).await.code(), "withdrawn");
    assert_eq!(players[3].post(&format!("/api/tournaments/{id}/withdraw"), json!({})).await.code(), "not_joined");
    server.advance(60_000).await;
    let t = wait_until(&players[0], &id, "the start", |t| live_games(t).len() == 1).await;
    assert_eq!(t["standings"].as_array().unwrap().len(), 3);
    // The player in round 1's game withdraws: the game is resigned, their
    // later game is a forfeit, and the tournament still ends.
    let g = live_games(&t)[0].clone();
    let leaver = g["second_user"].as_str().unwrap().to_string();
    let who = &players[names.iter().position(|n| *n == leaver).unwrap()];
    let r = who.post(&format!("/api/tournaments/{id}/withdraw"), json!({})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let game = get(base, &format!("/api/games/{}", g["game_id"].as_str().unwrap())).await.json();
    assert_eq!(game["status"], "finished", "{game}");
    // The remaining game between the two others is played (a resignation).
    let t = wait_until(&players[0], &id, "round 2 or the end", |t| {
        t["status"] == "finished"
            || live_games(t).iter().any(|g| g["first_user"] != leaver.as_str() && g["second_user"] != leaver.as_str())
    })
    .await;
    if t["status"] != "finished" {
        let g = live_games(&t)[0].clone();
        let second = &players[names.iter().position(|n| *n == g["second_user"].as_str().unwrap()).unwrap()];
        let r = second.post(&format!("/api/games/{}/resign", g["game_id"].as_str().unwrap()), json!({})).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let t = wait_until(&players[0], &id, "the end", |t| t["status"] == "finished").await;
    let forfeits: Vec<&Value> = t["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["games"].as_array().unwrap())
        .filter(|g| g["forfeit"] == true)
        .collect();
    assert_eq!(forfeits.len(), 1, "{}", t["rounds"]);
    let leaver_line = t["standings"].as_array().unwrap().iter().find(|s| s["user"] == leaver.as_str()).unwrap();
    assert_eq!(leaver_line["points"], 0.0);
    assert_eq!(t["players"].as_array().unwrap().iter().filter(|p| p["withdrawn"] == true).count(), 2);
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_no_show_loses_by_forfeit_on_the_first_move_timer() {
    let server = start("tournament-noshow").await;
    let base = &server.base;
    let ann = signup(base, "Ann").await;
    let bob = signup(base, "Bob").await;
    let t = create_tournament(
        &ann,
        json!({"name": "Blitz", "game": "dots", "options": {"width": 6, "height": 6}, "time_control": "fischer:60+1",
               "system": {"kind": "round_robin"}, "starts_in_s": 10, "rated": true}),
    )
    .await;
    assert_eq!((t["time_control"].as_str(), t["category"].as_str()), (Some("fischer:60+1"), Some("blitz")));
    let id = t["id"].as_str().unwrap().to_string();
    // Bob's event stream hears of his game, with the tournament's id.
    let token = bob.post("/api/account/tokens", json!({"scopes": ["bot:play"]})).await.json()["token"]["secret"]
        .as_str()
        .unwrap()
        .to_string();
    let mut events = Ndjson::open(base, "/api/stream/event", &token).await;
    for who in [&ann, &bob] {
        assert_eq!(join(who, &id).await.status, 200);
    }
    server.advance(10_000).await;
    let t = wait_until(&ann, &id, "the start", |t| live_games(t).len() == 1).await;
    let g = live_games(&t)[0].clone();
    let gid = g["game_id"].as_str().unwrap().to_string();
    let start = events.next_of("gameStart").await;
    assert_eq!((start["game"]["id"].as_str(), start["tournament"].as_str()), (Some(gid.as_str()), Some(id.as_str())));
    assert_eq!(start["game"]["rated"], true);
    let game = get(base, &format!("/api/games/{gid}")).await.json();
    assert_eq!(game["rated"], true);
    // Nobody moves: the first player never shows up and forfeits.
    server.advance(31_000).await;
    let t = wait_until(&ann, &id, "the forfeit", |t| t["status"] == "finished").await;
    let game = get(base, &format!("/api/games/{gid}")).await.json();
    assert_eq!(game["status"], "aborted", "{game}");
    let rg = &t["rounds"][0]["games"][0];
    assert_eq!((rg["forfeit"].as_bool(), rg["result"].as_str()), (Some(true), Some("0-1")), "{rg}");
    let second = g["second_user"].as_str().unwrap();
    assert_eq!(t["winner"]["user"].as_str(), Some(second));
    let symbols: Vec<Value> =
        t["crosstable"]["cells"].as_array().unwrap().iter().flat_map(|r| r.as_array().unwrap().clone()).collect();
    assert!(symbols.contains(&json!("+")) && symbols.contains(&json!("-")), "{symbols:?}");
    // A forfeit is not rated.
    let profile = get(base, &format!("/api/users/{second}")).await.json();
    assert!(profile["ratings"].as_array().unwrap().iter().all(|r| r["games"] == 0), "{}", profile["ratings"]);
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_in_the_middle_of_a_round_changes_nothing() {
    let db = temp_db("tournament-restart");
    let time = tabula_server::time::ManualTime::new(T0);
    let server = start_on(db.clone(), time.clone()).await;
    let base = server.base.clone();
    let names = ["Ann", "Bob", "Cid", "Dee"];
    let mut cookies = Vec::new();
    for n in names {
        cookies.push(signup(&base, n).await.cookie);
    }
    let browser = |base: &str, i: usize| Browser { base: base.to_string(), cookie: cookies[i].clone() };
    let t = create_tournament(
        &browser(&base, 0),
        json!({"name": "R", "game": "dots", "options": {"width": 6, "height": 6},
               "system": {"kind": "swiss", "rounds": 2}, "starts_in_s": 5}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_string();
    for i in 0..4 {
        assert_eq!(join(&browser(&base, i), &id).await.status, 200);
    }
    server.advance(5_000).await;
    let t = wait_until(&browser(&base, 0), &id, "round 1", |t| live_games(t).len() == 2).await;
    let games = live_games(&t);
    let user = |n: &Value| names.iter().position(|x| *x == n.as_str().unwrap()).unwrap();
    // One game of round 1 ends; the server stops with the other still on.
    let r = browser(&base, user(&games[0]["second_user"]))
        .post(&format!("/api/games/{}/resign", games[0]["game_id"].as_str().unwrap()), json!({}))
        .await;
    assert_eq!(r.status, 200);
    let before = wait_until(&browser(&base, 0), &id, "the first result", |t| {
        t["rounds"][0]["games"].as_array().unwrap().iter().filter(|g| g["status"] == "finished").count() == 1
    })
    .await;
    server.running.shutdown().await.unwrap();
    // Back up: the same tournament, the same live game, and it goes on.
    let server = start_on(db.clone(), time.clone()).await;
    let base = server.base.clone();
    let after = show(&browser(&base, 0), &id).await;
    for key in ["status", "round", "standings", "rounds", "crosstable", "players"] {
        assert_eq!(after[key], before[key], "{key}");
    }
    let r = browser(&base, user(&games[1]["first_user"]))
        .post(&format!("/api/games/{}/resign", games[1]["game_id"].as_str().unwrap()), json!({}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let t = wait_until(&browser(&base, 0), &id, "round 2", |t| t["round"] == 2 && live_games(t).len() == 2).await;
    for g in live_games(&t) {
        let r = browser(&base, user(&g["second_user"]))
            .post(&format!("/api/games/{}/resign", g["game_id"].as_str().unwrap()), json!({}))
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let t = wait_until(&browser(&base, 0), &id, "the end", |t| t["status"] == "finished").await;
    assert_eq!(t["standings"][0]["points"], 2.0, "{}", t["standings"]);
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_stored_while_the_tournament_did_not_hear_of_it_is_recorded_at_start_up() {
    let db = temp_db("tournament-down");
    let time = tabula_server::time::ManualTime::new(T0);
    let server = start_on(db.clone(), time.clone()).await;
    let base = server.base.clone();
    let ann = signup(&base, "Ann").await;
    let bob = signup(&base, "Bob").await;
    let t = create_tournament(
        &ann,
        json!({"name": "D", "game": "dots", "options": {"width": 6, "height": 6},
               "system": {"kind": "round_robin", "cycles": 2}, "starts_in_s": 1}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_string();
    for who in [&ann, &bob] {
        assert_eq!(join(who, &id).await.status, 200);
    }
    server.advance(1_000).await;
    let t = wait_until(&ann, &id, "the start", |t| live_games(t).len() == 1).await;
    let g = live_games(&t)[0].clone();
    let gid = g["game_id"].as_str().unwrap().to_string();
    let players = get(&base, &format!("/api/games/{gid}")).await.json()["players"].clone();
    // Every node stops before the row changes (see ai.rs).
    server.shutdown().await;
    // As if the server died between storing the game's end and recording
    // it in the tournament: the game is over in the database only.
    {
        let result = json!({"winner": players[1], "reason": "resigned"}).to_string();
        let n = sql::exec(
            &db,
            "UPDATE games SET status = 'finished', result = ?1, to_move = NULL, resume = false WHERE id = ?2",
            &[(&result).into(), (&gid).into()],
        );
        assert_eq!(n, 1);
    }
    let server = start_on(db.clone(), time.clone()).await;
    let ann = Browser { base: server.base.clone(), cookie: ann.cookie.clone() };
    let t = wait_until(&ann, &id, "the result and the second cycle", |t| {
        t["rounds"][0]["games"][0]["result"] == "0-1" && live_games(t).len() == 1
    })
    .await;
    assert_eq!(t["round"], 2);
    let second = live_games(&t)[0].clone();
    assert_eq!(second["first_user"], g["second_user"], "colours alternate in the second cycle");
    server.running.shutdown().await.unwrap();
}

/// The Dots championship board: 16 × 16, no starting cross, Express format
/// (240 moves). Blue (the first player) fills the left half and red the
/// right half column by column, so no dot is ever surrounded, except in a
/// trap: the stronger bot gets the weaker one's dot inside its half with
/// three of its four neighbours, the fourth (next to the other half, so the
/// dot stays open until then) played when the plan says. In the groups and
/// in a one-sided knockout match that is early; in a close knockout match
/// it waits until the score is level at move 240, and the capture in extra
/// time is the golden dot. Bots of equal strength never capture: a level
/// group game is a draw.
struct Plan {
    moves: [std::collections::VecDeque<(usize, usize)>; 2],
    capture: Option<(usize, (usize, usize), u64)>,
    end: u64,
}

const SIDE: usize = 16;

fn plan(strength: [u32; 2], knockout: bool) -> Plan {
    use std::collections::VecDeque;
    let half = SIDE / 2;
    let column_fill = |cols: Vec<usize>, skip: &[(usize, usize)]| -> VecDeque<(usize, usize)> {
        cols.into_iter().flat_map(|x| (0..SIDE).map(move |y| (x, y))).filter(|p| !skip.contains(p)).collect()
    };
    let blue_cols: Vec<usize> = (0..half).collect();
    let red_cols: Vec<usize> = (half..SIDE).rev().collect();
    // Blue's trap on red: red's dot at (6,5), closed at (7,5); red's trap
    // on blue: blue's dot at (9,10), closed at (8,10).
    let (blue_victim, blue_close, blue_ring) = ((6, 5), (7, 5), [(5, 5), (6, 4), (6, 6)]);
    let (red_victim, red_close, red_ring) = ((9, 10), (8, 10), [(10, 10), (9, 9), (9, 11)]);
    let capturer = match strength[0].cmp(&strength[1]) {
        std::cmp::Ordering::Greater => Some(0),
        std::cmp::Ordering::Less => Some(1),
        std::cmp::Ordering::Equal => None,
    };
    let close = strength[0].abs_diff(strength[1]) < 3;
    let extra_time = knockout && close;
    let mut blue = VecDeque::new();
    let mut red = VecDeque::new();
    match capturer {
        Some(0) => {
            blue.extend(blue_ring);
            blue.extend(column_fill(blue_cols, &[blue_victim, blue_close, blue_ring[0], blue_ring[1], blue_ring[2]]));
            red.push_back(blue_victim);
            red.extend(column_fill(red_cols, &[]));
        }
        Some(_) => {
            red.extend(red_ring);
            red.extend(column_fill(red_cols, &[red_victim, red_close, red_ring[0], red_ring[1], red_ring[2]]));
            blue.push_back(red_victim);
            blue.extend(column_fill(blue_cols, &[]));
        }
        None => {
            blue.extend(column_fill(blue_cols, &[]));
            red.extend(column_fill(red_cols, &[]));
        }
    }
    let capture = capturer.map(|side| {
        let at = if extra_time { 241 } else { 10 };
        let ply = if (at % 2 == 1) == (side == 0) { at } else { at + 1 };
        (side, if side == 0 { blue_close } else { red_close }, ply)
    });
    let end = match capture {
        Some((_, _, ply)) if extra_time => ply,
        _ => 240,
    };
    Plan { moves: [blue, red], capture, end }
}

async fn bearer(base: &str, token: &str, path: &str) -> Reply {
    http_with(base, "POST", path, Some("{}"), &[("Authorization", &format!("Bearer {token}"))]).await
}

/// Play one championship game to its end by its two bots' tokens.
async fn play_planned(base: &str, game_id: &str, tokens: [&str; 2], strength: [u32; 2], knockout: bool) -> Value {
    let mut p = plan(strength, knockout);
    for ply in 1..=p.end {
        let side = ((ply + 1) % 2) as usize;
        let point = match p.capture {
            Some((s, at, when)) if s == side && when == ply => at,
            _ => p.moves[side].pop_front().expect("the plan has a move"),
        };
        let mv = format!("{}-{}", point.0 + 1, point.1 + 1);
        let r = bearer(base, tokens[side], &format!("/api/bot/game/{game_id}/move/{mv}?ply={}", ply - 1)).await;
        assert_eq!(r.status, 200, "{game_id} ply {ply} {mv}: {}", r.body);
    }
    let game = get(base, &format!("/api/games/{game_id}")).await.json();
    assert_eq!(game["status"], "finished", "{game_id} after {} plies: {}", p.end, game["result"]);
    game
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dots_championship_of_eight_bots_is_played_through_the_server() {
    let db = temp_db("tournament-championship");
    let time = tabula_server::time::ManualTime::new(T0);
    let tune = |cfg: &mut tabula_server::Config| {
        cfg.rate.moves = tabula_server::config::Rate::UNLIMITED;
        cfg.rate.signups = tabula_server::config::Rate::UNLIMITED;
    };
    let mut cfg = config(db.clone(), &time);
    tune(&mut cfg);
    let mut server = start_config(cfg, time.clone()).await;
    let org = signup(&server.base, "Organiser").await;
    // Eight bot accounts, each with a Bot API token; strengths by join order.
    let strengths = [3u32, 8, 5, 1, 7, 2, 5, 4];
    let mut tokens = Vec::new();
    let mut names = Vec::new();
    for i in 0..8 {
        let name = format!("Bot{}", i + 1);
        let b = signup(&server.base, &name).await;
        assert_eq!(b.post("/api/account/bot", json!({})).await.status, 200);
        let token = b.post("/api/account/tokens", json!({"scopes": ["bot:play"]})).await.json()["token"]["secret"]
            .as_str()
            .unwrap()
            .to_string();
        tokens.push(token);
        names.push(name);
    }
    let knockout_game = json!({"options": [["stage", "knockout"]]});
    let t = create_tournament(
        &org,
        json!({"name": "Dots Championship", "game": "dots",
               "options": {"width": SIDE, "height": SIDE, "cross": "off", "format": "express"},
               "system": {"kind": "championship", "groups": 2, "advance": 2,
                          "knockout": {"games": 1, "settings": knockout_game, "tiebreak_settings": knockout_game,
                                       "decider_settings": knockout_game}},
               "starts_in_s": 60}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_string();
    for token in &tokens {
        let r = bearer(&server.base, token, &format!("/api/tournaments/{id}/join")).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    server.advance(60_000).await;
    let index = |user: &Value| names.iter().position(|n| n == user.as_str().unwrap()).unwrap();
    let mut played = std::collections::HashSet::new();
    let mut restarted = false;
    let mut extra_time_games = 0;
    loop {
        let viewer = Browser { base: server.base.clone(), cookie: org.cookie.clone() };
        let t = show(&viewer, &id).await;
        if t["status"] == "finished" {
            break;
        }
        let todo: Vec<Value> =
            live_games(&t).into_iter().filter(|g| !played.contains(g["game_id"].as_str().unwrap())).collect();
        if todo.is_empty() {
            tokio::time::sleep(Duration::from_millis(25)).await;
            continue;
        }
        for g in todo {
            let gid = g["game_id"].as_str().unwrap().to_string();
            let (a, b) = (index(&g["first_user"]), index(&g["second_user"]));
            let knockout = g["stage"] == "knockout";
            let game =
                play_planned(&server.base, &gid, [&tokens[a], &tokens[b]], [strengths[a], strengths[b]], knockout)
                    .await;
            assert_eq!(game["options"]["stage"], if knockout { "knockout" } else { "group" });
            if game["result"]["reason"].as_str().unwrap_or("").contains("golden") {
                extra_time_games += 1;
                assert!(game["state"]["plies"].as_u64().unwrap() > 240, "{}", game["state"]);
            }
            played.insert(gid);
            // A restart in the middle of the second group round.
            if !restarted && played.len() == 6 {
                restarted = true;
                let before = wait_until(&viewer, &id, "the sixth result", |t| {
                    t["rounds"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .flat_map(|r| r["games"].as_array().unwrap())
                        .filter(|g| g["status"] == "finished")
                        .count()
                        == 6
                })
                .await;
                server.running.shutdown().await.unwrap();
                let mut cfg = config(db.clone(), &time);
                tune(&mut cfg);
                server = start_config(cfg, time.clone()).await;
                let after = show(&Browser { base: server.base.clone(), cookie: org.cookie.clone() }, &id).await;
                assert_eq!(after, before, "a restart changes nothing");
                break;
            }
        }
    }
    let viewer = Browser { base: server.base.clone(), cookie: org.cookie.clone() };
    let t = show(&viewer, &id).await;
    assert_eq!(t["end_reason"], Value::Null);
    assert!(extra_time_games >= 1, "a level knockout match went to extra time");
    // Two groups of four, three rounds each; then semifinals and a final.
    assert_eq!(t["group_standings"].as_array().unwrap().len(), 2);
    assert_eq!(t["rounds"].as_array().unwrap().len(), 3);
    let bracket = &t["bracket"]["rounds"];
    assert_eq!((bracket[0].as_array().unwrap().len(), bracket[1].as_array().unwrap().len()), (2, 1));
    // Decisive games carry the Dots margin (one dot).
    let margins: Vec<i64> = t["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["games"].as_array().unwrap())
        .filter(|g| g["result"] != "½-½")
        .map(|g| g["margin"].as_i64().unwrap().abs())
        .collect();
    assert!(margins.iter().all(|m| *m == 1), "{margins:?}");
    let groups: Vec<Vec<(u64, String, f64)>> =
        t["group_standings"].as_array().unwrap().iter().map(|g| standings_line(&json!({"standings": g}))).collect();
    let finals = standings_line(&t);
    let line = |v: &[(u64, &str, f64)]| v.iter().map(|(r, n, p)| (*r, n.to_string(), *p)).collect::<Vec<_>>();
    // Group B's Bot3 and Bot7 drew and are level on everything: the better
    // seed (Bot3, who joined first) goes through.
    let expected_groups = vec![
        line(&[(1, "Bot5", 3.0), (2, "Bot8", 2.0), (3, "Bot1", 1.0), (4, "Bot4", 0.0)]),
        line(&[(1, "Bot2", 3.0), (2, "Bot3", 1.5), (2, "Bot7", 1.5), (4, "Bot6", 0.0)]),
    ];
    assert_eq!(groups, expected_groups, "the group standings as recorded");
    // Semifinals Bot5-Bot3 (extra time) and Bot2-Bot8; the final Bot5-Bot2
    // (extra time) goes to the strongest bot.
    let expected = line(&[
        (1, "Bot2", 3.0),
        (2, "Bot5", 3.0),
        (3, "Bot8", 2.0),
        (3, "Bot3", 1.5),
        (5, "Bot7", 1.5),
        (6, "Bot1", 1.0),
        (7, "Bot4", 0.0),
        (7, "Bot6", 0.0),
    ]);
    assert_eq!(finals, expected, "the final standings as recorded");
    assert_eq!(extra_time_games, 2);
    assert_eq!(t["winner"]["user"], "Bot2");
    let semis: Vec<(String, String, String)> = bracket[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let u = |k: &str| m[k]["user"].as_str().unwrap().to_string();
            (u("slot_a"), u("slot_b"), m["score"].as_str().unwrap().to_string())
        })
        .collect();
    assert_eq!(
        semis,
        vec![
            ("Bot5".to_string(), "Bot3".to_string(), "1-0".to_string()),
            ("Bot2".to_string(), "Bot8".to_string(), "1-0".to_string())
        ]
    );
    assert_eq!(bracket[1][0]["winner"], 1, "Bot2 (pid 1) wins the final");
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_pairs_players_again_until_its_time_is_up() {
    let server = start("tournament-arena").await;
    let base = &server.base;
    let names = ["Ann", "Bob", "Cid", "Dee"];
    let mut players = Vec::new();
    for n in names {
        players.push(signup(base, n).await);
    }
    let t = create_tournament(
        &players[0],
        json!({"name": "Arena", "game": "dots", "options": {"width": 6, "height": 6},
               "system": {"kind": "arena", "duration_ms": 600_000}, "starts_in_s": 1}),
    )
    .await;
    let id = t["id"].as_str().unwrap().to_string();
    for p in &players[..3] {
        assert_eq!(join(p, &id).await.status, 200);
    }
    server.advance(1_000).await;
    let t = wait_until(&players[0], &id, "the first pairing", |t| live_games(t).len() == 1).await;
    assert_eq!(t["status"], "running");
    // A late entry is paired at once with the player left waiting.
    assert_eq!(join(&players[3], &id).await.status, 200);
    let who = |n: &Value| &players[names.iter().position(|x| *x == n.as_str().unwrap()).unwrap()];
    let mut finished = 0;
    let mut t = wait_until(&players[0], &id, "the late pairing", |t| live_games(t).len() == 2).await;
    // Two waves of games: the second player resigns each; players are paired again at once.
    for wave in 0..2 {
        for g in live_games(&t) {
            let r = who(&g["second_user"])
                .post(&format!("/api/games/{}/resign", g["game_id"].as_str().unwrap()), json!({}))
                .await;
            assert_eq!(r.status, 200, "{}", r.body);
            finished += 1;
        }
        t = wait_until(&players[0], &id, "pairing again", |t| {
            let games = t["rounds"][0]["games"].as_array().unwrap();
            games.iter().filter(|g| g["status"] == "finished").count() == finished && live_games(t).len() == 2
        })
        .await;
        assert_eq!(t["rounds"][0]["round"], 0, "wave {wave}");
    }
    // Time is up: no new pairings; the arena ends with its last games.
    server.advance(600_000).await;
    for g in live_games(&t) {
        let r = who(&g["first_user"])
            .post(&format!("/api/games/{}/resign", g["game_id"].as_str().unwrap()), json!({}))
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        finished += 1;
    }
    let t = wait_until(&players[0], &id, "the end", |t| t["status"] == "finished").await;
    let games = t["rounds"][0]["games"].as_array().unwrap();
    assert_eq!(games.len(), finished, "no game after the end");
    assert!(games.iter().all(|g| g["status"] == "finished"));
    assert!(t["winner"]["user"].is_string() || t["standings"][0]["rank"] == t["standings"][1]["rank"]);
    let points: f64 = t["standings"].as_array().unwrap().iter().map(|s| s["points"].as_f64().unwrap()).sum();
    assert!(points > 0.0, "{}", t["standings"]);
    server.running.shutdown().await.unwrap();
}
