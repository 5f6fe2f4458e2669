//! The room's actions over real HTTP and WebSocket: abort, draws and their
//! refusal, rematches, and the errors a client gets.

mod common;

use common::*;
use serde_json::{json, Value};

async fn game(base: &str, id: &str) -> Value {
    get(base, &format!("/api/games/{id}")).await.json()
}

async fn first_legal(base: &str, id: &str) -> Value {
    game(base, id).await["state"]["legal_moves"][0].clone()
}

/// Either side may abort before its own first move; the creator may abort
/// a game nobody joined; after one's own move, abort is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_before_the_first_move_only() {
    let server = start("abort").await;
    let base = &server.base;
    // A waiting game: the creator cancels it.
    let created = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "open"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    let x = created["tokens"]["x"].as_str().unwrap();
    let r = post(base, &format!("/api/games/{id}/abort"), json!({"token": x})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let g = &r.json()["game"];
    assert_eq!(g["status"], "aborted");
    assert_eq!(g["result"], json!({"winner": null, "reason": "x aborted the game"}));
    assert_eq!(g["state"]["status"], "over");
    let invite = created["invites"][0]["code"].as_str().unwrap();
    let late = post(base, &format!("/api/games/{id}/join"), json!({"invite": invite})).await;
    assert_eq!((late.status, late.code().as_str()), (409, "game_over"));
    let listed = get(base, "/api/games?status=aborted").await.json();
    assert!(listed["games"].as_array().unwrap().iter().any(|s| s["id"] == id));

    // A live game: x moved, so x may not abort; o has not, so o may (over the WebSocket).
    let created = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    let (x, o) = (created["tokens"]["x"].as_str().unwrap(), created["tokens"]["o"].as_str().unwrap());
    assert_eq!(post(base, &format!("/api/games/{id}/move"), json!({"token": x, "move": "b2"})).await.status, 200);
    let r = post(base, &format!("/api/games/{id}/abort"), json!({"token": x})).await;
    assert_eq!((r.status, r.code().as_str()), (409, "cannot_abort"));
    let mut ws = connect(base, id).await;
    recv_type(&mut ws, "state", 5).await;
    send(&mut ws, json!({"v": 1, "type": "abort", "token": o, "id": "a"})).await;
    let ack = recv_type(&mut ws, "ack", 5).await;
    assert_eq!(ack["id"], "a");
    let g = game(base, id).await;
    assert_eq!((g["status"].as_str(), g["result"]["reason"].as_str()), (Some("aborted"), Some("o aborted the game")));
    server.running.shutdown().await.unwrap();
}

/// Whoever offers a draw learns it was declined: an event on the socket
/// and `draw_declined` in the game, whether the opponent refused, moved
/// instead, or is an AI.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_draw_is_told_to_the_offerer() {
    let server = start("draw-declined").await;
    let base = &server.base;
    let created = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    let (x, o) = (created["tokens"]["x"].as_str().unwrap(), created["tokens"]["o"].as_str().unwrap());
    let mut ws = connect(base, id).await;
    recv_type(&mut ws, "state", 5).await;
    let r = post(base, &format!("/api/games/{id}/draw"), json!({"token": x, "action": "offer"})).await;
    assert_eq!(r.json()["game"]["draw_offer"], "x");
    let r = post(base, &format!("/api/games/{id}/draw"), json!({"token": o, "action": "decline"})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["game"]["draw_declined"], json!({"by": "o", "ply": 0}));
    assert_eq!(r.json()["game"]["draw_offer"], Value::Null);
    let event = recv_type(&mut ws, "draw_declined", 5).await;
    assert_eq!((event["by"].as_str(), event["ply"].as_u64()), (Some("o"), Some(0)));
    // The next move clears it; an offer answered by a move is declined too.
    assert_eq!(post(base, &format!("/api/games/{id}/move"), json!({"token": x, "move": "b2"})).await.status, 200);
    assert_eq!(game(base, id).await["draw_declined"], Value::Null);
    post(base, &format!("/api/games/{id}/draw"), json!({"token": x, "action": "offer"})).await;
    let mv = first_legal(base, id).await;
    let r = post(base, &format!("/api/games/{id}/move"), json!({"token": o, "move": mv})).await;
    assert_eq!(r.json()["game"]["draw_declined"], json!({"by": "o", "ply": 1}));
    assert_eq!(recv_type(&mut ws, "draw_declined", 5).await["ply"], 1);

    // An AI seat declines at once.
    let created =
        create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "ai", "level": "random"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    let x = created["tokens"]["x"].as_str().unwrap();
    let r = post(base, &format!("/api/games/{id}/draw"), json!({"token": x, "action": "offer"})).await;
    assert_eq!(r.json()["game"]["draw_declined"], json!({"by": "o", "ply": 0}));
    assert_eq!(r.json()["game"]["draw_offer"], Value::Null);
    server.running.shutdown().await.unwrap();
}

/// The rematch of an invite game keeps each person's name with the person
/// (the white seat is never called "black"), and a seat nobody joined gets
/// a fresh invite.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rematches_keep_names_and_renew_invites() {
    let server = start("rematch").await;
    let base = &server.base;
    // An invite game where nobody gave a name.
    let created = create(base, json!({"game": "cumisitha", "seats": [{"kind": "me"}, {"kind": "open"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    let white = created["tokens"]["white"].as_str().unwrap();
    let code = created["invites"][0]["code"].as_str().unwrap();
    let joined = post(base, &format!("/api/games/{id}/join"), json!({"invite": code})).await.json();
    let black = joined["token"].as_str().unwrap();
    assert_eq!(joined["game"]["seats"][1]["name"], "black");
    post(base, &format!("/api/games/{id}/resign"), json!({"token": white})).await;
    let r = post(base, &format!("/api/games/{id}/rematch"), json!({"token": black})).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let answer = r.json();
    assert_eq!(answer["tokens"], json!({"white": black}), "the asker plays the other colour with its token");
    let seats = &answer["game"]["seats"];
    assert_eq!((seats[0]["name"].as_str(), seats[1]["name"].as_str()), (Some("white"), Some("black")));
    let new_id = answer["game"]["id"].as_str().unwrap();
    assert_eq!(answer["game"]["rematch_of"], id);
    assert_eq!(answer["invites"], json!([]));
    // Chosen names follow the people.
    let created = create(
        base,
        json!({"game": "cumisitha", "seats": [{"kind": "me", "name": "ann"}, {"kind": "me", "name": "bob"}]}),
    )
    .await;
    let id2 = created["game"]["id"].as_str().unwrap();
    let ann = created["tokens"]["white"].as_str().unwrap();
    post(base, &format!("/api/games/{id2}/resign"), json!({"token": ann})).await;
    let r = post(base, &format!("/api/games/{id2}/rematch"), json!({"token": ann})).await.json();
    assert_eq!(r["game"]["seats"][0]["name"], "bob");
    assert_eq!(r["game"]["seats"][1]["name"], "ann");
    assert_eq!(r["tokens"], json!({"black": ann}));
    // The first rematch goes on with the tokens swapped.
    let mv = first_legal(base, new_id).await;
    let r = post(base, &format!("/api/games/{new_id}/move"), json!({"token": black, "move": mv})).await;
    assert_eq!(r.status, 200, "{}", r.body);

    // A game nobody joined, resigned by its creator: the rematch invites afresh.
    let created = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "open"}]})).await;
    let id3 = created["game"]["id"].as_str().unwrap();
    let x = created["tokens"]["x"].as_str().unwrap();
    let old_code = created["invites"][0]["code"].as_str().unwrap();
    post(base, &format!("/api/games/{id3}/resign"), json!({"token": x})).await;
    let r = post(base, &format!("/api/games/{id3}/rematch"), json!({"token": x})).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let answer = r.json();
    let invite = &answer["invites"][0];
    assert_eq!(invite["player"], "x");
    let code = invite["code"].as_str().unwrap();
    assert_ne!(code, old_code, "the rematch needs a fresh invite");
    let rid = answer["game"]["id"].as_str().unwrap();
    assert_eq!(invite["url"].as_str().unwrap(), format!("/game/{rid}?invite={code}"));
    assert_eq!(answer["game"]["status"], "waiting");
    let joined = post(base, &format!("/api/games/{rid}/join"), json!({"invite": code, "name": "zoe"})).await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    assert_eq!(joined.json()["player"], "x");
    // Asking again gives the same rematch.
    let again = post(base, &format!("/api/games/{id3}/rematch"), json!({"token": x})).await.json();
    assert_eq!(again["game"]["id"], rid);
    server.running.shutdown().await.unwrap();
}

/// A missing token is `bad_token` (403) like a wrong one; every path and
/// query error is JSON; queries are percent-decoded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_paths_and_queries() {
    let server = start("tokens").await;
    let base = &server.base;
    let created = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    for (path, body) in [
        ("move", json!({"move": "b2"})),
        ("resign", json!({})),
        ("draw", json!({"action": "offer"})),
        ("abort", json!({})),
        ("rematch", json!({})),
        ("move", json!({"token": "", "move": "b2"})),
    ] {
        let r = post(base, &format!("/api/games/{id}/{path}"), body).await;
        assert_eq!((r.status, r.code().as_str()), (403, "bad_token"), "{path}: {}", r.body);
    }
    let mut ws = connect(base, id).await;
    recv_type(&mut ws, "state", 5).await;
    send(&mut ws, json!({"v": 1, "type": "resign"})).await;
    assert_eq!(recv_type(&mut ws, "error", 5).await["error"]["code"], "bad_token");

    let bad_utf8 = get(base, "/api/games/%FF%FE").await;
    assert_eq!((bad_utf8.status, bad_utf8.code().as_str()), (400, "bad_request"), "{}", bad_utf8.body);
    let bad_utf8 = get(base, "/api/games/abc/positions/%C3%28").await;
    assert_eq!(bad_utf8.status, 400, "{}", bad_utf8.body);
    assert_eq!(bad_utf8.code(), "bad_request");
    let decoded = get(base, "/api/games?status=l%69ve&game=c%6Fldwar").await;
    assert_eq!(decoded.status, 200, "{}", decoded.body);
    assert!(decoded.json()["games"].as_array().unwrap().iter().any(|g| g["id"] == id));
    let unknown = get(base, "/api/games?colour=red").await;
    assert_eq!((unknown.status, unknown.code().as_str()), (400, "bad_request"), "{}", unknown.body);
    let missing = get(base, "/js/no-such-file.js").await;
    assert_eq!((missing.status, missing.code().as_str()), (404, "not_found"));
    server.running.shutdown().await.unwrap();
}

/// Each move carries the notation people read (SAN in Cumisitha), worked
/// out on the position before it and stored with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_carry_their_display_notation() {
    let server = start("display").await;
    let base = &server.base;
    let created = create(base, json!({"game": "cumisitha", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    let (white, black) = (created["tokens"]["white"].as_str().unwrap(), created["tokens"]["black"].as_str().unwrap());
    for (token, mv) in [(white, "e2e4"), (black, "g8f6")] {
        let r = post(base, &format!("/api/games/{id}/move"), json!({"token": token, "move": mv})).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let g = game(base, id).await;
    let shown: Vec<&str> = g["moves"].as_array().unwrap().iter().map(|m| m["display"].as_str().unwrap()).collect();
    assert_eq!(shown, ["e4", "Nf6"]);
    let stored = sql::texts(&server.db, &format!("SELECT display FROM moves WHERE game_id = '{id}' AND ply = 2"));
    assert_eq!(stored, ["Nf6"]);
    // Games without a separate notation show the move itself.
    let created = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    let x = created["tokens"]["x"].as_str().unwrap();
    let r = post(base, &format!("/api/games/{id}/move"), json!({"token": x, "move": "b2"})).await.json();
    assert_eq!(r["game"]["moves"][0]["display"], r["game"]["moves"][0]["move"]);
    server.running.shutdown().await.unwrap();
}
