//! The server over real HTTP and WebSocket on loopback.

mod common;

use common::*;
use serde_json::{json, Value};

fn small_options(game: &str) -> Value {
    match game {
        "dots" => json!({"width": "8", "height": "8"}),
        _ => json!({}),
    }
}

/// A human (playing random legal moves over the WebSocket) against an AI
/// seat, to the end, for every registered game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_against_the_ai_to_its_end() {
    let server = start("ai-games").await;
    let base = &server.base;
    let meta = get(base, "/api/games/meta").await.json();
    let games = meta["games"].as_array().unwrap().clone();
    assert!(!games.is_empty());
    for (n, g) in games.iter().enumerate() {
        let id = g["id"].as_str().unwrap();
        // A real engine where games are short, the random level elsewhere to keep the test quick.
        let level = if id == "coldwar" { "easy" } else { "random" };
        let created = create(
            base,
            json!({"game": id, "options": small_options(id), "time_control": "fischer:600+5",
                   "seats": [{"kind": "me", "name": "tester"}, {"kind": "ai", "level": level}], "seed": 7}),
        )
        .await;
        let gid = created["game"]["id"].as_str().unwrap().to_string();
        let me = g["players"][0].as_str().unwrap();
        let token = created["tokens"][me].as_str().unwrap().to_string();
        let mut ws = connect(base, &gid).await;
        let mut rng = Lcg(n as u64 + 1);
        let mut last_sent = None;
        let final_game = loop {
            let m = recv(&mut ws, 60).await;
            match m["type"].as_str().unwrap() {
                "state" => {
                    let game = &m["game"];
                    if !game["result"].is_null() {
                        break game.clone();
                    }
                    let plies = game["state"]["plies"].as_u64().unwrap();
                    if game["state"]["to_move"] == me && last_sent != Some(plies) {
                        let legal = game["state"]["legal_moves"].as_array().unwrap();
                        let mv = legal[rng.below(legal.len())].as_str().unwrap();
                        send(&mut ws, move_msg(&token, mv, plies)).await;
                        last_sent = Some(plies);
                    }
                }
                "ack" => {}
                // Random moves come faster than a person's; wait and send again.
                "error" if m["error"]["code"] == "rate_limited" => {
                    server.advance(3_000).await;
                    last_sent = None;
                    let g = get(base, &format!("/api/games/{gid}")).await.json();
                    let plies = g["state"]["plies"].as_u64().unwrap();
                    if g["result"].is_null() && g["state"]["to_move"] == me {
                        let legal = g["state"]["legal_moves"].as_array().unwrap();
                        let mv = legal[rng.below(legal.len())].as_str().unwrap();
                        send(&mut ws, move_msg(&token, mv, plies)).await;
                        last_sent = Some(plies);
                    }
                }
                other => panic!("{id}: unexpected message {other}: {m}"),
            }
        };
        let plies = final_game["state"]["plies"].as_u64().unwrap();
        assert_eq!(final_game["status"], "finished", "{id}");
        assert_eq!(final_game["moves"].as_array().unwrap().len() as u64, plies, "{id}");
        assert!(final_game["result"]["reason"].as_str().is_some_and(|r| !r.is_empty()), "{id}");
        // Every game runs the Fischer clock asked for, except one whose options
        // set its clock (untimed Cordots stays untimed).
        let clocked = g["clock_options"] == json!([]);
        assert_eq!(final_game["time_control"]["kind"] == "fischer", clocked, "{id}");
        if clocked {
            assert!(final_game["moves"].as_array().unwrap().iter().all(|m| m["clocks"].is_object()), "{id}");
        }
        // The stored game and its export agree with what was pushed.
        let fetched = get(base, &format!("/api/games/{gid}")).await.json();
        assert_eq!(fetched["moves"], final_game["moves"], "{id}");
        let export = get(base, &format!("/api/games/{gid}/export")).await;
        assert_eq!(export.status, 200, "{id}: {}", export.body);
        // The record reads back, through the game's own importer, to the same game.
        let replayed =
            tabula_games::REGISTRY.get(id).unwrap().import(&export.body).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(replayed[0].moves as u64, plies, "{id}: {}", export.body);
        let listed = get(base, "/api/games?status=finished").await.json();
        assert!(listed["games"].as_array().unwrap().iter().any(|s| s["id"] == gid.as_str()), "{id}");
    }
    server.running.shutdown().await.unwrap();
}

async fn two_humans(base: &str, game: &str) -> (String, String, String, Value) {
    let created = create(
        base,
        json!({"game": game, "seats": [{"kind": "me", "name": "ann"}, {"kind": "open", "name": "friend"}]}),
    )
    .await;
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let players = created["game"]["players"].clone();
    let first = created["tokens"][players[0].as_str().unwrap()].as_str().unwrap().to_string();
    let invite = created["invites"][0]["code"].as_str().unwrap().to_string();
    let joined = post(base, &format!("/api/games/{id}/join"), json!({"invite": invite, "name": "bob"})).await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let second = joined.json()["token"].as_str().unwrap().to_string();
    (id, first, second, players)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_humans_through_an_invite_with_tokens_checked() {
    let server = start("humans").await;
    let base = &server.base;
    let created = create(
        base,
        json!({"game": "coldwar", "time_control": {"kind": "fischer", "base_ms": 60000, "increment_ms": 0},
               "seats": [{"kind": "me", "name": "ann"}, {"kind": "open"}]}),
    )
    .await;
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let x = created["tokens"]["x"].as_str().unwrap().to_string();
    assert!(created["tokens"].get("o").is_none(), "the open seat's token must not be handed out");
    assert_eq!(created["game"]["status"], "waiting");
    assert!(created["game"]["clock"]["running"].is_null(), "no clock before the opponent arrives");
    let invite = created["invites"][0].clone();
    assert_eq!(invite["player"], "o");
    assert_eq!(invite["url"].as_str().unwrap(), format!("/game/{id}?invite={}", invite["code"].as_str().unwrap()));
    // No secret leaks to spectators.
    let public = get(base, &format!("/api/games/{id}")).await.body;
    assert!(!public.contains(&x) && !public.contains(invite["code"].as_str().unwrap()));

    let early = post(base, &format!("/api/games/{id}/move"), json!({"token": x, "move": "b2"})).await;
    assert_eq!((early.status, early.code().as_str()), (409, "waiting_for_opponent"));
    let wrong = post(base, &format!("/api/games/{id}/join"), json!({"invite": "nope"})).await;
    assert_eq!((wrong.status, wrong.code().as_str()), (403, "bad_invite"));
    let joined = post(base, &format!("/api/games/{id}/join"), json!({"invite": invite["code"], "name": "bob"})).await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let joined = joined.json();
    assert_eq!(joined["player"], "o");
    assert_eq!(joined["game"]["status"], "live");
    // No clock runs before each side's first move: a first-move timer instead.
    assert!(joined["game"]["clock"]["running"].is_null());
    assert_eq!(joined["game"]["first_move_deadline_ms"], T0 + 30_000);
    assert_eq!(joined["game"]["seats"][1]["name"], "bob");
    let o = joined["token"].as_str().unwrap().to_string();
    let again = post(base, &format!("/api/games/{id}/join"), json!({"invite": invite["code"]})).await;
    assert_eq!((again.status, again.code().as_str()), (409, "seat_taken"));

    let mut ws_x = connect(base, &id).await;
    let mut ws_o = connect(base, &id).await;
    let mut spectator = connect(base, &id).await;
    assert_eq!(recv_type(&mut spectator, "state", 5).await["game"]["id"], id.as_str());
    recv_type(&mut ws_x, "state", 5).await;
    recv_type(&mut ws_o, "state", 5).await;

    // A wrong token, then the other seat's token out of turn, are refused.
    send(&mut spectator, move_msg("not-a-token", "b2", 0)).await;
    let e = recv_type(&mut spectator, "error", 5).await;
    assert_eq!(e["error"]["code"], "bad_token");
    assert_eq!(e["id"], 0);
    send(&mut ws_o, move_msg(&o, "b2", 0)).await;
    assert_eq!(recv_type(&mut ws_o, "error", 5).await["error"]["code"], "not_your_turn");

    send(&mut ws_x, move_msg(&x, "b2", 0)).await;
    let ack = recv_type(&mut ws_x, "ack", 5).await;
    assert_eq!(ack["ply"], 1);
    let seen = recv_type(&mut spectator, "state", 5).await;
    assert_eq!(seen["game"]["moves"][0]["move"], "b2");
    assert_eq!(seen["game"]["state"]["to_move"], "o");

    // An illegal move is refused with the engine's reason.
    let legal: Vec<String> = serde_json::from_value(seen["game"]["state"]["legal_moves"].clone()).unwrap();
    let illegal = ["a1-a2", "b2-b3", "c3-c2", "a1xa2"].iter().find(|m| !legal.contains(&m.to_string())).unwrap();
    let r = post(base, &format!("/api/games/{id}/move"), json!({"token": o, "move": illegal, "ply": 1})).await;
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(r.code(), "illegal_move");
    let message = r.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains(illegal) && message.len() > illegal.len() + 20, "no reason given: {message}");
    let garbage = post(base, &format!("/api/games/{id}/move"), json!({"token": o, "move": "zz9"})).await;
    assert_eq!((garbage.status, garbage.code().as_str()), (422, "malformed_move"));

    // o moves over HTTP; x sees it on its socket.
    let mv = legal[0].clone();
    let r = post(base, &format!("/api/games/{id}/move"), json!({"token": o, "move": mv, "ply": 1})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let pushed = loop {
        let m = recv_type(&mut ws_x, "state", 5).await;
        if m["game"]["moves"].as_array().unwrap().len() == 2 {
            break m;
        }
    };
    assert_eq!(pushed["game"]["moves"][1]["move"], mv.as_str());
    assert!(pushed["game"]["moves"][1]["clocks"]["o"].as_u64().unwrap() <= 60_000);

    // Draw: offer by o, accepted by x.
    let r = post(base, &format!("/api/games/{id}/draw"), json!({"token": x, "action": "accept"})).await;
    assert_eq!(r.code(), "no_draw_offer");
    let r = post(base, &format!("/api/games/{id}/draw"), json!({"token": o, "action": "offer"})).await;
    assert_eq!(r.json()["game"]["draw_offer"], "o");
    send(&mut ws_x, json!({"v": 1, "type": "draw", "token": x, "action": "accept"})).await;
    recv_type(&mut ws_x, "ack", 5).await;
    let fin = get(base, &format!("/api/games/{id}")).await.json();
    assert_eq!(fin["result"], json!({"winner": null, "reason": "draw agreed"}));
    let late = post(base, &format!("/api/games/{id}/resign"), json!({"token": x})).await;
    assert_eq!(late.code(), "game_over");

    // Rematch: colours swap, each keeps its token.
    let r = post(base, &format!("/api/games/{id}/rematch"), json!({"token": o})).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let new_game = r.json()["game"].clone();
    let new_id = new_game["id"].as_str().unwrap().to_string();
    assert_eq!(new_game["seats"][0]["name"], "bob");
    assert_eq!(new_game["rematch_of"], id.as_str());
    let again = post(base, &format!("/api/games/{id}/rematch"), json!({"token": x})).await.json();
    assert_eq!(again["game"]["id"], new_id.as_str(), "asking twice gives the same rematch");
    assert_eq!(get(base, &format!("/api/games/{id}")).await.json()["rematch_id"], new_id.as_str());
    let r = post(base, &format!("/api/games/{new_id}/move"), json!({"token": o, "move": "b2", "ply": 0})).await;
    assert_eq!(r.status, 200, "o now moves first: {}", r.body);
    let r = post(base, &format!("/api/games/{new_id}/resign"), json!({"token": x})).await;
    // ann (token x) now holds the second seat, named o.
    assert_eq!(r.json()["game"]["result"]["reason"], "o resigned");
    server.running.shutdown().await.unwrap();
}

/// Many moves for the same turn at once: exactly one is accepted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_moves_exactly_one_wins() {
    let server = start("race").await;
    let base = server.base.clone();
    let (id, x, _o, _) = two_humans(&base, "coldwar").await;
    let legal: Vec<String> =
        serde_json::from_value(get(&base, &format!("/api/games/{id}")).await.json()["state"]["legal_moves"].clone())
            .unwrap();
    // With the ply named: over HTTP and WebSocket together.
    let mut tasks = Vec::new();
    for (i, mv) in legal.iter().enumerate() {
        let (base, id, x, mv) = (base.clone(), id.clone(), x.clone(), mv.clone());
        tasks.push(tokio::spawn(async move {
            if i % 2 == 0 {
                let r = post(&base, &format!("/api/games/{id}/move"), json!({"token": x, "move": mv, "ply": 0})).await;
                (r.status == 200, if r.status == 200 { String::new() } else { r.code() })
            } else {
                let mut ws = connect(&base, &id).await;
                send(&mut ws, move_msg(&x, &mv, 0)).await;
                loop {
                    let m = recv(&mut ws, 10).await;
                    match m["type"].as_str().unwrap() {
                        "ack" => break (true, String::new()),
                        "error" => break (false, m["error"]["code"].as_str().unwrap().to_string()),
                        _ => {}
                    }
                }
            }
        }));
    }
    let mut accepted = 0;
    for t in tasks {
        let (ok, code) = t.await.unwrap();
        if ok {
            accepted += 1;
        } else {
            assert!(code == "stale_ply" || code == "not_your_turn", "unexpected refusal {code}");
        }
    }
    assert_eq!(accepted, 1);
    let g = get(&base, &format!("/api/games/{id}")).await.json();
    assert_eq!(g["moves"].as_array().unwrap().len(), 1);

    // Without a ply: the same seat sends two moves at once; the second finds it is not its turn.
    let (id2, x2, _, _) = two_humans(&base, "coldwar").await;
    let path = format!("/api/games/{id2}/move");
    let a = post(&base, &path, json!({"token": x2, "move": "a1"}));
    let b = post(&base, &path, json!({"token": x2, "move": "c3"}));
    let (a, b) = tokio::join!(a, b);
    assert_eq!([a.status, b.status].iter().filter(|s| **s == 200).count(), 1, "{} / {}", a.body, b.body);
    server.running.shutdown().await.unwrap();
}

/// The flag falls on the server's timer while nobody moves, and the game
/// then says it is over everywhere: status, state and legal moves. Before
/// a side's first move no clock runs: a first-move timer aborts instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flag_falls_while_nobody_moves() {
    let server = start("flag").await;
    let base = &server.base;
    let created = create(
        base,
        json!({"game": "coldwar", "time_control": {"kind": "fischer", "base_ms": 400, "increment_ms": 0},
               "seats": [{"kind": "me"}, {"kind": "me"}]}),
    )
    .await;
    let id = created["game"]["id"].as_str().unwrap();
    let (x, o) = (created["tokens"]["x"].as_str().unwrap(), created["tokens"]["o"].as_str().unwrap());
    let mut ws = connect(base, id).await;
    recv_type(&mut ws, "state", 5).await;
    // Far past the 400 ms base, but within the first-move time: nothing falls.
    server.advance(20_000).await;
    let g = get(base, &format!("/api/games/{id}")).await.json();
    assert_eq!(g["status"], "live", "{g}");
    assert!(g["clock"]["running"].is_null());
    assert_eq!(post(base, &format!("/api/games/{id}/move"), json!({"token": x, "move": "b2"})).await.status, 200);
    server.advance(29_000).await;
    let legal = get(base, &format!("/api/games/{id}")).await.json()["state"]["legal_moves"][0].clone();
    assert_eq!(post(base, &format!("/api/games/{id}/move"), json!({"token": o, "move": legal})).await.status, 200);
    // Now x's clock runs: 400 ms later its flag falls, with nobody moving.
    server.advance(400).await;
    let finished = loop {
        let m = recv_type(&mut ws, "state", 5).await;
        if !m["game"]["result"].is_null() {
            break m["game"].clone();
        }
    };
    assert_eq!(finished["result"], json!({"winner": "o", "reason": "x ran out of time"}));
    assert_eq!(finished["status"], "finished");
    assert_eq!(finished["clock"]["remaining_ms"]["x"], 0);
    assert!(finished["clock"]["running"].is_null());
    assert_eq!(finished["state"]["status"], "over", "the state must say the game is over");
    assert_eq!(finished["state"]["winner"], "o");
    assert_eq!(finished["state"]["legal_moves"], json!([]));
    // A move after the flag is refused.
    let r = post(base, &format!("/api/games/{id}/move"), json!({"token": x, "move": "c3"})).await;
    assert_eq!(r.code(), "game_over");

    // A side that never makes its first move aborts the game; nobody loses.
    let created = create(
        base,
        json!({"game": "coldwar", "time_control": "fischer:60+0", "seats": [{"kind": "me"}, {"kind": "me"}]}),
    )
    .await;
    let id = created["game"]["id"].as_str().unwrap();
    let x = created["tokens"]["x"].as_str().unwrap();
    assert_eq!(post(base, &format!("/api/games/{id}/move"), json!({"token": x, "move": "b2"})).await.status, 200);
    let g = get(base, &format!("/api/games/{id}")).await.json();
    let deadline = g["first_move_deadline_ms"].as_u64().unwrap();
    server.advance(deadline - g["server_time_ms"].as_u64().unwrap()).await;
    let g = get(base, &format!("/api/games/{id}")).await.json();
    assert_eq!(g["status"], "aborted", "{g}");
    assert_eq!(g["result"]["winner"], Value::Null);
    assert_eq!(g["result"]["reason"], "aborted: o made no first move in time");
    assert_eq!(g["clock"]["remaining_ms"], json!({"x": 60_000, "o": 60_000}));
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_clear_json_errors() {
    let server = start("bad-input").await;
    let base = &server.base;
    let cases: Vec<(Reply, u16, &str)> = vec![
        (http(base, "POST", "/api/games", Some("{\"game\": ")).await, 400, "bad_json"),
        (http(base, "POST", "/api/games", Some("[1, 2]")).await, 400, "bad_json"),
        (post(base, "/api/games", json!({"game": "chess"})).await, 400, "unknown_game"),
        (post(base, "/api/games", json!({"game": "coldwar", "options": {"size": "9"}})).await, 400, "bad_option"),
        (
            post(base, "/api/games", json!({"game": "coldwar", "time_control": "hourglass:5"})).await,
            400,
            "bad_time_control",
        ),
        (
            post(
                base,
                "/api/games",
                json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "ai", "level": "godlike"}]}),
            )
            .await,
            400,
            "unknown_level",
        ),
        (post(base, "/api/games", json!({"game": "coldwar", "seats": [{"kind": "me"}]})).await, 400, "bad_request"),
        (get(base, "/api/games/nosuchgame").await, 404, "not_found"),
        (post(base, "/api/games/nosuchgame/move", json!({"token": "t", "move": "b2"})).await, 404, "not_found"),
        (get(base, "/api/nothing/here").await, 404, "not_found"),
        (http(base, "DELETE", "/api/games", None).await, 405, "method_not_allowed"),
        (get(base, "/api/games?status=sleeping").await, 400, "bad_request"),
        // Numbers are read as everywhere else: digits only, no sign.
        (get(base, "/api/games?limit=%2B1").await, 400, "bad_request"),
        (get(base, "/api/games?limit=501").await, 400, "bad_request"),
        (get(base, "/api/games/nosuchgame/ws").await, 404, "not_found"),
        (
            http(base, "POST", "/api/games", Some(&format!("{{\"game\": \"{}\"}}", "x".repeat(100_000)))).await,
            413,
            "too_large",
        ),
    ];
    for (i, (reply, status, code)) in cases.iter().enumerate() {
        assert_eq!(reply.status, *status, "case {i}: {}", reply.body);
        assert_eq!(reply.code(), *code, "case {i}: {}", reply.body);
        assert!(!reply.json()["error"]["message"].as_str().unwrap().is_empty());
    }
    // The socket answers bad messages with errors and stays open; moves are rate-limited.
    let created = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    let mut ws = connect(base, id).await;
    recv_type(&mut ws, "state", 5).await;
    ws_send_raw(&mut ws, "not json").await;
    assert_eq!(recv_type(&mut ws, "error", 5).await["error"]["code"], "bad_json");
    send(&mut ws, json!({"v": 2, "type": "ping"})).await;
    assert_eq!(recv_type(&mut ws, "error", 5).await["error"]["code"], "bad_request");
    send(&mut ws, json!({"v": 1, "type": "dance"})).await;
    assert_eq!(recv_type(&mut ws, "error", 5).await["error"]["code"], "bad_request");
    send(&mut ws, json!({"v": 1, "type": "ping", "id": "p"})).await;
    assert_eq!(recv_type(&mut ws, "pong", 5).await["id"], "p");
    let mut codes = Vec::new();
    for _ in 0..60 {
        send(&mut ws, json!({"v": 1, "type": "move", "token": "wrong", "move": "b2"})).await;
    }
    for _ in 0..60 {
        codes.push(recv_type(&mut ws, "error", 5).await["error"]["code"].as_str().unwrap().to_string());
    }
    assert!(codes.iter().any(|c| c == "rate_limited"), "{codes:?}");
    assert!(codes.iter().any(|c| c == "bad_token"), "{codes:?}");
    server.running.shutdown().await.unwrap();
}

async fn ws_send_raw(ws: &mut Socket, text: &str) {
    use futures_util::SinkExt;
    ws.send(tokio_tungstenite::tungstenite::Message::Text(text.to_string().into())).await.unwrap();
}

/// A graceful restart: the game goes on and the downtime is not charged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_resumes_games_without_charging_the_downtime() {
    let server = start("restart").await;
    let db = server.db.clone();
    let base = server.base.clone();
    let created = create(
        &base,
        json!({"game": "coldwar", "time_control": "fischer:60+0", "seats": [{"kind": "me"}, {"kind": "me"}]}),
    )
    .await;
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let (x, o) = (created["tokens"]["x"].as_str().unwrap(), created["tokens"]["o"].as_str().unwrap());
    assert_eq!(post(&base, &format!("/api/games/{id}/move"), json!({"token": x, "move": "b2"})).await.status, 200);
    server.advance(2_000).await;
    let legal = get(&base, &format!("/api/games/{id}")).await.json()["state"]["legal_moves"][0].clone();
    assert_eq!(post(&base, &format!("/api/games/{id}/move"), json!({"token": o, "move": legal})).await.status, 200);
    server.advance(5_000).await; // x's clock runs from o's first move on
    let before = get(&base, &format!("/api/games/{id}")).await.json();
    assert_eq!(before["clock"]["remaining_ms"]["x"], 55_000);
    let time = server.time.clone();
    server.running.shutdown().await.unwrap();
    time.advance(3 * 3_600_000); // down for three hours
    let server = start_on(db, time).await;
    let base = server.base.clone();
    let after = get(&base, &format!("/api/games/{id}")).await.json();
    assert_eq!(after["moves"], before["moves"]);
    assert_eq!(after["status"], "live");
    assert_eq!(after["clock"]["remaining_ms"], before["clock"]["remaining_ms"], "downtime was charged");
    assert_eq!(after["clock"]["running"], "x");
    server.advance(1_000).await;
    let legal = get(&base, &format!("/api/games/{id}")).await.json()["state"]["legal_moves"][0].clone();
    let r = post(&base, &format!("/api/games/{id}/move"), json!({"token": x, "move": legal, "ply": 2})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["game"]["moves"][2]["clocks"]["x"], 54_000);
    let live = get(&base, "/api/games?status=live").await.json();
    assert!(live["games"].as_array().unwrap().iter().any(|g| g["id"] == id.as_str()));
    server.running.shutdown().await.unwrap();
}

/// The OpenAPI file is valid JSON, documents every route of the router,
/// and every documented path is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_documents_every_route() {
    let doc: Value = serde_json::from_str(tabula_server::OPENAPI).expect("openapi.json is valid JSON");
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    let paths = doc["paths"].as_object().unwrap();
    // Every route the router declares (read from its source) is documented with its methods.
    let source = include_str!("../src/http.rs");
    let mut routes = 0;
    for line in source.lines().map(str::trim).filter(|l| l.starts_with(".route(\"")) {
        let path = line.trim_start_matches(".route(\"").split('"').next().unwrap();
        let entry = paths.get(path).unwrap_or_else(|| panic!("route {path} is not in openapi.json"));
        for method in ["get", "post"] {
            if line.contains(&format!("{method}(")) {
                assert!(entry.get(method).is_some(), "{method} {path} is not in openapi.json");
            }
        }
        routes += 1;
    }
    assert!(routes >= 12, "found only {routes} routes");
    // Every documented path exists on a running server (no 'no API path' fallback).
    let server = start("openapi").await;
    let base = &server.base;
    let created = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    let served = get(base, "/api/openapi.json").await;
    assert_eq!(served.json(), doc);
    // The documented objects have exactly the fields the server sends.
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<std::collections::BTreeSet<String>>();
    let schema = |name: &str| keys(&doc["components"]["schemas"][name]["properties"]);
    assert_eq!(keys(&created["game"]), schema("Game"));
    let listed = get(base, "/api/games").await.json();
    assert_eq!(keys(&listed["games"][0]), schema("GameSummary"));
    let health_doc = &doc["paths"]["/api/health"]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
    // (`cluster` is there only on a node of a cluster.)
    let mut health = keys(&get(base, "/api/health").await.json());
    health.insert("cluster".to_string());
    assert_eq!(health, keys(&health_doc["properties"]));
    for (path, ops) in paths {
        for method in ops.as_object().unwrap().keys() {
            let real = path.replace("{id}", id);
            let r = http(base, &method.to_uppercase(), &real, Some("{}")).await;
            let fallback = r.status == 404 && r.body.contains("no API path");
            assert!(
                !fallback && r.status != 405,
                "{method} {path} is documented but not served: {} {}",
                r.status,
                r.body
            );
        }
    }
    // Every schema reference resolves.
    let text = tabula_server::OPENAPI;
    for part in text.split("\"$ref\": \"#/components/schemas/").skip(1) {
        let name = part.split('"').next().unwrap();
        assert!(doc["components"]["schemas"].get(name).is_some(), "missing schema {name}");
    }
    server.running.shutdown().await.unwrap();
}

/// The embedded front end: `/` and unknown page paths give index.html.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_the_embedded_front_end() {
    let server = start("web").await;
    let base = &server.base;
    let root = get(base, "/").await;
    assert_eq!(root.status, 200);
    assert!(root.headers.to_ascii_lowercase().contains("content-type: text/html"), "{}", root.headers);
    let spa = get(base, "/game/abc?invite=xyz").await;
    assert_eq!((spa.status, &spa.body), (200, &root.body), "unknown page paths fall back to index.html");
    let missing = get(base, "/js/no-such-file.js").await;
    assert_eq!(missing.status, 404);
    let escape = get(base, "/../Cargo.toml").await;
    assert!(!escape.body.contains("[workspace]"));
    server.running.shutdown().await.unwrap();
}

/// Cordots' options choose its clock (Blitz: a 45 s shot clock), whatever
/// the request's time control says; the lobby learns which options do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_options_can_fix_the_clock() {
    let server = start("clock-options").await;
    let base = &server.base;
    let meta = get(base, "/api/games/meta").await.json();
    let Some(cordots) = meta["games"].as_array().unwrap().iter().find(|g| g["id"] == "cordots").cloned() else {
        server.running.shutdown().await.unwrap();
        return; // Cordots is not registered in this build
    };
    assert_eq!(cordots["clock_from_options"], true);
    assert_eq!(cordots["clock_options"], json!(["mode"]));
    let created = create(
        base,
        json!({"game": "cordots", "options": {"mode": "blitz"}, "time_control": "fischer:60+0",
               "seats": [{"kind": "me"}, {"kind": "ai", "level": "random"}]}),
    )
    .await;
    let game = &created["game"];
    assert_eq!(game["time_control"], json!({"kind": "shot_clock", "per_move_ms": 45000}));
    // Untimed Cordots stays untimed: no Fischer clock over its 300-ply cap.
    let untimed = create(
        base,
        json!({"game": "cordots", "options": {"mode": "untimed"}, "time_control": "fischer:60+0",
               "seats": [{"kind": "me"}, {"kind": "ai", "level": "random"}]}),
    )
    .await;
    assert_eq!(untimed["game"]["time_control"], json!({"kind": "none"}), "{untimed}");
    // No clock before the first moves; the first-move time is the shot clock's, as it is longer.
    assert!(game["clock"]["running"].is_null());
    assert_eq!(game["first_move_deadline_ms"], T0 + 45_000);
    // The AI answers under the clock; the shot clock is full again for white.
    let id = game["id"].as_str().unwrap();
    let token = created["tokens"]["white"].as_str().unwrap();
    let mv = game["state"]["legal_moves"][0].as_str().unwrap();
    let r = post(base, &format!("/api/games/{id}/move"), json!({"token": token, "move": mv, "ply": 0})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let mut ws = connect(base, id).await;
    let after = loop {
        let m = recv_type(&mut ws, "state", 10).await;
        if m["game"]["state"]["plies"] == 2 || !m["game"]["result"].is_null() {
            break m["game"].clone();
        }
    };
    assert_eq!(after["moves"].as_array().unwrap().len(), 2, "{after}");
    assert_eq!(after["clock"]["remaining_ms"]["white"], 45_000);
    assert_eq!(after["clock"]["running"], "white");
    assert_eq!(after["clock"]["deadline_ms"], after["server_time_ms"].as_u64().unwrap() + 45_000);
    server.running.shutdown().await.unwrap();
}

/// Two AI seats play a game out by themselves, for spectators.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ai_against_ai_plays_itself_out() {
    let server = start("ai-ai").await;
    let base = &server.base;
    let created = create(
        base,
        json!({"game": "coldwar", "seats": [{"kind": "ai", "level": "random"}, {"kind": "ai", "level": "easy"}]}),
    )
    .await;
    assert_eq!(created["tokens"], json!({}));
    let id = created["game"]["id"].as_str().unwrap();
    let mut ws = connect(base, id).await;
    let finished = loop {
        let m = recv_type(&mut ws, "state", 60).await;
        if !m["game"]["result"].is_null() {
            break m["game"].clone();
        }
    };
    assert_eq!(finished["status"], "finished");
    assert!(!finished["moves"].as_array().unwrap().is_empty());
    server.running.shutdown().await.unwrap();
}
