//! Accounts over real sockets: sign-up, login, sessions, CSRF, rate limits,
//! closing, API tokens, and that no secret leaks or crosses accounts.

mod common;

use common::*;
use serde_json::{json, Value};

fn db_text(db: &std::path::Path, sql: &str) -> Vec<String> {
    common::sql::texts(db, sql)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_up_log_in_log_out_and_the_cookie() {
    let server = start("acct-basic").await;
    let base = &server.base;
    let r = post(base, "/api/account/signup", json!({"username": "Ann", "password": "correct horse"})).await;
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["user"]["username"], "Ann");
    let cookie = r.set_cookie().unwrap();
    for attr in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=2592000"] {
        assert!(cookie.contains(attr), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain HTTP without a proxy: no Secure flag: {cookie}");
    let session = r.session_cookie().unwrap();
    assert!(!r.body.contains(&session), "the session id is never in a body");
    let ann = Browser { base: base.clone(), cookie: session.clone() };
    assert_eq!(ann.get("/api/account").await.json()["user"]["username"], "Ann");
    // Case-insensitive unique.
    let dup = post(base, "/api/account/signup", json!({"username": "aNN", "password": "another pass"})).await;
    assert_eq!((dup.status, dup.code().as_str()), (409, "username_taken"));
    // Log in with another case; the name keeps its chosen case.
    let login = post(base, "/api/account/login", json!({"username": "ann", "password": "correct horse"})).await;
    assert_eq!(login.status, 200, "{}", login.body);
    assert_eq!(login.json()["user"]["username"], "Ann");
    // Log out: the session is gone on the server too.
    let out = ann.post("/api/account/logout", json!({})).await;
    assert_eq!(out.status, 200, "{}", out.body);
    assert!(out.set_cookie().unwrap().contains("Max-Age=0"));
    let me = ann.get("/api/account").await;
    assert_eq!((me.status, &me.json()["user"]), (200, &Value::Null), "a guest now");
    assert_eq!(get(base, "/api/account").await.json(), json!({"v": 1, "user": null}));
    server.running.shutdown().await.unwrap();
    // Only an Argon2id hash is stored; never the password.
    let hashes = db_text(&server.db, "SELECT password_hash FROM users WHERE builtin_level IS NULL");
    assert_eq!(hashes.len(), 1);
    assert!(hashes[0].starts_with("$argon2id$v=19$"), "{}", hashes[0]);
    assert!(!hashes[0].contains("correct horse"));
    let sessions = db_text(&server.db, "SELECT id_hash FROM sessions");
    assert!(sessions.iter().all(|s| s.len() == 64 && *s != session), "sessions are stored hashed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usernames_are_checked_and_reserved_names_refused() {
    let server = start("acct-names").await;
    let base = &server.base;
    for (name, code) in [
        ("a", "bad_username"),
        ("x23456789012345678901", "bad_username"),
        ("ann marie", "bad_username"),
        ("-ann", "bad_username"),
        ("Admin", "bad_username"),
        ("tabula-expert", "bad_username"),
        ("änne", "bad_username"),
    ] {
        let r = post(base, "/api/account/signup", json!({"username": name, "password": "long enough"})).await;
        assert_eq!((r.status, r.code().as_str()), (400, code), "{name}: {}", r.body);
    }
    let r = post(base, "/api/account/signup", json!({"username": "Bob", "password": "short"})).await;
    assert_eq!(r.code(), "bad_password");
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_session_id_is_issued_at_login() {
    let server = start("acct-fixation").await;
    let base = &server.base;
    let first = signup(base, "Cleo").await;
    // An attacker plants a session id of their choosing, then the victim logs in.
    let planted = "PlantedByAnAttacker0000000000000000000000000";
    let r = http_with(
        base,
        "POST",
        "/api/account/login",
        Some(&json!({"username": "Cleo", "password": "Cleo-secret-pw"}).to_string()),
        &[("Cookie", &format!("tabula_session={planted}"))],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let fresh = r.session_cookie().unwrap();
    assert_ne!(fresh, planted);
    assert_ne!(fresh, first.cookie);
    let attacker = Browser { base: base.clone(), cookie: planted.into() };
    assert_eq!(attacker.get("/api/account").await.json()["user"], Value::Null, "the planted id logs nobody in");
    // Logging in again while holding a session replaces it.
    let again = http_with(
        base,
        "POST",
        "/api/account/login",
        Some(&json!({"username": "Cleo", "password": "Cleo-secret-pw"}).to_string()),
        &[("Cookie", &format!("tabula_session={fresh}")), ("Origin", &format!("http://{base}"))],
    )
    .await;
    let newer = again.session_cookie().unwrap();
    assert_ne!(newer, fresh);
    let old = Browser { base: base.clone(), cookie: fresh };
    assert_eq!(old.get("/api/account").await.json()["user"], Value::Null, "the session sent at login was ended");
    let new = Browser { base: base.clone(), cookie: newer };
    assert_eq!(new.get("/api/account").await.json()["user"]["username"], "Cleo");
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_site_posts_with_the_cookie_are_refused() {
    let server = start("acct-csrf").await;
    let base = &server.base;
    let dan = signup(base, "Dan").await;
    let cookie = format!("tabula_session={}", dan.cookie);
    let body = json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "open"}]}).to_string();
    for headers in [
        vec![("Cookie", cookie.as_str())],
        vec![("Cookie", cookie.as_str()), ("Origin", "http://evil.example")],
        vec![("Cookie", cookie.as_str()), ("Origin", "null")],
        vec![("Cookie", cookie.as_str()), ("Sec-Fetch-Site", "cross-site"), ("Origin", "http://evil.example")],
        vec![("Cookie", cookie.as_str()), ("Sec-Fetch-Site", "same-site")],
    ] {
        for path in ["/api/games", "/api/account/logout", "/api/account/tokens", "/api/account/close"] {
            let r = http_with(base, "POST", path, Some(&body), &headers).await;
            assert_eq!((r.status, r.code().as_str()), (403, "csrf"), "{path} {headers:?}: {}", r.body);
        }
    }
    // Nothing happened: still logged in, no game listed.
    assert_eq!(dan.get("/api/account").await.json()["user"]["username"], "Dan");
    assert_eq!(get(base, "/api/games").await.json()["games"].as_array().unwrap().len(), 0);
    // The same request from the site itself goes through.
    let own = origin_post(base, &cookie, "/api/games", &body).await;
    assert_eq!(own.status, 201, "{}", own.body);
    let fetch_meta = http_with(
        base,
        "POST",
        "/api/games",
        Some(&body),
        &[("Cookie", cookie.as_str()), ("Sec-Fetch-Site", "same-origin")],
    )
    .await;
    assert_eq!(fetch_meta.status, 201, "{}", fetch_meta.body);
    // A WebSocket from another site with the cookie is only a spectator.
    let game = own.json();
    let id = game["game"]["id"].as_str().unwrap();
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{base}/api/games/{id}/ws").into_client_request().unwrap();
    req.headers_mut().insert("Cookie", cookie.parse().unwrap());
    req.headers_mut().insert("Origin", "http://evil.example".parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    recv_type(&mut ws, "state", 5).await;
    send(&mut ws, json!({"v": 1, "type": "abort", "id": 1})).await;
    let refused = recv_type(&mut ws, "error", 5).await;
    assert_eq!(refused["error"]["code"], "bad_token");
    server.running.shutdown().await.unwrap();
}

async fn origin_post(base: &str, cookie: &str, path: &str, body: &str) -> Reply {
    http_with(base, "POST", path, Some(body), &[("Cookie", cookie), ("Origin", &format!("http://{base}"))]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_errors_do_not_tell_which_names_exist() {
    let server = start("acct-uniform").await;
    let base = &server.base;
    signup(base, "Eve").await;
    let wrong_password =
        post(base, "/api/account/login", json!({"username": "Eve", "password": "not her password"})).await;
    let no_such_user =
        post(base, "/api/account/login", json!({"username": "Nobody", "password": "not her password"})).await;
    let bad_name = post(base, "/api/account/login", json!({"username": "???", "password": "not her password"})).await;
    assert_eq!(wrong_password.status, 401);
    assert_eq!(wrong_password.code(), "bad_credentials");
    assert_eq!(wrong_password.body, no_such_user.body);
    assert_eq!(wrong_password.body, bad_name.body);
    assert_eq!(wrong_password.status, no_such_user.status);
    assert!(wrong_password.session_cookie().is_none());
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_attempts_are_limited_per_account_and_per_address() {
    let server = start_with("acct-ratelimit", |cfg| cfg.net.trust_forwarded_for = true).await;
    let base = &server.base;
    signup(base, "Finn").await;
    let attempt = |from: String, name: &'static str| {
        let base = base.clone();
        async move {
            let body = json!({"username": name, "password": "guessing..."}).to_string();
            http_with(&base, "POST", "/api/account/login", Some(&body), &[("X-Forwarded-For", &from)]).await
        }
    };
    // Per account: five tries from five addresses, then the sixth is refused
    // even with the right password, from yet another address.
    for i in 0..5 {
        let r = attempt(format!("10.0.0.{i}"), "Finn").await;
        assert_eq!(r.status, 401, "{}", r.body);
    }
    let blocked = http_with(
        base,
        "POST",
        "/api/account/login",
        Some(&json!({"username": "finn", "password": "Finn-secret-pw"}).to_string()),
        &[("X-Forwarded-For", "10.0.1.1")],
    )
    .await;
    assert_eq!((blocked.status, blocked.code().as_str()), (429, "rate_limited"), "{}", blocked.body);
    assert!(blocked.headers.to_ascii_lowercase().contains("retry-after:"));
    // Per address: twenty tries on twenty names, then refused.
    const NAMES: [&str; 21] = [
        "n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", "n11", "n12", "n13", "n14", "n15", "n16",
        "n17", "n18", "n19", "n20",
    ];
    for name in &NAMES[..20] {
        assert_eq!(attempt("10.9.9.9".into(), name).await.status, 401);
    }
    assert_eq!(attempt("10.9.9.9".into(), NAMES[20]).await.status, 429);
    // A minute later the account may try again.
    server.advance(61_000).await;
    let ok = http_with(
        base,
        "POST",
        "/api/account/login",
        Some(&json!({"username": "Finn", "password": "Finn-secret-pw"}).to_string()),
        &[("X-Forwarded-For", "10.0.2.1")],
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secure_cookies_behind_a_tls_proxy() {
    let server = start_with("acct-secure", |cfg| cfg.net.trust_forwarded_for = true).await;
    let base = &server.base;
    let body = json!({"username": "Gus", "password": "a good password"}).to_string();
    let r = http_with(base, "POST", "/api/account/signup", Some(&body), &[("X-Forwarded-Proto", "https")]).await;
    assert!(r.set_cookie().unwrap().contains("; Secure"), "{:?}", r.set_cookie());
    server.running.shutdown().await.unwrap();
    let server = start_with("acct-secure2", |cfg| cfg.net.secure_cookies = true).await;
    let r = post(&server.base, "/api/account/signup", json!({"username": "Gus", "password": "a good password"})).await;
    assert!(r.set_cookie().unwrap().contains("; Secure"));
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_tokens_are_shown_once_stored_hashed_and_revocable() {
    let server = start("acct-tokens").await;
    let base = &server.base;
    let hal = signup(base, "Hal").await;
    let r = hal.post("/api/account/tokens", json!({"description": "my bot", "scopes": ["bot:play"]})).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let secret = r.json()["token"]["secret"].as_str().unwrap().to_string();
    let token_id = r.json()["token"]["id"].as_i64().unwrap();
    assert!(secret.starts_with("tba_"));
    let listed = hal.get("/api/account/tokens").await;
    assert!(!listed.body.contains(&secret), "listing never shows a secret");
    assert_eq!(listed.json()["tokens"][0]["scopes"], json!(["bot:play"]));
    let bad_scope = hal.post("/api/account/tokens", json!({"scopes": ["admin"]})).await;
    assert_eq!(bad_scope.code(), "bad_request");
    // The token proves the account, with no cookie and no Origin needed.
    let auth = format!("Bearer {secret}");
    let me = http_with(base, "GET", "/api/account", None, &[("Authorization", &auth)]).await;
    assert_eq!(me.json()["user"]["username"], "Hal");
    // But account settings need the session.
    let r = http_with(base, "POST", "/api/account/tokens", Some("{}"), &[("Authorization", &auth)]).await;
    assert_eq!((r.status, r.code().as_str()), (403, "missing_scope"));
    // A token without bot:play does not play as the account.
    let narrow = hal.post("/api/account/tokens", json!({"scopes": ["challenge:write"]})).await.json()["token"]
        ["secret"]
        .as_str()
        .unwrap()
        .to_string();
    let body = json!({"game": "dots", "seats": [{"kind": "me"}, {"kind": "open"}]}).to_string();
    let r = http_with(base, "POST", "/api/games", Some(&body), &[("Authorization", &format!("Bearer {narrow}"))]).await;
    assert_eq!(r.json()["game"]["seats"][0]["user"], Value::Null, "{}", r.body);
    let body = json!({"game": "dots", "rated": true, "seats": [{"kind": "me"}, {"kind": "open"}]}).to_string();
    let r = http_with(base, "POST", "/api/games", Some(&body), &[("Authorization", &format!("Bearer {narrow}"))]).await;
    assert_eq!(r.code(), "missing_scope");
    // Another account cannot revoke it.
    let ivy = signup(base, "Ivy").await;
    assert_eq!(ivy.delete(&format!("/api/account/tokens/{token_id}")).await.status, 404);
    assert_eq!(http_with(base, "GET", "/api/account", None, &[("Authorization", &auth)]).await.status, 200);
    // Its owner can.
    assert_eq!(hal.delete(&format!("/api/account/tokens/{token_id}")).await.status, 200);
    let gone = http_with(base, "GET", "/api/account", None, &[("Authorization", &auth)]).await;
    assert_eq!((gone.status, gone.code().as_str()), (401, "bad_api_token"));
    server.running.shutdown().await.unwrap();
    let stored = db_text(&server.db, "SELECT secret_hash FROM api_tokens");
    assert!(stored.iter().all(|h| h.len() == 64 && !h.contains(&secret)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_account_cannot_act_for_another() {
    let server = start("acct-acting").await;
    let base = &server.base;
    let jo = signup(base, "Jo").await;
    let kim = signup(base, "Kim").await;
    let lee = signup(base, "Lee").await;
    let created = jo
        .post("/api/games", json!({"game": "coldwar", "public": true, "seats": [{"kind": "me"}, {"kind": "open"}]}))
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.json()["game"]["id"].as_str().unwrap().to_string();
    assert_eq!(created.json()["game"]["seats"][0]["user"], "Jo");
    let joined = kim.post(&format!("/api/games/{id}/join"), json!({})).await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    assert_eq!(joined.json()["game"]["seats"][1]["user"], "Kim");
    let legal = joined.json()["game"]["state"]["legal_moves"][0].clone();
    // Kim is not on move; Lee holds no seat; neither moves Jo's pieces.
    let r = kim.post(&format!("/api/games/{id}/move"), json!({"move": legal})).await;
    assert_eq!(r.code(), "not_your_turn");
    let r = lee.post(&format!("/api/games/{id}/move"), json!({"move": legal})).await;
    assert_eq!(r.code(), "bad_token");
    let r = lee.post(&format!("/api/games/{id}/resign"), json!({})).await;
    assert_eq!(r.code(), "bad_token");
    // Jo moves by the account alone, no token.
    let r = jo.post(&format!("/api/games/{id}/move"), json!({"move": legal, "ply": 0})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    // Lee with a token of her own cannot either.
    let t = lee.post("/api/account/tokens", json!({"scopes": ["bot:play"]})).await.json()["token"]["secret"]
        .as_str()
        .unwrap()
        .to_string();
    let body = json!({"move": "a1"}).to_string();
    let r = http_with(
        base,
        "POST",
        &format!("/api/games/{id}/move"),
        Some(&body),
        &[("Authorization", &format!("Bearer {t}"))],
    )
    .await;
    assert_eq!(r.code(), "bad_token");
    server.running.shutdown().await.unwrap();
}

/// No public answer carries a session id, an API token or a seat token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_in_any_public_answer() {
    let server = start("acct-leaks").await;
    let base = &server.base;
    let mo = signup(base, "Mo").await;
    let ned = signup(base, "Ned").await;
    let token = mo.post("/api/account/tokens", json!({})).await.json()["token"]["secret"].as_str().unwrap().to_string();
    let created = mo
        .post("/api/games", json!({"game": "coldwar", "public": true, "seats": [{"kind": "me"}, {"kind": "open"}]}))
        .await
        .json();
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let seat_token = created["tokens"]["x"].as_str().unwrap().to_string();
    let invite = created["invites"][0]["code"].as_str().unwrap().to_string();
    let seeks = get(base, "/api/seeks").await;
    assert_eq!(seeks.json()["seeks"][0]["id"], id.as_str());
    let joined = ned.post(&format!("/api/games/{id}/join"), json!({})).await.json();
    let ned_token = joined["token"].as_str().unwrap().to_string();
    let secrets = [mo.cookie.clone(), ned.cookie.clone(), token.clone(), seat_token, ned_token, invite];
    let mut ws = connect(base, &id).await;
    let pushed = recv_type(&mut ws, "state", 5).await.to_string();
    let mut answers = vec![pushed, seeks.body];
    for path in [
        format!("/api/games/{id}"),
        "/api/games".into(),
        "/api/games?status=all".into(),
        "/api/users/Mo".into(),
        "/api/users/Ned/games".into(),
        "/api/users/Mo/history".into(),
        "/api/bots".into(),
        "/api/leaderboard?game=coldwar&category=untimed".into(),
        format!("/api/games/{id}/export"),
    ] {
        let r = get(base, &path).await;
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        answers.push(r.body);
    }
    for a in &answers {
        for s in &secrets {
            assert!(!a.contains(s.as_str()), "a public answer leaks a secret: {a}");
        }
    }
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_account_keeps_its_games_under_an_anonymous_name() {
    let server = start("acct-close").await;
    let base = &server.base;
    let oz = signup(base, "Oz").await;
    let pia = signup(base, "Pia").await;
    let created = oz
        .post("/api/games", json!({"game": "coldwar", "public": true, "seats": [{"kind": "me"}, {"kind": "open"}]}))
        .await
        .json();
    let id = created["game"]["id"].as_str().unwrap().to_string();
    pia.post(&format!("/api/games/{id}/join"), json!({})).await;
    assert_eq!(oz.post(&format!("/api/games/{id}/resign"), json!({})).await.status, 200);
    let wrong = oz.post("/api/account/close", json!({"password": "not it"})).await;
    assert_eq!(wrong.code(), "bad_credentials");
    let closed = oz.post("/api/account/close", json!({"password": "Oz-secret-pw"})).await;
    assert_eq!(closed.status, 200, "{}", closed.body);
    assert_eq!(oz.get("/api/account").await.json()["user"], Value::Null, "its sessions ended");
    let game = get(base, &format!("/api/games/{id}")).await.json();
    let shown = game["seats"][0]["name"].as_str().unwrap().to_string();
    assert!(shown.starts_with("closed-"), "{shown}");
    assert_eq!(game["seats"][0]["user"], shown.as_str());
    assert_eq!(get(base, "/api/users/Oz").await.code(), "unknown_user");
    let login = post(base, "/api/account/login", json!({"username": "Oz", "password": "Oz-secret-pw"})).await;
    assert_eq!(login.code(), "bad_credentials");
    let again = post(base, "/api/account/signup", json!({"username": "oz", "password": "Oz-secret-pw"})).await;
    assert_eq!(again.code(), "username_taken", "a closed name stays taken");
    // Pia's history still has the game, against the anonymised name.
    let hers = get(base, "/api/users/Pia/games").await.json();
    assert_eq!(hers["games"][0]["id"], id.as_str());
    assert_eq!(hers["games"][0]["result_for_me"], "win");
    // After a restart too (the stored seats were renamed).
    server.running.shutdown().await.unwrap();
    let server = start_on(server.db.clone(), tabula_server::time::ManualTime::new(T0 + 1000)).await;
    let game: Value = get(&server.base, &format!("/api/games/{id}")).await.json();
    assert_eq!(game["seats"][0]["name"], shown.as_str());
    server.running.shutdown().await.unwrap();
}

/// A session lasts 30 days; then it logs nobody in and leaves the database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_expire_after_thirty_days() {
    let server = start("acct-expiry").await;
    let base = &server.base;
    let ray = signup(base, "Ray").await;
    server.advance(29 * 86_400_000).await;
    assert_eq!(ray.get("/api/account").await.json()["user"]["username"], "Ray");
    server.advance(86_400_000).await;
    assert_eq!(ray.get("/api/account").await.json()["user"], Value::Null);
    server.advance(3_600_000).await; // the hourly purge
    server.advance(10_000).await;
    // The purge is a database write that a busy PostgreSQL can finish
    // after one settle: wait for it in real time.
    let purged = async || db_text(&server.db, "SELECT id_hash FROM sessions").is_empty();
    poll_until("the expired session is purged", std::time::Duration::from_secs(10), purged).await;
    server.running.shutdown().await.unwrap();
}
