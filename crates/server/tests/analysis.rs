//! `POST /api/analysis` over a real socket: Cold War's exact values agree
//! move by move with the positions they lead to, bad requests say what is
//! wrong (and which move), and every game's engine answers within the cap.

mod common;

use common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Analyses until the engine is ready (Cold War reads or solves its table
/// once per process and answers `retry` meanwhile).
async fn analyse(base: &str, body: Value) -> Value {
    let until = Instant::now() + Duration::from_secs(300);
    loop {
        let r = post(base, "/api/analysis", body.clone()).await;
        assert_eq!(r.status, 200, "{body}: {}", r.body);
        let answer = r.json();
        if answer["analysis"]["retry"] != true {
            return answer;
        }
        assert!(Instant::now() < until, "the engine never got ready");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The side to move's result from the first player's `solved` result.
fn for_mover(first_player_result: &Value, mover_is_first: bool) -> String {
    let r = first_player_result.as_str().unwrap().to_string();
    if mover_is_first {
        return r;
    }
    match r.as_str() {
        "win" => "loss".into(),
        "loss" => "win".into(),
        other => other.into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_cold_war_move_is_solved_and_agrees_with_the_position_it_leads_to() {
    let server = start("analysis-coldwar").await;
    let base = &server.base;
    let mut moves: Vec<String> = Vec::new();
    let mut rng = Lcg(7);
    for _ in 0..6 {
        let here = analyse(base, json!({"game": "coldwar", "moves": moves})).await;
        let a = &here["analysis"];
        if here["state"]["status"] == "over" {
            assert!(a["over"].is_object() && a["best_move"].is_null(), "a finished position: {a}");
            break;
        }
        let legal: Vec<String> = serde_json::from_value(here["state"]["legal_moves"].clone()).unwrap();
        let valued: Vec<String> =
            a["moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap().into()).collect();
        let (mut l, mut v) = (legal.clone(), valued.clone());
        l.sort();
        v.sort();
        assert_eq!(l, v, "one exact value per legal move");
        assert_eq!(a["evaluation"]["unit"], "solved");
        let mover_is_first = here["state"]["to_move"] == here["players"][0];
        // The best move's value is the position's value.
        let best =
            a["moves"].as_array().unwrap().iter().find(|m| m["move"] == a["best_move"]).expect("best move listed");
        assert_eq!(
            best["solved"]["result"].as_str().unwrap(),
            for_mover(&a["evaluation"]["solved"]["result"], mover_is_first),
            "best move {best} against {a}"
        );
        // Each of a few moves is worth what the position after it is worth.
        for m in a["moves"].as_array().unwrap().iter().take(4) {
            let mut line = moves.clone();
            line.push(m["move"].as_str().unwrap().into());
            let after = analyse(base, json!({"game": "coldwar", "moves": line})).await;
            let e = &after["analysis"]["evaluation"]["solved"];
            assert_eq!(
                m["solved"]["result"].as_str().unwrap(),
                for_mover(&e["result"], mover_is_first),
                "{m} leads to {e}"
            );
            let plies = m["solved"]["plies"].as_u64().unwrap();
            if m["solved"]["result"] != "draw" {
                assert_eq!(plies, e["plies"].as_u64().unwrap() + 1, "{m}: one ply more than after it ({e})");
            }
        }
        moves.push(legal[rng.below(legal.len())].clone());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_say_what_is_wrong() {
    let server = start("analysis-errors").await;
    let base = &server.base;
    let cases = [
        (json!({"game": "chess"}), 400, "unknown_game"),
        (json!({"game": "dots", "options": {"width": 2}}), 400, "bad_option"),
        (json!({"game": "cumisitha", "position": "not a position"}), 400, "bad_position"),
        (json!({"game": "cumisitha", "moves": "e4 e5 Qh9"}), 422, "malformed_move"),
        (json!({"game": "cumisitha", "moves": ["e2e4", "e7e5", "e4e5"]}), 422, "illegal_move"),
        (json!({"game": "coldwar", "moves": [1, 2]}), 400, "bad_request"),
        (json!({"game": "coldwar", "budget_ms": "soon"}), 400, "bad_json"),
        (json!({"game": "coldwar", "depth": 3}), 400, "bad_json"),
    ];
    for (body, status, code) in cases {
        let r = post(base, "/api/analysis", body.clone()).await;
        assert_eq!((r.status, r.code().as_str()), (status, code), "{body}: {}", r.body);
        assert!(!r.json()["error"]["message"].as_str().unwrap().is_empty());
    }
    let r = post(base, "/api/analysis", json!({"game": "cumisitha", "moves": "e4 e5 Qh9"})).await;
    assert_eq!(r.json()["error"]["ply"], 3, "the refused move's number: {}", r.body);
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("Qh9"), "{}", r.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_answers_within_the_cap_with_its_own_kind_of_analysis() {
    let server = start_with("analysis-games", |c| c.analysis.max_ms = 300).await;
    let base = &server.base;
    let cases = [
        ("coldwar", json!({}), "b2", "solved"),
        ("cordots", json!({}), "a2-a3", "centipieces"),
        ("cumisitha", json!({}), "e4", "centipawns"),
        ("dots", json!({"width": 12, "height": 12}), "", "win_probability"),
    ];
    for (game, options, first, unit) in cases {
        let moves: Vec<&str> = if first.is_empty() { vec![] } else { vec![first] };
        let started = Instant::now();
        let here = analyse(base, json!({"game": game, "options": options, "moves": moves, "budget_ms": 60_000})).await;
        if game != "coldwar" {
            // Cold War's first answer may wait for its table; the others
            // think for the capped budget, not the minute asked for.
            assert!(started.elapsed() < Duration::from_secs(5), "{game} took {:?}", started.elapsed());
        }
        let a = &here["analysis"];
        assert_eq!(a["game"], game);
        assert_eq!(a["evaluation"]["unit"], unit, "{game}: {a}");
        let expected = a["evaluation"]["expected"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&expected), "{game}: {a}");
        let best = a["best_move"].as_str().expect("a best move");
        assert!(here["state"]["legal_moves"].as_array().unwrap().iter().any(|m| m == best), "{game}: {best}");
        assert!(!a["pv"].as_array().unwrap().is_empty(), "{game}: a line");
        assert!(here["view"].is_object(), "{game}: a board to draw");
        if game == "dots" {
            let t = &a["territory"];
            assert_eq!(t["owner"].as_array().unwrap().len(), 144, "{game}: one value per point: {t}");
        }
    }
}
