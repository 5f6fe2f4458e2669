//! `tabula bot` against the real `tabula serve`, on a temporary database
//! and a loopback port.

mod common;

use common::tabula;
use serde_json::{json, Value};
use std::io::{BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A server on a free loopback port and a fresh database; killed on drop.
struct Server {
    child: Child,
    url: String,
    dir: std::path::PathBuf,
}

impl Server {
    fn start(name: &str) -> Server {
        let dir = std::env::temp_dir().join(format!("tabula-bot-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (child, addr) = common::serve(&dir.join("bot.sqlite3"));
        Server { child, url: format!("http://{addr}"), dir }
    }

    /// `kill -9` the server and start it again on the same address and
    /// database.
    fn crash_and_restart(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let addr = self.url.strip_prefix("http://").unwrap().to_string();
        let (child, _) = common::serve_on(&self.dir.join("bot.sqlite3"), &addr);
        self.child = child;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn a_bad_address_is_refused_at_once() {
    for url in ["localhost:8080", "ftp://example.org", "http://", "http://host/?a=1"] {
        let out = tabula(&["bot", "--server", url, "--token", "tba_x", "--level", "easy"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{url}: {err}");
        assert!(err.contains("is not a server address"), "{url}: {err}");
    }
}

#[test]
fn bad_settings_are_refused_before_connecting() {
    let cases: [(&[&str], &str); 4] = [
        (&["--level", "no-such-level"], "no AI level 'no-such-level'"),
        (&["--engine", "stockfish"], "--engine needs --games"),
        (&["--engine", "/nonexistent/engine", "--games", "cumisitha"], "cannot start '/nonexistent/engine'"),
        (&["--level", "easy", "--games", "no-such-game"], "no-such-game"),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["bot", "--server", "http://127.0.0.1:9", "--token", "tba_x"];
        args.extend_from_slice(extra);
        let out = tabula(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(expected), "{extra:?}: {err}");
    }
    let out = tabula(&["bot", "--server", "http://127.0.0.1:9", "--token", "tba_x"]);
    assert_eq!(out.status.code(), Some(2), "neither --level nor --engine");
}

#[test]
fn an_unreachable_server_is_a_clear_error() {
    // Port 9 (discard) on loopback: nothing listens there.
    let out = tabula(&["bot", "--server", "http://127.0.0.1:9", "--token", "tba_x", "--level", "easy"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot reach http://127.0.0.1:9/api/account"), "{err}");
}

#[test]
fn a_refused_token_is_a_clear_error() {
    let server = Server::start("badtoken");
    let out = tabula(&["bot", "--server", &server.url, "--token", "tba_not_a_real_token", "--level", "easy"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("the server refused the token (401"), "{err}");
    assert!(!err.contains("tba_not_a_real_token"), "the token is never printed: {err}");
}

/// A process killed when the test ends, even by a failed assertion.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A person or a bot account on the test server, talking JSON over HTTP
/// with its session cookie (sent with the Origin header the CSRF rule asks
/// of cookie requests).
struct Account {
    url: String,
    cookie: String,
    agent: ureq::Agent,
}

impl Account {
    fn sign_up(url: &str, name: &str) -> Account {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        let answer = agent
            .post(&format!("{url}/api/account/signup"))
            .header("Origin", url)
            .send_json(json!({"username": name, "password": "a long enough password"}))
            .unwrap();
        assert_eq!(answer.status().as_u16(), 201, "sign up {name}");
        let cookie = answer
            .headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(|c| c.split(';').next().filter(|kv| kv.starts_with("tabula_session=")))
            .expect("a session cookie")
            .to_string();
        Account { url: url.to_string(), cookie, agent }
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let url = format!("{}{path}", self.url);
        let send = || match (method, &body) {
            ("GET", _) => self.agent.get(&url).header("Cookie", &self.cookie).call(),
            (_, body) => self
                .agent
                .post(&url)
                .header("Cookie", &self.cookie)
                .header("Origin", &self.url)
                .send_json(body.clone().unwrap_or_else(|| json!({}))),
        };
        // Once more on a transport error: a kept-alive connection may belong
        // to a server the test has just restarted.
        let answer = send().or_else(|_| {
            std::thread::sleep(Duration::from_millis(100));
            send()
        });
        let mut answer = answer.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = answer.status().as_u16();
        let text = answer.body_mut().read_to_string().unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    fn ok(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let (status, answer) = self.call(method, path, body);
        assert!((200..300).contains(&status), "{method} {path}: {status} {answer}");
        answer
    }
}

/// What a scenario ended with: the finished game's JSON and the bot's log.
struct Played {
    game: Value,
    log: String,
}

/// A bot account `robo` run by `tabula bot BOT_ARGS --max-games 1`, and a
/// person `ann` who challenges it to `game` (she moves first and always
/// plays her first legal move) and plays until the game ends; the bot must
/// stop by itself after it.
/// With `offer_draw` Ann offers a draw with her first move; with
/// `crash_at_ply` the server is killed and restarted once the game has that
/// many plies.
fn challenge_the_bot(
    name: &str,
    bot_args: &[&str],
    challenge: Value,
    offer_draw: bool,
    mut crash_at_ply: Option<u64>,
) -> Played {
    let mut server = Server::start(name);
    let bot = Account::sign_up(&server.url, "robo");
    bot.ok("POST", "/api/account/bot", None);
    let token = bot.ok("POST", "/api/account/tokens", Some(json!({"description": "test", "scopes": ["bot:play"]})));
    let secret = token["token"]["secret"].as_str().expect("the token's secret").to_string();
    let ann = Account::sign_up(&server.url, "ann");

    let mut child = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_tabula"))
            .args(["bot", "--server", &server.url, "--max-games", "1"])
            .args(bot_args)
            .env("TABULA_TOKEN", &secret)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tabula bot"),
    );
    let stderr = child.0.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut text = String::new();
        BufReader::new(stderr).read_to_string(&mut text).unwrap();
        text
    });
    let deadline = Instant::now() + Duration::from_secs(120);

    let mut body = challenge;
    body["to"] = json!("robo");
    body["color"] = json!("first");
    let challenge = ann.ok("POST", "/api/challenges", Some(body));
    let challenge_id = challenge["challenge"]["id"].as_str().expect("a challenge id").to_string();
    let game_id = loop {
        let c = ann.ok("GET", &format!("/api/challenges/{challenge_id}"), None);
        match c["challenge"]["status"].as_str() {
            Some("accepted") => break c["challenge"]["game_id"].as_str().expect("the game's id").to_string(),
            Some("pending") if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            other => {
                drop(child);
                panic!("the bot did not accept: {other:?}\n{}", log.join().unwrap());
            }
        }
    };

    // Ann plays the first legal move whenever she is on move.
    let game = loop {
        let game = ann.ok("GET", &format!("/api/games/{game_id}"), None);
        if game["status"] != "live" && game["status"] != "waiting" {
            break game;
        }
        if Instant::now() > deadline {
            drop(child);
            panic!("the game did not end in time: {game}\n{}", log.join().unwrap());
        }
        if crash_at_ply.is_some_and(|n| game["state"]["plies"].as_u64().unwrap() >= n) {
            crash_at_ply = None;
            server.crash_and_restart();
            continue;
        }
        if game["status"] == "live" && game["state"]["to_move"] == game["players"][0] {
            let mv = game["state"]["legal_moves"][0].as_str().unwrap().to_string();
            let ply = game["state"]["plies"].as_u64().unwrap();
            if ply == 0 && offer_draw {
                ann.ok("POST", &format!("/api/games/{game_id}/draw"), Some(json!({"action": "offer"})));
            }
            let (status, answer) =
                ann.call("POST", &format!("/api/games/{game_id}/move"), Some(json!({"move": mv, "ply": ply})));
            match answer["error"]["code"].as_str() {
                _ if status == 200 => {}
                Some("stale_ply") => {}
                // Ann and the bot share the loopback address, and its move limit.
                Some("rate_limited") => std::thread::sleep(Duration::from_secs(1)),
                _ => panic!("{status} {answer}"),
            }
        } else {
            std::thread::sleep(Duration::from_millis(20));
        }
    };

    // The bot stops by itself after its one game (--max-games 1).
    let stop = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > stop {
            drop(child);
            panic!("the bot did not stop after its game\n{}", log.join().unwrap());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let log = log.join().unwrap();
    eprintln!("{log}"); // shown with --nocapture
    assert!(status.success(), "{log}");
    assert!(log.contains(&format!("challenge {challenge_id} from ann")) && log.contains("accepted"), "{log}");
    assert!(log.contains(&format!("game {game_id} over:")), "{log}");
    assert_eq!(game["status"], "finished", "{game}");
    assert!(game["state"]["plies"].as_u64().unwrap() >= 2, "both sides moved: {game}");
    let profile = ann.ok("GET", "/api/users/robo", None);
    let rating = profile["ratings"].as_array().unwrap().iter().find(|r| r["game"] == game["game"]).cloned();
    assert_eq!(rating.is_some(), game["rated"] == true, "a rating only from a rated game: {profile}");
    Played { game, log }
}

/// The Bot API test: a bot driven by `tabula bot --level easy`
/// accepts a rated challenge and plays the game to its end against a
/// person, and both get a rating from it.
#[test]
fn a_bot_accepts_a_rated_challenge_and_plays_it_to_the_end() {
    let played = challenge_the_bot(
        "level",
        &["--level", "easy", "--games", "coldwar"],
        json!({"game": "coldwar", "options": {}, "time_control": "fischer:120+2", "rated": true}),
        true,
        None,
    );
    let changes = &played.game["rating_changes"];
    for player in ["x", "o"] {
        assert!(changes[player]["after"].is_number(), "a rating change for {player}: {}", played.game);
    }
    assert!(played.log.contains("rating 1500 -> "), "the bot prints its rating change: {}", played.log);
    assert!(played.log.contains("declined a draw offer"), "{}", played.log);
}

/// `--engine`: the bot plays Cumisitha through a UCI engine, here Tabula's
/// own (`tabula uci`), in a casual untimed game.
#[test]
fn a_bot_plays_with_a_uci_engine() {
    let engine = format!("{} uci", env!("CARGO_BIN_EXE_tabula"));
    let played = challenge_the_bot(
        "engine",
        &["--engine", &engine, "--games", "cumisitha", "--movetime", "30", "--accept", "casual"],
        json!({"game": "cumisitha", "options": {}, "time_control": "none", "rated": false}),
        false,
        None,
    );
    assert!(played.game["rating_changes"].is_null(), "{}", played.game);
    // A first-legal-move player does not survive an engine.
    assert_eq!(played.game["result"]["winner"], "black", "{}", played.game);
}

/// A lost connection: the server is killed in the middle of the game and
/// started again; the bot reconnects to both streams and plays on to the
/// end.
#[test]
fn a_bot_reconnects_after_the_server_restarts() {
    let played = challenge_the_bot(
        "restart",
        &["--level", "easy", "--games", "coldwar"],
        json!({"game": "coldwar", "options": {}, "time_control": "fischer:300+5", "rated": true}),
        false,
        Some(2),
    );
    assert!(played.log.contains("lost the connection"), "{}", played.log);
    assert!(played.log.contains("reconnected"), "{}", played.log);
    assert!(played.game["rating_changes"]["o"]["after"].is_number(), "{}", played.game);
}
