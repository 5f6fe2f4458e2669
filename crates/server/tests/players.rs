//! Players over real sockets: lobby seeks joined without an invite, rated
//! games and their ratings (committed with the result, or not at all),
//! profiles, leaderboards, presence and claims, and the migration of a
//! database from before accounts.

mod common;

use common::*;
use serde_json::{json, Value};
use std::process::Command as Process;

/// A rated Cold War seek by `a`, joined by `b` from the lobby; returns the id.
async fn rated_game(a: &Browser, b: &Browser, tc: &str) -> String {
    let r = a
        .post(
            "/api/games",
            json!({"game": "coldwar", "rated": true, "public": true, "time_control": tc,
                   "seats": [{"kind": "me"}, {"kind": "open"}]}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["game"]["id"].as_str().unwrap().to_string();
    assert_eq!(r.json()["game"]["rated"], true);
    let seeks = b.get("/api/seeks").await.json();
    let seek = seeks["seeks"].as_array().unwrap().iter().find(|s| s["id"] == id.as_str()).expect("listed").clone();
    assert_eq!(seek["eligible"], true);
    assert_eq!(seek["creator"]["user"], a_name(a).await.as_str());
    let joined = b.post(&format!("/api/games/{id}/join"), json!({})).await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    assert_eq!(joined.json()["game"]["status"], "live");
    id
}

async fn a_name(b: &Browser) -> String {
    b.get("/api/account").await.json()["user"]["username"].as_str().unwrap().to_string()
}

async fn play_first_move(b: &Browser, id: &str) {
    let game = b.get(&format!("/api/games/{id}")).await.json();
    let mv = game["state"]["legal_moves"][0].clone();
    let r = b.post(&format!("/api/games/{id}/move"), json!({"move": mv, "ply": game["state"]["plies"]})).await;
    assert_eq!(r.status, 200, "{}", r.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_seek_is_joined_from_the_lobby_and_rates_both_players() {
    let server = start("players-rated").await;
    let base = &server.base;
    let ann = signup(base, "Ann").await;
    let bob = signup(base, "Bob").await;
    // A guest sees the seek but may not join a rated game.
    let id = {
        let r = ann
            .post(
                "/api/games",
                json!({"game": "coldwar", "rated": true, "public": true, "time_control": "fischer:180+2",
                       "seats": [{"kind": "me"}, {"kind": "open"}]}),
            )
            .await;
        r.json()["game"]["id"].as_str().unwrap().to_string()
    };
    let guest_view = get(base, "/api/seeks").await.json();
    assert_eq!(guest_view["seeks"][0]["eligible"], false);
    assert_eq!(guest_view["seeks"][0]["category"], "blitz");
    let r = post(base, &format!("/api/games/{id}/join"), json!({})).await;
    assert_eq!((r.status, r.code().as_str()), (401, "not_logged_in"));
    let r = ann.post(&format!("/api/games/{id}/join"), json!({})).await;
    assert_eq!(r.code(), "own_game");
    assert_eq!(ann.get("/api/seeks").await.json()["seeks"][0]["eligible"], false);
    let joined = bob.post(&format!("/api/games/{id}/join"), json!({})).await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let game = joined.json()["game"].clone();
    assert_eq!(game["seats"][0]["rating"], 1500);
    assert_eq!(game["seats"][1]["provisional"], true);
    assert!(get(base, "/api/seeks").await.json()["seeks"].as_array().unwrap().is_empty(), "a taken seek leaves");
    // Ann (x) moves, Bob (o) moves, Ann resigns: Bob wins.
    play_first_move(&ann, &id).await;
    play_first_move(&bob, &id).await;
    let end = ann.post(&format!("/api/games/{id}/resign"), json!({})).await.json()["game"].clone();
    assert_eq!(end["status"], "finished");
    let changes = &end["rating_changes"];
    assert_eq!(changes["x"]["before"], 1500);
    assert!(changes["x"]["diff"].as_i64().unwrap() < 0, "{changes}");
    assert!(changes["o"]["diff"].as_i64().unwrap() > 0, "{changes}");
    assert_eq!(changes["o"]["user"], "Bob");
    let bob_after = changes["o"]["after"].as_i64().unwrap();
    // Profiles: the rating, its history point and the result counts.
    let profile = get(base, "/api/users/bob").await.json();
    assert_eq!(profile["user"]["username"], "Bob");
    let rating = &profile["ratings"][0];
    assert_eq!((rating["game"].as_str(), rating["category"].as_str()), (Some("coldwar"), Some("blitz")));
    assert_eq!(rating["rating"].as_i64().unwrap(), bob_after);
    assert_eq!(rating["provisional"], true);
    assert_eq!(profile["counts"], json!({"games": 1, "wins": 1, "losses": 0, "draws": 0, "aborted": 0}));
    let history = get(base, "/api/users/Bob/history?game=coldwar&category=blitz").await.json();
    assert_eq!(history["points"].as_array().unwrap().len(), 1);
    assert_eq!(history["points"][0]["game_id"], id.as_str());
    let wins = get(base, "/api/users/Bob/games?result=win").await.json();
    assert_eq!(wins["games"][0]["id"], id.as_str());
    assert_eq!(wins["games"][0]["my_player"], "o");
    assert!(get(base, "/api/users/Bob/games?result=loss").await.json()["games"].as_array().unwrap().is_empty());
    assert_eq!(get(base, "/api/users/Ann/games?result=loss&game=coldwar").await.json()["games"][0]["id"], id.as_str());
    assert_eq!(get(base, "/api/users/Ann/games?result=nonsense").await.code(), "bad_request");
    // Provisional ratings stay off the leaderboard.
    let board = get(base, "/api/leaderboard?game=coldwar&category=blitz").await.json();
    assert!(board["players"].as_array().unwrap().is_empty(), "{board}");
    // The final state is also what a reload shows (stored with the result).
    let again = get(base, &format!("/api/games/{id}")).await.json();
    assert_eq!(again["rating_changes"], end["rating_changes"]);
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aborting_a_rated_game_before_the_first_move_changes_nothing() {
    let server = start("players-abort").await;
    let base = &server.base;
    let cy = signup(base, "Cy").await;
    let di = signup(base, "Di").await;
    let id = rated_game(&cy, &di, "fischer:600+0").await;
    play_first_move(&cy, &id).await;
    // Cy has moved and may no longer abort; Di has not and may.
    assert_eq!(cy.post(&format!("/api/games/{id}/abort"), json!({})).await.code(), "cannot_abort");
    let end = di.post(&format!("/api/games/{id}/abort"), json!({})).await.json()["game"].clone();
    assert_eq!(end["status"], "aborted");
    assert_eq!(end["rating_changes"], Value::Null);
    for name in ["Cy", "Di"] {
        let p = get(base, &format!("/api/users/{name}")).await.json();
        assert!(p["ratings"].as_array().unwrap().is_empty(), "{p}");
        assert_eq!(p["counts"]["aborted"], 1);
    }
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rating_ranges_decide_who_may_join() {
    let server = start("players-range").await;
    let base = &server.base;
    let ed = signup(base, "Ed").await;
    let flo = signup(base, "Flo").await;
    let r = ed
        .post(
            "/api/games",
            json!({"game": "dots", "rated": true, "public": true, "rating_range": [1600, 1800],
                   "seats": [{"kind": "open"}, {"kind": "me"}]}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["game"]["id"].as_str().unwrap().to_string();
    assert_eq!(flo.get("/api/seeks").await.json()["seeks"][0]["eligible"], false);
    let refused = flo.post(&format!("/api/games/{id}/join"), json!({})).await;
    assert_eq!((refused.status, refused.code().as_str()), (403, "out_of_range"), "{}", refused.body);
    // Casual games take no range, rated ones need an open seat and an account.
    let r = ed.post("/api/games", json!({"game": "dots", "rating_range": [1, 2]})).await;
    assert_eq!(r.code(), "bad_request");
    let r = ed.post("/api/games", json!({"game": "dots", "rated": true})).await;
    assert_eq!(r.code(), "bad_request");
    let r =
        post(base, "/api/games", json!({"game": "dots", "rated": true, "seats": [{"kind": "me"}, {"kind": "open"}]}))
            .await;
    assert_eq!(r.code(), "not_logged_in");
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guests_join_public_casual_games_and_invite_games_stay_private() {
    let server = start("players-guests").await;
    let base = &server.base;
    let public =
        create(base, json!({"game": "coldwar", "public": true, "seats": [{"kind": "me"}, {"kind": "open"}]})).await;
    let private = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "open"}]})).await;
    let seeks = get(base, "/api/seeks").await.json();
    let listed: Vec<&str> = seeks["seeks"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(listed, [public["game"]["id"].as_str().unwrap()]);
    let pid = public["game"]["id"].as_str().unwrap();
    let j = post(base, &format!("/api/games/{pid}/join"), json!({"name": "Stranger"})).await;
    assert_eq!(j.status, 200, "{}", j.body);
    assert_eq!(j.json()["game"]["seats"][1]["name"], "Stranger");
    assert_eq!(j.json()["game"]["seats"][1]["user"], Value::Null);
    // A logged-in joiner of a casual game shows no rating (nothing is at stake).
    let pam = signup(base, "Pam").await;
    let casual = pam
        .post("/api/games", json!({"game": "dots", "public": true, "seats": [{"kind": "me"}, {"kind": "open"}]}))
        .await;
    let cid = casual.json()["game"]["id"].as_str().unwrap().to_string();
    let quin = signup(base, "Quin").await;
    let j = quin.post(&format!("/api/games/{cid}/join"), json!({})).await.json();
    assert_eq!(j["game"]["seats"][1]["user"], "Quin");
    assert_eq!((&j["game"]["seats"][0]["rating"], &j["game"]["seats"][1]["rating"]), (&Value::Null, &Value::Null));
    let qid = private["game"]["id"].as_str().unwrap();
    let r = post(base, &format!("/api/games/{qid}/join"), json!({})).await;
    assert_eq!(r.code(), "bad_invite", "an invite-only game needs its invite");
    let code = private["invites"][0]["code"].as_str().unwrap();
    assert_eq!(post(base, &format!("/api/games/{qid}/join"), json!({"invite": code})).await.status, 200);
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seek_leaves_the_lobby_when_its_creator_leaves() {
    let server = start("players-seek-leave").await;
    let base = &server.base;
    let gil = signup(base, "Gil").await;
    let r = gil
        .post("/api/games", json!({"game": "coldwar", "public": true, "seats": [{"kind": "me"}, {"kind": "open"}]}))
        .await;
    let id = r.json()["game"]["id"].as_str().unwrap().to_string();
    let mut ws = gil.connect(&id).await;
    let state = recv_type(&mut ws, "state", 5).await;
    assert_eq!(state["game"]["seats"][0]["online"], true);
    // While the creator stays, the seek stays.
    server.advance(120_000).await;
    assert_eq!(get(base, "/api/seeks").await.json()["seeks"].as_array().unwrap().len(), 1);
    drop(ws);
    // The server notices the close (in real time); from then on the
    // creator counts as gone.
    let offline = async || get(base, &format!("/api/games/{id}")).await.json()["seats"][0]["online"] == false;
    poll_until("the server notices the creator leave", std::time::Duration::from_secs(10), offline).await;
    server.advance(30_000).await;
    assert_eq!(get(base, "/api/seeks").await.json()["seeks"].as_array().unwrap().len(), 1, "not yet");
    server.advance(40_000).await;
    server.advance(11_000).await;
    // The sweep that removes it writes to the database, which on a busy
    // PostgreSQL can take longer than one settle: wait for it (in real
    // time), as for the close above.
    let swept = async || get(base, "/api/seeks").await.json()["seeks"].as_array().unwrap().is_empty();
    poll_until("the seek leaves with its creator", std::time::Duration::from_secs(10), swept).await;
    let game = get(base, &format!("/api/games/{id}")).await.json();
    assert_eq!(game["status"], "aborted");
    assert_eq!(game["result"]["reason"], "aborted: the creator left");
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presence_and_claiming_the_win_when_the_opponent_left() {
    let server = start("players-claim").await;
    let base = &server.base;
    let hu = signup(base, "Hu").await;
    let ida = signup(base, "Ida").await;
    let id = rated_game(&hu, &ida, "fischer:600+5").await;
    let mut hu_ws = hu.connect(&id).await;
    let mut ida_ws = ida.connect(&id).await;
    let s = recv_type(&mut hu_ws, "state", 5).await;
    // The state a socket gets on connect may predate the other's arrival:
    // wait for the state where both are present.
    let mut presence = s["game"]["presence"].clone();
    while presence != json!({"x": true, "o": true}) {
        presence = recv_type(&mut hu_ws, "state", 5).await["game"]["presence"].clone();
    }
    play_first_move(&hu, &id).await;
    play_first_move(&ida, &id).await;
    // Hu is on move; Ida leaves.
    drop(ida_ws);
    let mut gone = recv_type(&mut hu_ws, "state", 5).await;
    while gone["game"]["presence"]["o"] != false {
        gone = recv_type(&mut hu_ws, "state", 5).await;
    }
    let at = gone["game"]["claim_available_at_ms"].as_u64().expect("a claim time");
    assert_eq!(at, gone["game"]["server_time_ms"].as_u64().unwrap() + 30_000);
    let early = hu.post(&format!("/api/games/{id}/claim"), json!({"result": "win"})).await;
    assert_eq!((early.status, early.code().as_str()), (409, "cannot_claim"), "{}", early.body);
    server.advance(30_000).await;
    // Ida may not claim (not on move, and Hu is here).
    let r = ida.post(&format!("/api/games/{id}/claim"), json!({"result": "win"})).await;
    assert_eq!(r.code(), "cannot_claim");
    send(&mut hu_ws, json!({"v": 1, "type": "claim", "result": "win", "id": 9})).await;
    let ack = recv_type(&mut hu_ws, "ack", 5).await;
    assert_eq!(ack["id"], 9);
    let end = get(base, &format!("/api/games/{id}")).await.json();
    assert_eq!(end["result"], json!({"winner": "x", "reason": "Ida left the game"}));
    assert!(end["rating_changes"]["x"]["diff"].as_i64().unwrap() > 0);
    server.running.shutdown().await.unwrap();
    ida_ws = hu_ws; // both sockets end with the server
    drop(ida_ws);
}

/// The child half of the crash test: play a rated game to its result with
/// the crash point armed; the server dies writing it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by rated_result_and_ratings_commit_together in a child process"]
async fn crash_child() {
    let Ok(db) = std::env::var("TABULA_CRASH_DB") else { return };
    let time = tabula_server::time::ManualTime::new(T0);
    let server = start_on(db.into(), time).await;
    let base = &server.base;
    let jan = signup(base, "Jan").await;
    let kai = signup(base, "Kai").await;
    let id = rated_game(&jan, &kai, "fischer:300+0").await;
    println!("GAME {id}");
    play_first_move(&jan, &id).await;
    play_first_move(&kai, &id).await;
    tabula_server::store::arm_crash_before_ratings();
    // The process aborts inside the transaction of this resignation.
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        jan.post(&format!("/api/games/{id}/resign"), json!({})),
    )
    .await;
    panic!("the server should have died writing the ratings");
}

/// Kill the server between a rated result and its ratings: after a restart
/// neither is there (the game is still live, nobody is rated), and the game
/// can still end and be rated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_result_and_ratings_commit_together() {
    let db = temp_db("players-crash");
    let out = Process::new(std::env::current_exe().unwrap())
        .args(["--exact", "crash_child", "--include-ignored", "--nocapture", "--test-threads=1"])
        .env("TABULA_CRASH_DB", &db)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "the child must die: {stdout}");
    let id = stdout
        .lines()
        .find_map(|l| l.split("GAME ").nth(1))
        .unwrap_or_else(|| panic!("the child made no game: {stdout} {}", String::from_utf8_lossy(&out.stderr)))
        .trim()
        .to_string();
    let server = start_on(db.clone(), tabula_server::time::ManualTime::new(T0 + 60_000)).await;
    let base = &server.base;
    let game = get(base, &format!("/api/games/{id}")).await.json();
    assert_eq!(game["status"], "live", "the result was not stored: {}", game["result"]);
    assert_eq!(game["rating_changes"], Value::Null);
    for name in ["Jan", "Kai"] {
        let p = get(base, &format!("/api/users/{name}")).await.json();
        assert!(p["ratings"].as_array().unwrap().is_empty(), "no rating without the result: {p}");
    }
    // Both: the game ends again, this time with its ratings.
    let login = post(base, "/api/account/login", json!({"username": "Jan", "password": "Jan-secret-pw"})).await;
    let jan = Browser { base: base.clone(), cookie: login.session_cookie().unwrap() };
    let end = jan.post(&format!("/api/games/{id}/resign"), json!({})).await.json()["game"].clone();
    assert_eq!(end["status"], "finished");
    assert!(end["rating_changes"]["o"]["diff"].as_i64().unwrap() > 0);
    let p = get(base, "/api/users/Kai").await.json();
    assert_eq!(p["ratings"].as_array().unwrap().len(), 1);
    server.running.shutdown().await.unwrap();
}

/// Today's schema (version 2), written out literally as it was before
/// accounts existed.
const SCHEMA_BEFORE_ACCOUNTS: &str = "
CREATE TABLE games (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL, time_control TEXT NOT NULL,
    seats TEXT NOT NULL, status TEXT NOT NULL, plies INTEGER NOT NULL, to_move TEXT, result TEXT,
    clock TEXT NOT NULL, draw_offer TEXT, rematch_id TEXT, rematch_of TEXT, seed INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL
);
CREATE INDEX games_by_status ON games(status, updated_at_ms);
CREATE TABLE moves (
    game_id TEXT NOT NULL, ply INTEGER NOT NULL, text TEXT NOT NULL, at_ms INTEGER NOT NULL,
    clocks TEXT, score TEXT, PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;
CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
ALTER TABLE games ADD COLUMN draw_declined TEXT;
ALTER TABLE games ADD COLUMN first_move_deadline_ms INTEGER;
ALTER TABLE games ADD COLUMN timed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN resume INTEGER NOT NULL DEFAULT 0;
ALTER TABLE moves ADD COLUMN display TEXT;
CREATE INDEX games_to_resume ON games(resume) WHERE resume = 1;
CREATE INDEX games_to_expire ON games(status, timed, updated_at_ms);
CREATE INDEX games_by_update ON games(updated_at_ms);
PRAGMA user_version = 2;
";

/// A database from before this issue is migrated at start-up and keeps
/// every game, with its moves, seats and results.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_from_before_accounts_keeps_every_game() {
    if postgres_base().is_some() {
        // This test rewrites a SQLite file into the old schema; the
        // PostgreSQL upgrade from each version is tested in store::postgres.
        return;
    }
    // Make real games with a server, then rewrite the file into the old schema.
    let source = start("players-migrate-src").await;
    let base = source.base.clone();
    let mut expected = Vec::new();
    for (i, game) in ["coldwar", "dots", "cordots", "cumisitha"].iter().enumerate() {
        let seats = if i % 2 == 0 {
            json!([{"kind": "me", "name": "Ann"}, {"kind": "me", "name": "Bob"}])
        } else {
            json!([{"kind": "me"}, {"kind": "open"}])
        };
        let c = create(&base, json!({"game": game, "seats": seats})).await;
        let id = c["game"]["id"].as_str().unwrap().to_string();
        if i % 2 == 0 {
            for _ in 0..3 {
                let g = get(&base, &format!("/api/games/{id}")).await.json();
                let to_move = g["state"]["to_move"].as_str().unwrap().to_string();
                let mv = g["state"]["legal_moves"][0].clone();
                let token = c["tokens"][&to_move].as_str().unwrap();
                post(&base, &format!("/api/games/{id}/move"), json!({"token": token, "move": mv})).await;
            }
        }
        if i == 2 {
            post(&base, &format!("/api/games/{id}/resign"), json!({"token": c["tokens"]["white"]})).await;
        }
        expected.push(get(&base, &format!("/api/games/{id}")).await.json());
    }
    source.running.shutdown().await.unwrap();
    let old = temp_db("players-migrate-old");
    {
        let src = rusqlite::Connection::open(&source.db).unwrap();
        let dst = rusqlite::Connection::open(&old).unwrap();
        dst.execute_batch(SCHEMA_BEFORE_ACCOUNTS).unwrap();
        let mut st = src
            .prepare(
                "SELECT id, game, options, time_control, seats, status, plies, to_move, result, clock, draw_offer,
                 rematch_id, rematch_of, seed, created_at_ms, updated_at_ms, draw_declined, first_move_deadline_ms,
                 timed, resume FROM games",
            )
            .unwrap();
        let mut rows = st.query([]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let values: Vec<rusqlite::types::Value> = (0..20).map(|i| r.get(i).unwrap()).collect();
            dst.execute(
                "INSERT INTO games VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20)",
                rusqlite::params_from_iter(values),
            )
            .unwrap();
        }
        let mut st = src.prepare("SELECT game_id, ply, text, at_ms, clocks, score, display FROM moves").unwrap();
        let mut rows = st.query([]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            let values: Vec<rusqlite::types::Value> = (0..7).map(|i| r.get(i).unwrap()).collect();
            dst.execute("INSERT INTO moves VALUES (?1,?2,?3,?4,?5,?6,?7)", rusqlite::params_from_iter(values)).unwrap();
        }
        let version: u32 = dst.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(version, 2);
    }
    let server = start_on(old.clone(), tabula_server::time::ManualTime::new(T0 + 5_000)).await;
    for before in &expected {
        let id = before["id"].as_str().unwrap();
        let after = get(&server.base, &format!("/api/games/{id}")).await.json();
        for key in ["game", "status", "moves", "result", "options", "time_control"] {
            assert_eq!(after[key], before[key], "{id}: {key}");
        }
        let names = |g: &Value| g["seats"].as_array().unwrap().iter().map(|s| s["name"].clone()).collect::<Vec<_>>();
        assert_eq!(names(&after), names(before));
        assert_eq!(after["rated"], false);
        assert_eq!(after["public"], false, "old waiting games stay invite-only");
    }
    let listed = get(&server.base, "/api/games?limit=500").await.json();
    assert_eq!(listed["games"].as_array().unwrap().len(), expected.len());
    server.running.shutdown().await.unwrap();
    let conn = rusqlite::Connection::open(&old).unwrap();
    let version: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
    assert_eq!(version, 4, "migrated to the newest schema");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_pairing_pairs_players_of_one_pool() {
    let server = start("players-pool").await;
    let base = &server.base;
    let lia = signup(base, "Lia").await;
    let max = signup(base, "Max").await;
    let ned = signup(base, "Ned").await;
    let pool = json!({"game": "coldwar", "time_control": "fischer:180+2", "rated": true});
    let r = lia.post("/api/pool/join", pool.clone()).await;
    assert_eq!(r.json()["status"], "waiting", "{}", r.body);
    assert_eq!(r.json()["pool"]["category"], "blitz");
    // Another clock is another pool.
    let r =
        ned.post("/api/pool/join", json!({"game": "coldwar", "time_control": "fischer:600+0", "rated": true})).await;
    assert_eq!(r.json()["status"], "waiting");
    let r = max.post("/api/pool/join", pool).await;
    assert_eq!(r.json()["status"], "paired", "{}", r.body);
    let id = r.json()["game_id"].as_str().unwrap().to_string();
    assert_eq!(lia.get("/api/pool").await.json(), json!({"v": 1, "status": "paired", "game_id": id}));
    assert_eq!(ned.get("/api/pool").await.json()["status"], "waiting");
    let game = get(base, &format!("/api/games/{id}")).await.json();
    assert_eq!(game["status"], "live");
    assert_eq!(game["rated"], true);
    let mut users: Vec<&str> = game["seats"].as_array().unwrap().iter().map(|s| s["user"].as_str().unwrap()).collect();
    users.sort();
    assert_eq!(users, ["Lia", "Max"]);
    // Both act by their accounts: whoever is first moves.
    let first = if game["seats"][0]["user"] == "Lia" { &lia } else { &max };
    play_first_move(first, &id).await;
    // A waiter who stops asking leaves the pool.
    server.advance(31_000).await;
    server.advance(1_000).await;
    assert_eq!(ned.get("/api/pool").await.json()["status"], "none");
    assert_eq!(post(base, "/api/pool/join", json!({"game": "coldwar"})).await.code(), "not_logged_in");
    server.running.shutdown().await.unwrap();
}

/// A socket that is both the account's (cookie) and said `hello` with the
/// seat token counts once: closing it leaves the seat gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presence_ends_when_the_last_socket_closes() {
    let server = start("players-presence").await;
    let base = &server.base;
    let ann = signup(base, "Ann").await;
    let bob = signup(base, "Bob").await;
    let r = ann
        .post("/api/games", json!({"game": "dots", "public": true, "seats": [{"kind": "me"}, {"kind": "open"}]}))
        .await;
    let id = r.json()["game"]["id"].as_str().unwrap().to_string();
    let token = r.json()["tokens"]["blue"].as_str().unwrap().to_string();
    let mut first = ann.connect(&id).await;
    recv_type(&mut first, "state", 5).await;
    send(&mut first, json!({"v": 1, "type": "hello", "token": token, "id": 1})).await;
    assert_eq!(recv_type(&mut first, "ack", 5).await["id"], 1);
    // A second tab of Ann's, then both close.
    let mut second = ann.connect(&id).await;
    recv_type(&mut second, "state", 5).await;
    bob.post(&format!("/api/games/{id}/join"), json!({})).await;
    let live = get(base, &format!("/api/games/{id}")).await.json();
    assert_eq!(live["presence"]["blue"], true);
    drop(first);
    settle().await;
    assert_eq!(get(base, &format!("/api/games/{id}")).await.json()["presence"]["blue"], true, "one tab is still open");
    drop(second);
    settle().await;
    let gone = get(base, &format!("/api/games/{id}")).await.json();
    assert_eq!(gone["presence"]["blue"], false, "{}", gone["presence"]);
    assert_eq!(gone["seats"][0]["online"], false);
    server.running.shutdown().await.unwrap();
}

/// Leaderboards list established ratings only, best first; a rating left
/// alone for two years has grown provisional again and drops off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaderboards_list_established_ratings_as_they_stand_now() {
    let server = start("players-board").await;
    for name in ["Ada", "Ben", "Cal", "Dot"] {
        signup(&server.base, name).await;
    }
    let db = server.db.clone();
    server.shutdown().await;
    {
        let year = 365 * 86_400_000u64;
        for (name, rating, deviation, games, at) in [
            ("Ada", 1720.0, 70.0, 40, T0 - 86_400_000),
            ("Ben", 1810.0, 60.0, 90, T0 - 2 * year),
            ("Cal", 1650.0, 90.0, 30, T0 - 3_600_000),
            ("Dot", 1900.0, 200.0, 3, T0 - 3_600_000),
        ] {
            sql::exec(
                &db,
                "INSERT INTO ratings (user_id, game, category, rating, deviation, volatility, games, updated_at_ms)
                 SELECT id, 'dots', 'rapid', ?2, ?3, 0.06, ?4, ?5 FROM users WHERE name = ?1",
                &[name.into(), rating.into(), deviation.into(), (games as i64).into(), (at as i64).into()],
            );
        }
    }
    let server = start_on(db, tabula_server::time::ManualTime::new(T0)).await;
    let base = &server.base;
    let board = get(base, "/api/leaderboard?game=dots&category=rapid").await.json();
    let names: Vec<&str> = board["players"].as_array().unwrap().iter().map(|p| p["user"].as_str().unwrap()).collect();
    assert_eq!(names, ["Ada", "Cal"], "{board}");
    assert_eq!(board["players"][0]["rank"], 1);
    assert_eq!(board["players"][0]["rating"], 1720);
    let ben = get(base, "/api/users/Ben").await.json();
    assert_eq!(ben["ratings"][0]["provisional"], true, "two idle years: {}", ben["ratings"]);
    assert!(ben["ratings"][0]["deviation"].as_f64().unwrap() > 110.0);
    assert_eq!(get(base, "/api/leaderboard?game=dots&category=bullet").await.code(), "bad_request");
    assert_eq!(get(base, "/api/leaderboard?game=chess&category=rapid").await.code(), "unknown_game");
    server.running.shutdown().await.unwrap();
}
