//! The tournament pages in a real headless Chromium against the real server.
//!
//! Ann creates a round-robin through the form at 1366×768, she and Bob (on a
//! 390×844 phone) join it from its page, it starts, both are taken to their
//! game, and the standings on the open tournament page change when the game
//! ends. A knockout set up through the API draws its bracket in SVG on both
//! screens. Screenshots go to `target/browser-artifacts/tournament-*.png`.

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use tabula_browser_tests::{Browser, TestServer};

/// Chromium is heavy and the machine small: one browser test at a time.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const DESKTOP: (u32, u32) = (1366, 768);
const PHONE: (u32, u32) = (390, 844);
const PASSWORD: &str = "correct horse battery";

/// Signs up through the form; the header then shows the name.
async fn sign_up(b: &Browser, server: &TestServer, name: &str) -> Result<()> {
    b.goto(&server.url("/signup")).await?;
    b.wait("#username", 20).await?.send_keys(name).await?;
    b.wait("#password", 5).await?.send_keys(PASSWORD).await?;
    b.click("#signup-submit").await?;
    b.wait_js(&format!("(document.querySelector('#account-name') || {{}}).textContent === '{name}'"), 10).await?;
    Ok(())
}

/// Fails when the page has met a script error (the app keeps them in `window.tabulaErrors`).
async fn assert_no_page_errors(b: &Browser) -> Result<()> {
    let errors = b.eval("return window.tabulaErrors || ['the app did not start'];").await?;
    assert_eq!(errors, json!([]), "script errors on {}", b.client.current_url().await?);
    Ok(())
}

/// A greedy Cold War move from the legal ones: conquer, take free squares, grow.
fn greedy_coldwar_move(game: &Value) -> String {
    let legal: Vec<&str> = game["state"]["legal_moves"].as_array().unwrap().iter().filter_map(|m| m.as_str()).collect();
    let cells = game["view"]["cells"].as_array().unwrap();
    let count = |sq: &str| cells.iter().find(|c| c["square"] == sq).and_then(|c| c["count"].as_u64()).unwrap_or(0);
    let owned = |sq: &str| cells.iter().any(|c| c["square"] == sq && !c["owner"].is_null());
    let score = |m: &&str| -> i64 {
        if m.contains('>') {
            return 100;
        }
        if let Some((a, d)) = m.split_once('x') {
            let (ca, cd) = (count(a) as i64, count(d) as i64);
            return if ca > cd { 25 + ca - cd } else { -50 };
        }
        if m.contains('-') {
            return 5;
        }
        if owned(m) {
            30 + count(m) as i64
        } else {
            50
        }
    };
    legal.iter().max_by_key(|m| score(m)).expect("a legal move").to_string()
}

/// The weaker side's move: shuffling or growing, which never takes ground.
fn weak_coldwar_move(game: &Value) -> String {
    let legal: Vec<&str> = game["state"]["legal_moves"].as_array().unwrap().iter().filter_map(|m| m.as_str()).collect();
    legal.iter().find(|m| m.contains('-')).or(legal.first()).expect("a legal move").to_string()
}

/// Plays Cold War game `id` to its end over HTTP, each side from its own
/// browser session (tournament seats are bound to the accounts: no token):
/// `strong` greedily, `weak` weakly. Returns the final game.
async fn play_to_the_end(strong: (&Browser, &str), weak: (&Browser, &str), id: &str) -> Result<Value> {
    for _ in 0..600 {
        let game = strong.0.fetch_json("GET", &format!("/api/games/{id}"), None).await?;
        if !game["result"].is_null() || game["status"] == "finished" {
            return Ok(game);
        }
        let to_move = game["state"]["to_move"].as_str().unwrap_or_default().to_string();
        let seat = game["seats"].as_array().and_then(|s| s.iter().find(|s| s["player"] == to_move.as_str())).cloned();
        let user = seat.as_ref().and_then(|s| s["user"].as_str()).unwrap_or_default().to_string();
        let (b, mv) = if user.eq_ignore_ascii_case(strong.1) {
            (strong.0, greedy_coldwar_move(&game))
        } else if user.eq_ignore_ascii_case(weak.1) {
            (weak.0, weak_coldwar_move(&game))
        } else {
            bail!("{to_move} to move, sat by {user:?}, neither {} nor {}: {game}", strong.1, weak.1);
        };
        let ply = game["state"]["plies"].as_u64().unwrap_or(0);
        b.fetch_json("POST", &format!("/api/games/{id}/move"), Some(json!({"move": mv, "ply": ply}))).await?;
    }
    bail!("the Cold War game {id} did not end")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_robin_is_created_joined_played_and_its_standings_update() -> Result<()> {
    let _guard = ONE_AT_A_TIME.lock().await;
    let server = TestServer::start().await?;
    let ann = Browser::start(DESKTOP.0, DESKTOP.1).await?;
    let bob = Browser::start(PHONE.0, PHONE.1).await?;

    // A guest is told to log in before creating one.
    ann.goto(&server.url("/tournaments/new")).await?;
    ann.wait("#tournament-login-link", 20).await?;
    sign_up(&ann, &server, "Ann").await?;
    sign_up(&bob, &server, "Bob").await?;

    // Ann finds the page from the header and creates a casual Cold War round-robin.
    ann.click("nav a[href='/tournaments']").await?;
    ann.wait("#tournaments-registration", 20).await?;
    ann.click("#new-tournament").await?;
    ann.wait("#tournament-form #t-game option[value=coldwar]", 20).await?;
    ann.wait("#t-name", 5).await?.send_keys("Tuesday Cup").await?;
    ann.select("#t-game", "coldwar").await?;
    ann.select("#t-time-control", "none").await?;
    ann.click("label[for=system-round_robin]").await?;
    let cycles = ann.wait("#t-cycles", 5).await?;
    cycles.clear().await?;
    cycles.send_keys("1").await?;
    let start_in = ann.wait("#t-starts-in", 5).await?;
    start_in.clear().await?;
    start_in.send_keys("30").await?;
    ann.screenshot("tournament-form").await?;
    ann.click("#create-tournament").await?;
    ann.wait(".tournament-page[data-status=registration]", 20).await?;
    // tournament.css, which only the tournament pages load, applies.
    let width = ann.eval("return getComputedStyle(document.querySelector('.tournament-page')).maxWidth;").await?;
    assert_eq!(width, "1200px", "tournament.css applies to a tournament's page");
    let id = ann.eval("return document.querySelector('.tournament-page').dataset.tournamentId;").await?;
    let id = id.as_str().context("the page names its tournament")?.to_string();
    let kind = ann.text("#tournament-kind").await?;
    assert!(
        kind.contains("Cold War") && kind.contains("round-robin") && kind.contains("Casual"),
        "the kind line: {kind}"
    );
    assert!(ann.text("#tournament-when").await?.starts_with("Starts in"), "a countdown to the start");
    // The creator has not joined by creating it.
    assert!(ann.text("#tournament-players").await?.contains("Nobody"), "nobody is in yet");
    ann.click("#join-tournament").await?;
    ann.wait("#tournament-players li[data-user=Ann]", 10).await?;

    // Bob finds it in the list on his phone and joins; Ann's page shows him without a reload.
    bob.goto(&server.url("/tournaments")).await?;
    let item = bob.wait(&format!("#tournaments-registration li[data-tournament-id='{id}']"), 20).await?;
    let line = item.text().await?;
    assert!(line.contains("Tuesday Cup") && line.contains("1 / 16 players"), "the list item: {line}");
    bob.screenshot("tournament-list-phone").await?;
    bob.click(&format!("li[data-tournament-id='{id}'] a.game-name")).await?;
    bob.wait(&format!(".tournament-page[data-tournament-id='{id}']"), 20).await?;
    assert!(
        bob.client.find(fantoccini::Locator::Css("#start-tournament")).await.is_err(),
        "only the creator may start it"
    );
    bob.click("#join-tournament").await?;
    bob.wait("#withdraw-tournament", 10).await?;
    ann.wait("#tournament-players li[data-user=Bob]", 10).await?;
    ann.screenshot("tournament-registration").await?;

    // Ann starts it: both pages are taken to the one game of the round.
    ann.click("#start-tournament").await?;
    ann.wait(".game-page[data-game=coldwar]", 20).await?;
    bob.wait(".game-page[data-game=coldwar]", 20).await?;
    let game_id = ann.eval("return window.tabulaGame.id;").await?.as_str().unwrap_or_default().to_string();
    assert_eq!(bob.eval("return window.tabulaGame.id;").await?, json!(game_id), "the same game");

    // Back on the tournament page, Ann is shown her game and stays there.
    ann.goto(&server.url(&format!("/tournament/{id}"))).await?;
    let notice = ann.wait("#your-game:not([hidden])", 20).await?.text().await?;
    assert!(notice.contains("Your game has started") && notice.contains("Bob"), "the notice: {notice}");
    let href = ann.wait("#play-your-game", 5).await?.attr("href").await?.unwrap_or_default();
    assert_eq!(href, format!("/game/{game_id}"));
    let pairing = ann.text(&format!("#rounds li[data-game-id='{game_id}']")).await?;
    assert!(pairing.contains("Ann") && pairing.contains("Bob"), "the round's pairing: {pairing}");
    let before = ann.text("#standings tr[data-user=Ann] .t-points").await?;
    assert_eq!(before, "0", "no points before the game");
    ann.screenshot("tournament-running").await?;

    // The game is played to its end; the open page follows without a reload.
    let marker = ann.eval("window.tabulaMarker = 1; return 1;").await?;
    assert_eq!(marker, json!(1));
    let game = play_to_the_end((&ann, "Ann"), (&bob, "Bob"), &game_id).await?;
    let winner_player = game["result"]["winner"].as_str().unwrap_or_default().to_string();
    let winner = game["seats"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["player"] == winner_player.as_str()))
        .and_then(|s| s["user"].as_str())
        .unwrap_or("nobody")
        .to_string();
    assert_eq!(winner, "Ann", "the greedy player wins: {}", game["result"]);
    ann.wait_js("document.querySelector('#standings tr[data-user=Ann] .t-points').textContent === '1'", 20).await?;
    assert_eq!(ann.eval("return window.tabulaMarker;").await?, json!(1), "the page was not reloaded");
    let first = ann.text("#standings tbody tr:first-child").await?;
    assert!(first.starts_with("1") && first.contains("Ann"), "Ann leads: {first}");
    assert_eq!(ann.text("#standings tr[data-user=Bob] .t-points").await?, "0");
    let cells = ann.eval("return ['Ann', 'Bob'].map(u => document.querySelector(`#crosstable tr[data-user=${u}] td.cross-cell:not(.self)`).textContent);").await?;
    assert_eq!(cells, json!(["1", "0"]), "the crosstable: Ann beat Bob");
    ann.wait_js(&format!("document.querySelector(\"#rounds li[data-game-id='{game_id}'] .t-result\").textContent.includes('1-0') || document.querySelector(\"#rounds li[data-game-id='{game_id}'] .t-result\").textContent.includes('0-1')"), 10).await?;
    // One game is the whole single round-robin of two: it ends, with Ann the winner.
    ann.wait(".tournament-page[data-status=finished]", 20).await?;
    assert!(ann.text("#tournament-winner").await?.contains("Ann"), "the winner is named");
    ann.wait_js("document.querySelector('#your-game').hidden", 5).await?;
    ann.full_page_screenshot("tournament-finished").await?;

    // Bob's phone shows the same final standings.
    bob.goto(&server.url(&format!("/tournament/{id}"))).await?;
    bob.wait("#standings tr[data-user=Ann]", 20).await?;
    assert_eq!(bob.text("#standings tr[data-user=Ann] .t-points").await?, "1");
    bob.full_page_screenshot("tournament-finished-phone").await?;
    // The list files it under finished.
    bob.goto(&server.url("/tournaments")).await?;
    bob.wait(&format!("#tournaments-finished li[data-tournament-id='{id}']"), 20).await?;
    assert_no_page_errors(&ann).await?;
    assert_no_page_errors(&bob).await?;
    bob.close().await?;
    ann.close().await?;
    server.stop().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_knockout_bracket_is_drawn_in_svg() -> Result<()> {
    let _guard = ONE_AT_A_TIME.lock().await;
    let server = TestServer::start().await?;
    let desk = Browser::start(DESKTOP.0, DESKTOP.1).await?;
    desk.goto(&server.url("/")).await?;
    desk.wait("#new-game", 20).await?;

    // Four accounts join a knockout of best-of-one matches, all through the API
    // (one browser, one session after another); the first starts it.
    let names = ["Kim", "Lou", "Max", "Ned"];
    let mut id = String::new();
    for (i, name) in names.iter().enumerate() {
        desk.fetch_json("POST", "/api/account/signup", Some(json!({"username": name, "password": PASSWORD}))).await?;
        if i == 0 {
            let created = desk
                .fetch_json(
                    "POST",
                    "/api/tournaments",
                    Some(json!({"name": "Knockout Night", "game": "coldwar", "options": {}, "time_control": "none",
                    "system": {"kind": "knockout", "rules": {"games": 1}}, "rated": false, "starts_in_s": 3600,
                    "max_players": 8, "bots_allowed": true})),
                )
                .await?;
            id = created["tournament"]["id"].as_str().context("the new tournament's id")?.to_string();
        }
        desk.fetch_json("POST", &format!("/api/tournaments/{id}/join"), Some(json!({}))).await?;
        desk.fetch_json("POST", "/api/account/logout", Some(json!({}))).await?;
    }
    desk.fetch_json("POST", "/api/account/login", Some(json!({"username": "Kim", "password": PASSWORD}))).await?;
    desk.fetch_json("POST", &format!("/api/tournaments/{id}/start"), Some(json!({}))).await?;

    // Kim's page: a bracket of two semifinals and a final, the semifinals linked to their games.
    desk.goto(&server.url(&format!("/tournament/{id}"))).await?;
    desk.wait("svg#bracket", 20).await?;
    let shape = desk
        .eval(
            "const svg = document.querySelector('svg#bracket');
             return {
               rounds: [...svg.querySelectorAll('.bracket-round-name')].map(t => t.textContent),
               matches: svg.querySelectorAll('.bracket-match').length,
               links: [...svg.querySelectorAll('a.bracket-link')].map(a => a.getAttribute('href')),
               names: [...svg.querySelectorAll('.bracket-name:not(.to-come)')].map(t => t.textContent),
               lines: svg.querySelectorAll('.bracket-line').length,
               width: svg.getBoundingClientRect().width,
             };",
        )
        .await?;
    assert_eq!(shape["rounds"], json!(["Semifinals", "Final"]), "the rounds: {shape}");
    assert_eq!(shape["matches"], 3, "two semifinals and a final: {shape}");
    assert_eq!(shape["links"].as_array().map(Vec::len), Some(2), "each semifinal links to its game: {shape}");
    assert!(shape["links"].as_array().unwrap().iter().all(|l| l.as_str().unwrap_or_default().starts_with("/game/")));
    let mut drawn: Vec<String> =
        shape["names"].as_array().unwrap().iter().filter_map(|n| n.as_str().map(str::to_string)).collect();
    drawn.sort();
    assert_eq!(drawn, names, "every player in the first round: {shape}");
    assert_eq!(shape["lines"], 2, "both semifinals lead to the final: {shape}");
    // Kim plays in one of them: her game is announced and her slot marked.
    desk.wait("#your-game:not([hidden])", 10).await?;
    desk.wait("svg#bracket .bracket-slot.mine", 5).await?;
    desk.screenshot("tournament-bracket").await?;
    assert_no_page_errors(&desk).await?;

    // A guest's phone draws it too, scrolled sideways rather than squeezed.
    let phone = Browser::start(PHONE.0, PHONE.1).await?;
    phone.goto(&server.url(&format!("/tournament/{id}"))).await?;
    phone.wait("svg#bracket .bracket-match", 20).await?;
    phone.wait("#tournament-login", 5).await?;
    let fits = phone
        .eval("return document.documentElement.scrollWidth <= innerWidth && document.querySelector('#bracket-host').scrollWidth > document.querySelector('#bracket-host').clientWidth;")
        .await?;
    assert_eq!(fits, json!(true), "the page itself does not scroll sideways; the bracket does");
    phone.full_page_screenshot("tournament-bracket-phone").await?;
    assert_no_page_errors(&phone).await?;
    phone.close().await?;
    desk.close().await?;
    server.stop().await
}
