//! The web front end in a real headless Chromium against the real server.
//!
//! Each test creates its games through the lobby form and moves the way a
//! person would (clicks, drags, taps, the keyboard, typed moves), then checks
//! what the page shows and saves screenshots to `target/browser-artifacts/`.
//! Where a test needs an opponent it joins the game through the invite link
//! with a plain HTTP request, as a second player's browser would.

use anyhow::{bail, Context, Result};
use fantoccini::key::Key;
use serde_json::Value;
use tabula_browser_tests::{Browser, TestServer};

/// Chromium is heavy and the machine small: one browser test at a time.
/// (Each test has its own runtime; tokio's mutex works across them.)
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const DESKTOP: (u32, u32) = (1280, 1000);
const PHONE: (u32, u32) = (390, 844);

/// Takes the one-browser-at-a-time lock, then starts a server and a
/// desktop-sized browser for one test.
async fn start_desktop() -> Result<(tokio::sync::MutexGuard<'static, ()>, TestServer, Browser)> {
    start_sized(DESKTOP).await
}

async fn start_sized(size: (u32, u32)) -> Result<(tokio::sync::MutexGuard<'static, ()>, TestServer, Browser)> {
    let guard = ONE_AT_A_TIME.lock().await;
    let server = TestServer::start().await?;
    let browser = Browser::start(size.0, size.1).await?;
    Ok((guard, server, browser))
}

/// Fills the lobby form and creates a game; returns the game id.
async fn create_game(
    b: &Browser,
    server: &TestServer,
    game: &str,
    opponent: &str,
    level: Option<&str>,
    options: &[(&str, &str)],
) -> Result<String> {
    create_timed_game(b, server, game, opponent, level, options, None).await
}

/// As [`create_game`], with a Fischer clock of (minutes, seconds per move).
async fn create_timed_game(
    b: &Browser,
    server: &TestServer,
    game: &str,
    opponent: &str,
    level: Option<&str>,
    options: &[(&str, &str)],
    fischer: Option<(&str, &str)>,
) -> Result<String> {
    b.goto(&server.url("/")).await?;
    b.wait("#new-game #game option[value='coldwar']", 20).await?;
    b.select("#game", game).await?;
    for (key, value) in options {
        b.set_field(&format!("#opt_{key}"), value).await?;
    }
    b.click(&format!("input[name=opponent][value={opponent}]")).await?;
    if let Some(level) = level {
        b.select("#level", level).await?;
    }
    b.select("#side", "0").await?;
    if let Some((base_min, inc_s)) = fischer {
        b.select("#time-control", "fischer").await?;
        for (name, value) in [("base_min", base_min), ("inc_s", inc_s)] {
            b.fill(&format!("input[name={name}]"), value).await?;
        }
    }
    b.click("#create-game").await?;
    b.wait(&format!(".game-page[data-game={game}]"), 20).await?;
    let id = b.eval("return document.querySelector('.game-page').dataset.gameId;").await?;
    Ok(id.as_str().unwrap_or_default().to_string())
}

/// Joins the open seat of game `id` through its invite (as the friend's
/// browser would) and returns that seat's token; the page keeps only its own.
async fn join_as_opponent(b: &Browser, id: &str) -> Result<String> {
    let token = b
        .eval_async(&format!(
            "const inv = JSON.parse(localStorage.getItem('tabula.invites.{id}'))[0];
             fetch('/api/games/{id}/join', {{method: 'POST', headers: {{'content-type': 'application/json'}},
               body: JSON.stringify({{invite: inv.code, name: 'Friend'}})}})
               .then(r => r.json()).then(j => done(j.token || JSON.stringify(j)));"
        ))
        .await?;
    let token = token.as_str().unwrap_or_default().to_string();
    if token.contains('{') || token.is_empty() {
        bail!("joining {id} failed: {token}");
    }
    Ok(token)
}

/// The opponent (holding `token`) plays `mv` over HTTP.
async fn opponent_move(b: &Browser, id: &str, token: &str, mv: &str) -> Result<()> {
    let answer = b
        .eval_async(&format!(
            "fetch('/api/games/{id}/move', {{method: 'POST', headers: {{'content-type': 'application/json'}},
               body: JSON.stringify({{token: '{token}', move: '{mv}'}})}})
               .then(async r => done(r.ok ? 'ok' : await r.text()));"
        ))
        .await?;
    if answer != "ok" {
        bail!("the opponent's move {mv} was refused: {answer}");
    }
    Ok(())
}

/// The game object the page last received from the server.
async fn page_game(b: &Browser) -> Result<Value> {
    b.eval("return window.tabulaGame || null;").await
}

async fn plies(b: &Browser) -> Result<u64> {
    Ok(page_game(b).await?["state"]["plies"].as_u64().unwrap_or(0))
}

/// Waits until the page shows at least `n` plies.
async fn wait_plies(b: &Browser, n: u64, secs: u64) -> Result<()> {
    b.wait_js(&format!("window.tabulaGame && window.tabulaGame.state.plies >= {n}"), secs).await?;
    Ok(())
}

/// The centre of a square of a square board, in viewport pixels.
async fn square_xy(b: &Browser, square: &str) -> Result<(f64, f64)> {
    let v = b
        .eval(&format!(
            "const r = document.querySelector('[data-square={square}] rect.cell').getBoundingClientRect();
             return [r.left + r.width / 2, r.top + r.height / 2];"
        ))
        .await?;
    Ok((v[0].as_f64().context("x")?, v[1].as_f64().context("y")?))
}

/// Where a Dots point is on the screen (brought into view first).
async fn point_xy(b: &Browser, point: &str) -> Result<(f64, f64)> {
    let v = b
        .eval(&format!(
            "const board = document.querySelector('.board-wrap').tabulaBoard;
             let [x, y] = board.clientPoint('{point}');
             if (y < 0 || y > innerHeight) {{ board.viewport.scrollIntoView({{block: 'center'}}); [x, y] = board.clientPoint('{point}'); }}
             return [x, y];"
        ))
        .await?;
    Ok((v[0].as_f64().context("x")?, v[1].as_f64().context("y")?))
}

/// Makes `mv` by clicking the board the way a person would.
async fn click_move(b: &Browser, game: &str, mv: &str) -> Result<()> {
    let before = plies(b).await?;
    match game {
        "dots" => {
            let (x, y) = point_xy(b, mv).await?;
            b.click_at(x, y).await?;
        }
        "coldwar" => {
            let squares: Vec<&str> = mv.split(['-', 'x', '>']).collect();
            if squares.len() == 1 {
                let sq = squares[0];
                // An own base that can also move needs a click to select it
                // and a second click to bolster it.
                let el = b.wait(&format!("[data-square={sq}]"), 5).await?;
                let is_source = el.attr("class").await?.unwrap_or_default().contains("source");
                el.click().await?;
                if is_source {
                    b.wait(&format!("[data-square={sq}].selected"), 5).await?;
                    b.click(&format!("[data-square={sq}]")).await?;
                }
            } else {
                b.click(&format!("[data-square={}]", squares[0])).await?;
                b.wait(&format!("[data-square={}].target", squares[1]), 5).await?;
                b.click(&format!("[data-square={}]", squares[1])).await?;
                if b.client.find(fantoccini::Locator::Css("#choice-dialog")).await.is_ok() {
                    b.click(&format!("#choice-dialog button[data-value='{mv}']")).await?;
                }
            }
        }
        "cordots" | "cumisitha" => {
            let from = &mv[0..2];
            let to = if game == "cordots" { &mv[3..5] } else { &mv[2..4] };
            b.click(&format!("[data-square={from}]")).await?;
            b.wait(&format!("[data-square={to}].target"), 5).await?;
            b.click(&format!("[data-square={to}]")).await?;
        }
        other => bail!("no clicking recipe for {other}"),
    }
    // A move that opens a dialog (promotion, sacrifice) finishes in the dialog.
    let asks = mv.contains('=') || (game == "cumisitha" && mv.len() == 5);
    if !asks {
        wait_plies(b, before + 1, 30).await?;
    }
    Ok(())
}

/// A simple greedy player for Cold War that reads the legal moves the page
/// was given: take squares, then hit smaller bases, then grow.
fn pick_coldwar_move(game: &Value) -> String {
    let legal: Vec<&str> = game["state"]["legal_moves"].as_array().unwrap().iter().filter_map(|m| m.as_str()).collect();
    let cells = game["view"]["cells"].as_array().unwrap();
    let count = |sq: &str| cells.iter().find(|c| c["square"] == sq).and_then(|c| c["count"].as_u64()).unwrap_or(0);
    let owner =
        |sq: &str| cells.iter().find(|c| c["square"] == sq).and_then(|c| c["owner"].as_str().map(str::to_string));
    // Conquer when possible, otherwise spread, build bases up to three
    // (to conquer with later) and only attack bases smaller than ours.
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
        match owner(m) {
            None => 50,
            Some(_) => 30 + count(m) as i64,
        }
    };
    legal.iter().max_by_key(|m| score(m)).expect("a legal move").to_string()
}

/// Plays Cold War against the AI with `play_one` making X's moves, to the end.
async fn play_coldwar_to_the_end<F, Fut>(b: &Browser, mut play_one: F) -> Result<Value>
where
    F: FnMut(String) -> Fut,
    Fut: std::future::Future<Output = Result<()>>,
{
    for _ in 0..1200 {
        let game = page_game(b).await?;
        if !game["result"].is_null() {
            return Ok(game);
        }
        let plies_now = game["state"]["plies"].as_u64().unwrap_or(0);
        if game["state"]["to_move"] != "x" {
            b.wait_js(&format!("window.tabulaGame.result || window.tabulaGame.state.plies > {plies_now}"), 30).await?;
            continue;
        }
        play_one(pick_coldwar_move(&game)).await?;
        b.wait_js(&format!("window.tabulaGame.result || window.tabulaGame.state.plies > {plies_now}"), 30).await?;
    }
    bail!("the Cold War game did not end")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coldwar_full_game_against_the_ai_by_clicking() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    b.goto(&server.url("/")).await?;
    b.wait("#live-games", 20).await?;
    b.screenshot("lobby").await?;
    let id = create_game(&b, &server, "coldwar", "ai", Some("random"), &[]).await?;
    let game = play_coldwar_to_the_end(&b, |mv| {
        let b = &b;
        async move { click_move(b, "coldwar", &mv).await }
    })
    .await?;
    let banner = b.wait("#result-banner:not([hidden])", 30).await?;
    let text = banner.text().await?;
    let reason = game["result"]["reason"].as_str().unwrap_or_default().to_string();
    assert!(!reason.is_empty(), "the result has a reason: {game}");
    let shown = format!("{}{}", reason[..1].to_uppercase(), &reason[1..]);
    assert!(text.contains(&shown), "the banner `{text}` shows the reason `{shown}`, capitalised");
    assert!(text.contains("wins") || text.contains("Draw"), "the banner names the result: {text}");
    let moves = b.client.find_all(fantoccini::Locator::Css("#move-list .move")).await?;
    assert_eq!(moves.len() as u64, game["state"]["plies"].as_u64().unwrap(), "one move-list entry per ply");
    let sounds = b.eval("return window.tabulaSounds.map(s => s.name);").await?;
    assert!(sounds.as_array().unwrap().iter().any(|s| s == "end"), "the end of the game sounds: {sounds}");
    b.screenshot("coldwar-game-over").await?;

    // The lobby lists it among the finished games, with readable names.
    b.goto(&server.url("/")).await?;
    let item = b.wait(&format!("#finished-games li[data-game-id='{id}']"), 20).await?;
    let line = item.text().await?;
    assert!(line.contains("Player vs") && line.contains("AI (random)"), "the finished game reads well: {line}");
    assert!(!line.contains("X: x"), "no 'X: x' in {line}");

    // The replay page steps back through the same game.
    b.goto(&server.url(&format!("/replay/{id}"))).await?;
    b.wait(".replay-page svg.coldwar-board", 20).await?;
    b.click("#replay-start").await?;
    b.wait_js("document.querySelector('#replay-ply').textContent.startsWith('0 /')", 10).await?;
    b.wait_js("document.querySelectorAll('[data-owner=x],[data-owner=o]').length === 0", 10).await?;
    b.click("#replay-next").await?;
    b.wait_js("document.querySelectorAll('[data-owner=x]').length === 1", 10).await?;
    b.screenshot("coldwar-replay").await?;
    let export = b.wait("#export", 5).await?.attr("href").await?.unwrap_or_default();
    assert!(export.ends_with(&format!("/api/games/{id}/export")), "export link: {export}");
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dots_capture_by_clicking_shades_territory_and_scores() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    create_game(&b, &server, "dots", "hotseat", None, &[("format", "express")]).await?;
    b.wait("svg.dots-board .dot", 10).await?;
    assert_eq!(b.eval("return document.querySelectorAll('svg.dots-board .dot').length;").await?, 4, "the cross");
    assert_eq!(b.text("#game-info").await?, "Move 0 of 240", "the Express format's move counter");
    assert_eq!(
        b.eval("return document.querySelectorAll('svg.dots-board .ungrounded-mark').length;").await?,
        4,
        "the cross's dots are drawn as not grounded"
    );
    assert_eq!(b.text(".player-blue .score").await?, "0");
    // Blue surrounds the red dot at 10-10 on its four sides.
    for mv in ["10-11", "10-10", "9-10", "30-30", "11-10", "30-28", "10-9"] {
        click_move(&b, "dots", mv).await?;
    }
    b.wait("path.territory-blue", 10).await?;
    assert_eq!(b.text("#game-info").await?, "Move 7 of 240");
    assert_eq!(b.text(".player-blue .score").await?, "1", "blue's score after the capture");
    assert_eq!(b.text(".player-red .score").await?, "0");
    let captured =
        b.eval("return document.querySelector(\"circle.dot.captured[data-point='10-10']\") !== null;").await?;
    assert_eq!(captured, true, "the red dot is drawn as captured");
    let last = b.text("#move-list .move[data-ply='7']").await?;
    assert!(last.contains("10-9") && last.contains("1:0"), "the move list shows the move and score: {last}");
    b.screenshot("dots-capture").await?;

    // Flipping turns the lattice round: 10-10 moves from the lower left to the upper right.
    let where_is = "const c = document.querySelector(\"circle.dot[data-point='10-10']\"); return [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))];";
    let before = b.eval(where_is).await?;
    b.click("#flip").await?;
    let after = b.eval(where_is).await?;
    assert!(
        after[0].as_f64() > before[0].as_f64() && after[1].as_f64() < before[1].as_f64(),
        "flip: {before} -> {after}"
    );
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dots_is_not_turned_round_for_red() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    b.goto(&server.url("/")).await?;
    b.select("#game", "dots").await?;
    b.click("input[name=opponent][value=ai]").await?;
    b.select("#level", "random").await?;
    b.select("#side", "1").await?;
    b.click("#create-game").await?;
    b.wait("svg.dots-board .dot", 20).await?;
    b.wait_js("window.tabulaGame && window.tabulaGame.state.plies >= 1", 20).await?;
    // Red's own bar is under the board, but the lattice keeps x to the right and y up.
    assert!(b.text(".bar-bottom .player-bar").await?.contains("Red"), "Red's bar at the bottom");
    let x = |p: &str| format!("Number(document.querySelector(\"circle.dot[data-point='{p}']\").getAttribute('cx'))");
    let y = |p: &str| format!("Number(document.querySelector(\"circle.dot[data-point='{p}']\").getAttribute('cy'))");
    let upright =
        b.eval(&format!("return {} < {} && {} > {};", x("20-16"), x("21-16"), y("20-16"), y("20-17"))).await?;
    assert_eq!(upright, true, "the cross is drawn the right way up for Red");
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cumisitha_move_and_promotion_through_the_dialog() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    create_game(&b, &server, "cumisitha", "hotseat", None, &[]).await?;
    b.wait("svg.cumisitha-board [data-square=e2][data-piece=P]", 10).await?;
    for mv in ["b2b4", "a7a5", "b4a5", "h7h6", "a5a6", "h6h5", "a6b7", "g7g6"] {
        click_move(&b, "cumisitha", mv).await?;
    }
    assert!(b.text("#move-list").await?.contains("axb7"), "the move list speaks SAN");
    // Material: White has taken two pawns.
    let material = b.wait(".player-white .material", 5).await?.attr("aria-label").await?.unwrap_or_default();
    assert!(material.contains("2 pawns") && material.contains("+2"), "white's captured material: {material}");
    // b7xa8: four promotions, so the page asks which piece.
    click_move(&b, "cumisitha", "b7a8n").await?;
    let dialog = b.wait("#promotion-dialog[open]", 5).await?;
    let choices = b.client.find_all(fantoccini::Locator::Css("#promotion-dialog button.choice")).await?;
    assert_eq!(choices.len(), 4, "queen, rook, bishop, knight");
    b.screenshot("cumisitha-promotion-dialog").await?;
    dialog.find(fantoccini::Locator::Css("button[data-value=b7a8n]")).await?.click().await?;
    wait_plies(&b, 9, 10).await?;
    b.wait("[data-square=a8][data-piece=N]", 10).await?;
    b.screenshot("cumisitha-after-promotion").await?;

    // After a reload the move list still speaks SAN, numbered in pairs.
    b.client.refresh().await?;
    b.wait("svg.cumisitha-board [data-square=a8][data-piece=N]", 10).await?;
    b.wait_js("document.querySelector('#move-list').textContent.includes('bxa8=N')", 10).await?;
    assert_eq!(b.text("#move-list .move[data-ply='1'] .move-text").await?, "b4", "SAN from the first move on");
    let first_row = b.text("#move-list li:first-child").await?;
    assert!(
        first_row.starts_with("1.") && first_row.contains("b4") && first_row.contains("a5"),
        "1. b4 a5: {first_row}"
    );
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cordots_capture_by_clicking_under_one_competitive_clock() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    // The mode alone sets a Cordots clock: the lobby hides the time-control
    // picker in every mode and says what the mode means.
    b.goto(&server.url("/")).await?;
    b.select("#game", "cordots").await?;
    b.select("#opt_mode", "competitive").await?;
    b.wait_js("document.querySelector('#time-control-set').hidden", 5).await?;
    b.wait_js("document.querySelector('#clock-note').textContent.includes('brings its own clock')", 5).await?;
    b.select("#opt_mode", "untimed").await?;
    b.wait_js("document.querySelector('#time-control-set').hidden", 5).await?;
    b.wait_js("document.querySelector('#clock-note').textContent.includes('without a clock')", 5).await?;
    // Another game keeps the picker.
    b.select("#game", "dots").await?;
    b.wait_js("!document.querySelector('#time-control-set').hidden", 5).await?;
    b.select("#game", "cordots").await?;
    create_game(&b, &server, "cordots", "hotseat", None, &[("mode", "competitive"), ("minutes", "20")]).await?;
    b.wait("svg.cordots-board [data-square=a1][data-piece=white-capturer]", 10).await?;
    let game = page_game(&b).await?;
    assert_eq!(game["clock"]["shared"], true, "a shared match clock: {}", game["clock"]);
    // One clock on the page, not one per player.
    let shown = b
        .eval("return [...document.querySelectorAll('.clock')].filter(c => c.textContent && c.offsetParent).map(c => c.textContent);")
        .await?;
    assert_eq!(shown.as_array().map(Vec::len), Some(1), "exactly one clock is shown: {shown}");
    let clock = b.text("[data-clock=match]").await?;
    // Within a minute of the start: a loaded machine may take seconds to get here.
    assert!(clock.starts_with("20:00") || clock.starts_with("19:"), "match clock: {clock}");
    b.wait("svg.cordots-board [data-square=a2][data-piece=white-victim]", 10).await?;
    let moves = ["a2-a3", "b7-b6", "a3-a4", "b6-b5", "c2-c3", "h7-h6", "c3-c4", "h6-h5", "a4-a5", "h5-h4"];
    for mv in moves {
        click_move(&b, "cordots", mv).await?;
    }
    // It is styled as running exactly when the server runs it.
    let running = page_game(&b).await?["clock"]["running"].as_str().is_some();
    b.wait_js(&format!("document.querySelector('#match-clock').classList.contains('running') === {running}"), 5)
        .await?;
    b.wait("[data-square=b5][data-piece=black-victim]", 5).await?;
    // c4-c5 closes the sandwich a5 · b5 · c5.
    click_move(&b, "cordots", "c4-c5").await?;
    b.wait("[data-square=b5].removed[data-piece='']", 10).await?;
    let game = page_game(&b).await?;
    assert_eq!(game["view"]["counts"]["black"]["victims"], 7, "black lost a Victim: {}", game["view"]["counts"]);
    b.screenshot("cordots-capture").await?;
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cordots_back_row_sacrifice_through_the_dialog() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    create_game(&b, &server, "cordots", "hotseat", None, &[]).await?;
    // Black clears the h-file and waits with pieces on f5 and h5; White's
    // Capturer steps in between them on g5 and dies (to White's reserve);
    // then White's h-pawn Victim walks up to h8.
    let moves = [
        "a2-a3", "h7-h6", "g2-g3", "h6-g6", "g3-f3", "h8-h7", "g1-g2", "h7-h6", "g2-g3", "h6-h5", "g3-g4", "f7-f6",
        "a3-a4", "f6-f5", "g4-g5", "h5-g5", "h2-h3", "a7-a6", "h3-h4", "b7-b6", "h4-h5", "c7-c6", "h5-h6", "d7-d6",
        "h6-h7", "e7-e6",
    ];
    for mv in moves {
        click_move(&b, "cordots", mv).await?;
    }
    b.wait(".reserve-white[data-reserve='1']", 5).await?;
    click_move(&b, "cordots", "h7-h8=b2").await?;
    let dialog = b.wait("#sacrifice-dialog[open]", 5).await?;
    let choices = b.client.find_all(fantoccini::Locator::Css("#sacrifice-dialog button.choice")).await?;
    assert_eq!(choices.len(), 7, "one choice per White Victim on the board");
    b.wait("[data-square=b2].candidate", 5).await?;
    b.screenshot("cordots-sacrifice-dialog").await?;
    dialog.find(fantoccini::Locator::Css("button[data-value='h7-h8=b2']")).await?.click().await?;
    wait_plies(&b, moves.len() as u64 + 1, 10).await?;
    b.wait("[data-square=b2][data-piece=white-capturer]", 10).await?;
    b.wait("[data-square=h8][data-piece='']", 5).await?;
    b.wait(".reserve-white[data-reserve='0']", 5).await?;
    b.screenshot("cordots-after-sacrifice").await?;
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_browsers_play_through_an_invite_link() -> Result<()> {
    let (_guard, server, host) = start_desktop().await?;
    host.goto(&server.url("/")).await?;
    host.eval("localStorage.setItem('tabula.name', 'Ann'); return true;").await?;
    let id = create_timed_game(&host, &server, "coldwar", "invite", None, &[], Some(("5", "2"))).await?;
    let link = host.wait("#invite-link", 10).await?.prop("value").await?.unwrap_or_default();
    assert!(link.contains(&format!("/game/{id}?invite=")), "invite link: {link}");
    assert!(host.text("#status-line").await?.contains("Waiting"), "the host waits for the friend");
    let dots = host.eval("return document.querySelectorAll('.turn-dot').length;").await?;
    assert_eq!(dots, 0, "nobody is shown to move in a waiting game");
    host.screenshot("invite-waiting").await?;

    let guest = Browser::start(PHONE.0, PHONE.1).await?;
    guest.goto(&server.url("/")).await?;
    guest.eval("localStorage.setItem('tabula.name', 'Bob'); return true;").await?;
    guest.goto(&link).await?;
    guest.wait(".game-page[data-game=coldwar] svg.coldwar-board", 20).await?;
    guest.wait_js("window.tabulaGame && window.tabulaGame.seats.every(s => s.joined)", 10).await?;
    assert!(guest.text(".player-o").await?.contains("Bob (you)"), "the guest plays O, under its name");
    assert!(guest.text(".player-x").await?.contains("Ann"), "the host's name");
    host.wait_js("window.tabulaGame.status === 'live'", 10).await?;

    click_move(&host, "coldwar", "b2").await?;
    guest.wait("[data-square=b2][data-owner=x]", 10).await?;
    guest.wait_js("document.querySelector('#status-line').textContent.includes('Your move')", 10).await?;
    click_move(&guest, "coldwar", "a1").await?;
    host.wait("[data-square=a1][data-owner=o]", 10).await?;
    click_move(&host, "coldwar", "b2-b3").await?;
    guest.wait("[data-square=b3][data-owner=x]", 10).await?;
    // The clocks run: O's is ticking down from 5:00 (+2 s for its move).
    let first = guest.text("[data-clock=o]").await?;
    assert!(first.starts_with("5:0") || first.starts_with("4:5"), "O's clock: {first}");
    guest.wait_js(&format!("document.querySelector('[data-clock=o]').textContent !== '{first}'"), 5).await?;
    guest.screenshot("invite-guest-phone").await?;
    host.screenshot("invite-host").await?;

    // A draw offer reaches the other browser, which declines it; the host learns so.
    host.click("#offer-draw").await?;
    guest.click("#decline-draw").await?;
    guest.wait_js("window.tabulaGame.draw_offer === null", 10).await?;
    host.wait_js("window.tabulaGame.draw_offer === null", 10).await?;
    let declined = host.wait("#draw-declined", 10).await?.text().await?;
    assert!(declined.contains("declined"), "the host sees the decline: {declined}");

    // The guest resigns; both see the banner.
    guest.eval("window.confirm = () => true; return true;").await?;
    guest.click("#resign").await?;
    for b in [&host, &guest] {
        let text = b.wait("#result-banner:not([hidden])", 10).await?.text().await?;
        assert!(text.contains("X wins") && text.contains("Resigned") || text.contains("resigned"), "banner: {text}");
    }

    // A rematch with colours swapped: the host now plays O, the guest follows the link.
    host.click("#rematch").await?;
    host.wait_js(&format!("window.tabulaGame && window.tabulaGame.id !== '{id}'"), 10).await?;
    // The rematch swaps the colours and keeps the names: X is Bob now, O is Ann.
    let (host_o, host_x) = (host.text(".player-o").await?, host.text(".player-x").await?);
    assert!(host_o.contains("Ann (you)"), "the host plays O in the rematch: {host_o}");
    assert!(host_x.contains("Bob") && !host_x.contains("(you)"), "the guest plays X in the rematch: {host_x}");
    guest.click("#rematch-link").await?;
    guest.wait_js(&format!("window.tabulaGame && window.tabulaGame.id !== '{id}'"), 10).await?;
    let (guest_x, guest_o) = (guest.text(".player-x").await?, guest.text(".player-o").await?);
    assert!(
        guest_x.contains("Bob (you)") && guest_o.contains("Ann"),
        "the guest's view of the rematch: {guest_x} / {guest_o}"
    );
    guest.wait_js("document.querySelector('#status-line').textContent.includes('Your move')", 10).await?;
    click_move(&guest, "coldwar", "c3").await?;
    host.wait("[data-square=c3][data-owner=x]", 10).await?;

    // The lobby on the phone lists the live rematch.
    guest.goto(&server.url("/")).await?;
    guest.wait("#live-games li[data-game-id]", 20).await?;
    guest.full_page_screenshot("lobby-phone").await?;
    guest.close().await?;
    host.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_clock_runs_before_both_first_moves() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    let id = create_timed_game(&b, &server, "cumisitha", "invite", None, &[], Some(("0.5", "0"))).await?;
    let black = join_as_opponent(&b, &id).await?;
    b.wait_js("window.tabulaGame.status === 'live'", 10).await?;
    // Ply 0: no clock runs, so no flag can fall; the page says how long the first move may take.
    let clock = page_game(&b).await?["clock"].clone();
    assert!(clock["running"].is_null(), "no clock runs at ply 0: {clock}");
    assert_eq!(
        b.eval("return document.querySelectorAll('.clock.running').length;").await?,
        0,
        "no clock shown running"
    );
    let note = b.wait("#first-move:not([hidden])", 5).await?.text().await?;
    assert!(note.contains("first move"), "the first-move countdown: {note}");
    b.wait("#abort", 5).await?;
    click_move(&b, "cumisitha", "e2e4").await?;
    // Ply 1: Black has not moved yet, still no clock.
    assert!(page_game(&b).await?["clock"]["running"].is_null(), "no clock runs at ply 1");
    assert_eq!(b.eval("return document.querySelectorAll('.clock.running').length;").await?, 0);
    opponent_move(&b, &id, &black, "e7e5").await?;
    wait_plies(&b, 2, 10).await?;
    // Both have moved: White's clock runs now, and is shown running.
    b.wait_js("window.tabulaGame.clock.running === 'white'", 5).await?;
    b.wait("[data-clock=white].running", 5).await?;
    b.wait("#first-move[hidden]", 5).await?;
    assert!(b.client.find(fantoccini::Locator::Css("#abort")).await.is_err(), "no abort after both first moves");
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drag_move_with_the_mouse_and_with_a_finger() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    create_game(&b, &server, "cumisitha", "hotseat", None, &[]).await?;
    b.wait("svg.cumisitha-board [data-square=e2][data-piece=P]", 10).await?;
    // The mouse drags the e-pawn two squares.
    let (from, to) = (square_xy(&b, "e2").await?, square_xy(&b, "e4").await?);
    b.mouse_drag(from, to).await?;
    wait_plies(&b, 1, 10).await?;
    b.wait("[data-square=e4][data-piece=P]", 5).await?;
    assert_eq!(page_game(&b).await?["moves"][0]["move"], "e2e4");
    // A finger drags Black's knight.
    let (from, to) = (square_xy(&b, "g8").await?, square_xy(&b, "f6").await?);
    b.touch_drag(from, to).await?;
    wait_plies(&b, 2, 10).await?;
    b.wait("[data-square=f6][data-piece=n]", 5).await?;
    // A drag onto a square the piece cannot reach plays nothing.
    let (from, to) = (square_xy(&b, "d2").await?, square_xy(&b, "d5").await?);
    b.mouse_drag(from, to).await?;
    b.wait("[data-square=d2][data-piece=P]", 5).await?;
    assert_eq!(plies(&b).await?, 2, "an impossible drop is no move");
    let sounds = b.eval("return window.tabulaSounds.map(s => s.name);").await?;
    assert!(sounds.as_array().unwrap().iter().filter(|s| *s == "move").count() >= 2, "moves sound: {sounds}");
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_premove_is_played_when_the_turn_arrives() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    let id = create_game(&b, &server, "cumisitha", "invite", None, &[]).await?;
    let black = join_as_opponent(&b, &id).await?;
    b.wait_js("window.tabulaGame.status === 'live'", 10).await?;
    b.wait_js("document.title.startsWith('● Your move')", 5).await?;
    b.wait_js("document.querySelector('link[rel=icon]').href.startsWith('data:image/svg+xml')", 5).await?;
    click_move(&b, "cumisitha", "e2e4").await?;
    b.wait_js("!document.title.startsWith('● Your move')", 5).await?;
    b.wait_js("document.querySelector('link[rel=icon]').href.endsWith('/favicon.svg')", 5).await?;
    // Black to move: White premoves d2-d4 by clicking.
    b.click("[data-square=d2]").await?;
    b.wait("[data-square=d4].premove-target", 5).await?;
    b.click("[data-square=d4]").await?;
    b.wait("[data-square=d2].premove", 5).await?;
    b.wait("[data-square=d4].premove", 5).await?;
    assert_eq!(plies(&b).await?, 1, "a premove waits for its turn");
    b.screenshot("premove-set").await?;
    opponent_move(&b, &id, &black, "e7e5").await?;
    wait_plies(&b, 3, 10).await?;
    let game = page_game(&b).await?;
    assert_eq!(game["moves"][2]["move"], "d2d4", "the premove was played on arrival: {}", game["moves"]);
    assert_eq!(b.eval("return document.querySelectorAll('.square.premove').length;").await?, 0);

    // A premove that is illegal when the turn comes is dropped.
    b.click("[data-square=d4]").await?;
    b.click("[data-square=d5]").await?;
    b.wait("[data-square=d5].premove", 5).await?;
    opponent_move(&b, &id, &black, "d7d5").await?; // d5 is now taken: d4-d5 is not legal
    wait_plies(&b, 4, 10).await?;
    b.wait_js("document.querySelectorAll('.square.premove').length === 0", 5).await?;
    assert_eq!(plies(&b).await?, 4, "the illegal premove was not played");
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_moves_in_each_games_notation() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    let typed = |text: &'static str| {
        let b = &b;
        async move {
            let input = b.wait("#move-input:not([disabled])", 10).await?;
            input.clear().await?;
            input.send_keys(&format!("{text}\n")).await?;
            Ok::<(), anyhow::Error>(())
        }
    };
    // Cumisitha reads SAN (and UCI).
    create_game(&b, &server, "cumisitha", "hotseat", None, &[]).await?;
    typed("Nf3").await?;
    wait_plies(&b, 1, 10).await?;
    typed("e7e5").await?;
    wait_plies(&b, 2, 10).await?;
    typed("Qh5").await?;
    let error = b.wait("#move-input-error", 5).await?;
    b.wait_js("document.querySelector('#move-input-error').textContent.includes('not a legal move')", 5).await?;
    assert!(error.text().await?.contains("Qh5"), "the error names what was typed");
    typed("e4").await?;
    wait_plies(&b, 3, 10).await?;
    let game = page_game(&b).await?;
    let moves: Vec<&str> = game["moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap()).collect();
    assert_eq!(moves, ["g1f3", "e7e5", "e2e4"]);
    assert_eq!(b.text("#move-input-error").await.unwrap_or_default(), "", "the error clears after a good move");
    // Cold War, Cordots and Dots read their own notations.
    for (game, first, second) in [("coldwar", "b2", "a1"), ("cordots", "a2-a3", "h7 h6"), ("dots", "10-10", "11 12")] {
        create_game(&b, &server, game, "hotseat", None, &[]).await?;
        typed(first).await?;
        wait_plies(&b, 1, 10).await?;
        typed(second).await?;
        wait_plies(&b, 2, 10).await?;
        let moves = page_game(&b).await?["moves"].clone();
        assert_eq!(moves[0]["move"], first, "{game}: {moves}");
        assert_eq!(moves[1]["move"], second.replace(' ', "-"), "{game}: {moves}");
    }
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coldwar_by_keyboard_only_against_the_ai() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    create_game(&b, &server, "coldwar", "ai", Some("random"), &[]).await?;
    b.wait("svg.coldwar-board", 10).await?;
    // Tab to the board, as someone without a mouse would.
    b.eval("document.activeElement && document.activeElement.blur(); return true;").await?;
    let mut reached = false;
    for _ in 0..40 {
        b.keys(&String::from(char::from(Key::Tab))).await?;
        if b.eval("return document.activeElement.classList.contains('board-wrap');").await? == true {
            reached = true;
            break;
        }
    }
    assert!(reached, "the board is reachable with Tab");
    let label = b.eval("return document.activeElement.getAttribute('aria-label');").await?;
    assert!(label.as_str().unwrap_or_default().contains("Cold War"), "the board has a label: {label}");

    let key = |k: Key| String::from(char::from(k));
    let go_to = |square: String| {
        let b = &b;
        async move {
            let cursor = b.eval("return document.activeElement.dataset.cursor;").await?;
            let cursor = cursor.as_str().unwrap_or_default().to_string();
            let (cf, cr) =
                if cursor.is_empty() { (None, None) } else { (Some(cursor.as_bytes()[0]), Some(cursor.as_bytes()[1])) };
            let mut presses = String::new();
            match (cf, cr) {
                (Some(f), Some(r)) => {
                    let (tf, tr) = (square.as_bytes()[0], square.as_bytes()[1]);
                    let (df, dr) = (i32::from(tf) - i32::from(f), i32::from(tr) - i32::from(r));
                    let horizontal = if df > 0 { Key::Right } else { Key::Left };
                    let vertical = if dr > 0 { Key::Up } else { Key::Down };
                    for _ in 0..df.abs() {
                        presses.push(char::from(horizontal));
                    }
                    for _ in 0..dr.abs() {
                        presses.push(char::from(vertical));
                    }
                }
                _ => bail!("no keyboard cursor on the board"),
            }
            if !presses.is_empty() {
                b.keys(&presses).await?;
            }
            b.wait_js(&format!("document.activeElement.dataset.cursor === '{square}'"), 5).await?;
            Ok(())
        }
    };
    // The first arrow press shows the cursor.
    b.keys(&key(Key::Right)).await?;
    b.wait_js("document.activeElement.dataset.cursor", 5).await?;
    let announced = b.eval("return document.querySelector('.board-wrap [aria-live]').textContent;").await?;
    assert!(!announced.as_str().unwrap_or_default().is_empty(), "the cursor's square is announced");

    let game = play_coldwar_to_the_end(&b, |mv| {
        let b = &b;
        let key = &key;
        let go_to = &go_to;
        async move {
            let squares: Vec<String> = mv.split(['-', 'x', '>']).map(str::to_string).collect();
            go_to(squares[0].clone()).await?;
            b.keys(&key(Key::Enter)).await?;
            if squares.len() == 1 {
                // An own base that can also move is selected first; Enter again bolsters it.
                let selected = b.eval(&format!("return !!document.querySelector('[data-square={}].selected');", squares[0])).await?;
                if selected == true {
                    b.keys(&key(Key::Enter)).await?;
                }
                return Ok(());
            }
            b.wait(&format!("[data-square={}].selected", squares[0]), 5).await?;
            go_to(squares[1].clone()).await?;
            b.keys(&key(Key::Enter)).await?;
            if mv.contains('x') || mv.contains('>') {
                // Attack or conquer may be asked in a dialog: Tab to the choice, Enter.
                let asked = b.eval("return !!document.querySelector('#choice-dialog[open]');").await?;
                if asked == true {
                    let index = b
                        .eval(&format!("return [...document.querySelectorAll('#choice-dialog button.choice')].findIndex(x => x.dataset.value === '{mv}');"))
                        .await?;
                    let mut presses = String::new();
                    for _ in 0..index.as_u64().unwrap_or(0) {
                        presses.push(char::from(Key::Tab));
                    }
                    presses.push(char::from(Key::Enter));
                    b.keys(&presses).await?;
                    // The dialog hands the focus back to the board.
                    b.wait_js("document.activeElement.classList.contains('board-wrap')", 5).await?;
                }
            }
            Ok(())
        }
    })
    .await?;
    assert!(!game["result"].is_null(), "the game ended: {}", game["result"]);
    b.wait("#result-banner:not([hidden])", 10).await?;
    b.screenshot("coldwar-keyboard-over").await?;
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dots_on_a_phone_zoom_preview_and_confirm_by_tapping() -> Result<()> {
    let (_guard, server, b) = start_sized(PHONE).await?;
    create_game(&b, &server, "dots", "hotseat", None, &[]).await?;
    b.wait("svg.dots-board .dot", 10).await?;
    let cell = || async {
        Ok::<f64, anyhow::Error>(
            b.eval("return Number(document.querySelector('.board-wrap').tabulaBoard.cellPx());")
                .await?
                .as_f64()
                .unwrap_or(0.0),
        )
    };
    assert!(cell().await? < 24.0, "the whole 39×32 board fits the phone, points closer than 24 px");
    assert_eq!(
        b.eval("return document.querySelectorAll('svg.dots-board .hit').length;").await?,
        0,
        "no small hit targets"
    );

    // A tap while the points are too close only zooms in, around the tap.
    let (x, y) = point_xy(&b, "12-12").await?;
    b.tap_at(x, y).await?;
    b.wait_js("Number(document.querySelector('.board-wrap').dataset.zoom) > 1", 5).await?;
    assert!(cell().await? >= 24.0, "zoomed so that every tap target is at least 24 px: {}", cell().await?);
    assert_eq!(plies(&b).await?, 0, "zooming plays nothing");
    b.screenshot("dots-phone-zoomed").await?;

    // A tap previews the point; a second tap on it plays it.
    let (x, y) = point_xy(&b, "12-12").await?;
    b.tap_at(x, y).await?;
    b.wait_js("document.querySelector('.board-wrap').dataset.preview === '12-12'", 5).await?;
    b.wait("circle.ghost.preview[data-point='12-12']", 5).await?;
    assert_eq!(plies(&b).await?, 0, "a preview plays nothing");
    b.screenshot("dots-phone-preview").await?;
    b.tap_at(x, y).await?;
    wait_plies(&b, 1, 10).await?;
    assert_eq!(page_game(&b).await?["moves"][0]["move"], "12-12");

    // A tap on another point moves the preview; tapping elsewhere again does not play the first.
    let (x, y) = point_xy(&b, "13-12").await?;
    b.tap_at(x, y).await?;
    b.wait_js("document.querySelector('.board-wrap').dataset.preview === '13-12'", 5).await?;
    let (x2, y2) = point_xy(&b, "14-13").await?;
    b.tap_at(x2, y2).await?;
    b.wait_js("document.querySelector('.board-wrap').dataset.preview === '14-13'", 5).await?;
    assert_eq!(plies(&b).await?, 1);

    // Pinch out to zoom further, pan with one finger: neither plays anything.
    let before = b.eval("return Number(document.querySelector('.board-wrap').dataset.zoom);").await?.as_f64().unwrap();
    let centre = b.eval("const r = document.querySelector('.dots-viewport').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];").await?;
    let centre = (centre[0].as_f64().unwrap(), centre[1].as_f64().unwrap());
    b.pinch(centre, 60.0, 1.8).await?;
    b.wait_js(&format!("Number(document.querySelector('.board-wrap').dataset.zoom) > {before}"), 5).await?;
    let where_before = point_xy(&b, "14-13").await?;
    b.touch_drag((centre.0 + 40.0, centre.1), (centre.0 - 60.0, centre.1 + 20.0)).await?;
    let where_after = point_xy(&b, "14-13").await?;
    assert!(
        (where_before.0 - where_after.0).abs() > 30.0,
        "panning moved the board: {where_before:?} -> {where_after:?}"
    );
    assert_eq!(plies(&b).await?, 1, "pinching and panning play nothing");
    assert!(cell().await? >= 24.0);
    b.screenshot("dots-phone-pinched").await?;
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_offline_banner_comes_and_goes_with_the_server() -> Result<()> {
    let (_guard, mut server, b) = start_desktop().await?;
    let id = create_game(&b, &server, "cumisitha", "invite", None, &[]).await?;
    let _black = join_as_opponent(&b, &id).await?;
    b.wait_js("window.tabulaGame.status === 'live'", 10).await?;
    b.wait_js("document.querySelector('.game-page').dataset.connection === 'connected'", 10).await?;
    assert_eq!(b.eval("return document.querySelector('#offline-banner').hidden;").await?, true);

    server.pause().await?;
    b.wait("#offline-banner:not([hidden])", 10).await?;
    let status = b.text("#status-line").await?;
    assert!(status.contains("Offline"), "the status does not claim 'Your move' while offline: {status}");
    // A move made now waits as a premove, and says so.
    let banner = b.text("#offline-banner").await?;
    assert!(banner.contains("premove"), "the banner says what happens to moves: {banner}");
    b.click("[data-square=e2]").await?;
    b.click("[data-square=e4]").await?;
    b.wait("[data-square=e4].premove", 5).await?;
    // A button that needs the server says so, clearly.
    b.click("#offer-draw").await?;
    b.wait_js("document.querySelector('#notice').textContent.includes('offline')", 10).await?;
    b.screenshot("offline").await?;

    server.resume().await?;
    b.wait("#offline-banner[hidden]", 20).await?;
    wait_plies(&b, 1, 10).await?;
    assert_eq!(page_game(&b).await?["moves"][0]["move"], "e2e4", "the queued move was sent on reconnect");
    assert_eq!(b.text("#notice").await.unwrap_or_default(), "", "the error is cleared on reconnect");
    b.close().await?;
    server.stop().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browsing_the_moves_during_a_live_game() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    let id = create_game(&b, &server, "cumisitha", "invite", None, &[]).await?;
    let black = join_as_opponent(&b, &id).await?;
    b.wait_js("window.tabulaGame.status === 'live'", 10).await?;
    click_move(&b, "cumisitha", "e2e4").await?;
    opponent_move(&b, &id, &black, "e7e5").await?;
    wait_plies(&b, 2, 10).await?;
    click_move(&b, "cumisitha", "g1f3").await?;

    // Back to the position after 1. e4.
    b.click("#move-list .move[data-ply='1']").await?;
    b.wait("#history-note", 5).await?;
    b.wait("[data-square=e7][data-piece=p]", 10).await?;
    b.wait("[data-square=g1][data-piece=N]", 5).await?;
    // The arrow keys step on; the start is one step further back.
    b.keys(&String::from(char::from(Key::Left))).await?;
    b.wait("[data-square=e2][data-piece=P]", 10).await?;
    b.keys(&String::from(char::from(Key::Right))).await?;
    b.wait("[data-square=e4][data-piece=P]", 10).await?;

    // Black moves meanwhile: the list grows, the board stays where it is.
    opponent_move(&b, &id, &black, "b8c6").await?;
    wait_plies(&b, 4, 10).await?;
    b.wait("#move-list .move[data-ply='4']", 5).await?;
    b.wait("[data-square=b8][data-piece=n]", 5).await?;
    assert_eq!(
        b.eval("return document.querySelectorAll('.square.source').length;").await?,
        0,
        "no moves from the past"
    );
    b.screenshot("history-browsing").await?;

    // Back to the game: the live position, and it is White's move.
    b.click("#back-to-live").await?;
    b.wait("[data-square=c6][data-piece=n]", 10).await?;
    b.wait_js("document.querySelector('#history-note') === null", 5).await?;
    click_move(&b, "cumisitha", "f1c4").await?;
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn themes_and_sound_are_remembered() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    b.goto(&server.url("/")).await?;
    b.click("#settings-open").await?;
    b.wait("#settings-dialog[open]", 5)
        .await?
        .find(fantoccini::Locator::Css("#setting-theme"))
        .await?
        .select_by_value("dark")
        .await?;
    b.select("#setting-board", "green").await?;
    b.click("#settings-close").await?;
    b.click("#sound-toggle").await?;
    b.client.refresh().await?;
    b.wait("#new-game", 20).await?;
    let html = b.eval("const d = document.documentElement.dataset; return [d.theme, d.board, d.sound];").await?;
    assert_eq!(html, serde_json::json!(["dark", "green", "off"]), "remembered across a reload");
    let pressed = b.wait("#sound-toggle", 5).await?.attr("aria-pressed").await?;
    assert_eq!(pressed.as_deref(), Some("true"), "the mute switch shows it is on");
    b.screenshot("lobby-dark").await?;
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn how_to_play_pages_draw_their_examples() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    for game in ["coldwar", "cordots", "cumisitha", "dots"] {
        b.goto(&server.url(&format!("/howto/{game}"))).await?;
        b.wait(&format!(".howto[data-game={game}] .example svg"), 20).await?;
        let boards = b.eval("return document.querySelectorAll('.howto .example .board-wrap').length;").await?;
        assert!(boards.as_u64().unwrap_or(0) >= 2, "{game}: worked examples drawn ({boards})");
        b.full_page_screenshot(&format!("howto-{game}")).await?;
    }
    b.close().await
}

// ----- players: accounts, ratings, the lobby's challenges (issue 14) -----

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

/// Posts an open challenge (a seek) from the lobby form: `game` with a
/// Fischer clock, rated or casual, the poster playing the first side. Returns
/// the game id (the poster waits on its page).
async fn post_seek(b: &Browser, server: &TestServer, game: &str, rated: bool, fischer: (&str, &str)) -> Result<String> {
    b.goto(&server.url("/")).await?;
    b.wait("#new-game #game option[value='coldwar']", 20).await?;
    b.select("#game", game).await?;
    b.click("input[name=opponent][value=seek]").await?;
    b.wait("#rated:not([disabled])", 5).await?;
    let checked = b.eval("return document.querySelector('#rated').checked;").await? == true;
    if checked != rated {
        b.click("label[for=rated]").await?;
    }
    b.select("#side", "0").await?;
    b.select("#time-control", "fischer").await?;
    for (name, value) in [("base_min", fischer.0), ("inc_s", fischer.1)] {
        b.fill(&format!("input[name={name}]"), value).await?;
    }
    b.click("#create-game").await?;
    b.wait(&format!(".game-page[data-game={game}]"), 20).await?;
    let id = b.eval("return document.querySelector('.game-page').dataset.gameId;").await?;
    Ok(id.as_str().unwrap_or_default().to_string())
}

/// The Cold War move the weaker side picks: the greedy player's least liked.
fn pick_weak_coldwar_move(game: &Value) -> String {
    let legal: Vec<&str> = game["state"]["legal_moves"].as_array().unwrap().iter().filter_map(|m| m.as_str()).collect();
    // Growing an own base (a bare square name it already holds) or shuffling
    // pieces never takes ground; prefer those, else the first legal move.
    legal.iter().find(|m| m.contains('-')).or(legal.first()).expect("a legal move").to_string()
}

/// Two browsers play Cold War to the end by clicking: `x` greedily, `o` weakly.
async fn play_two_browsers_to_the_end(x: &Browser, o: &Browser) -> Result<Value> {
    for _ in 0..400 {
        let game = page_game(x).await?;
        if !game["result"].is_null() {
            return Ok(game);
        }
        let plies_now = game["state"]["plies"].as_u64().unwrap_or(0);
        let (mover, mv) = if game["state"]["to_move"] == "x" {
            (x, pick_coldwar_move(&game))
        } else {
            wait_plies(o, plies_now, 10).await?;
            (o, pick_weak_coldwar_move(&page_game(o).await?))
        };
        click_move(mover, "coldwar", &mv).await?;
        x.wait_js(&format!("window.tabulaGame.result || window.tabulaGame.state.plies > {plies_now}"), 20).await?;
    }
    bail!("the Cold War game did not end")
}

/// Fails when the page has met a script error (the app keeps them in `window.tabulaErrors`).
async fn assert_no_page_errors(b: &Browser) -> Result<()> {
    let errors = b.eval("return window.tabulaErrors || ['the app did not start'];").await?;
    assert_eq!(errors, serde_json::json!([]), "script errors on {}", b.client.current_url().await?);
    Ok(())
}

/// The text of a rating on a profile page, for one game and category.
async fn profile_rating(b: &Browser, game: &str, category: &str) -> Result<String> {
    b.text(&format!("#ratings li[data-game={game}][data-category={category}] .rating-value")).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_sign_up_and_play_a_rated_seek_from_the_lobby() -> Result<()> {
    let (_guard, server, ann) = start_sized((1366, 768)).await?;
    let bob = Browser::start(PHONE.0, PHONE.1).await?;
    sign_up(&ann, &server, "Ann").await?;
    sign_up(&bob, &server, "Bob").await?;

    // Ann posts a rated 5+2 Cold War challenge; she waits on the game page.
    let id = post_seek(&ann, &server, "coldwar", true, ("5", "2")).await?;
    let game = page_game(&ann).await?;
    assert_eq!(game["rated"], true, "a rated game: {game}");
    assert!(ann.text("#status-line").await?.contains("Waiting"));

    // Bob sees it in his lobby with Ann's name and rating, and joins with one click.
    bob.goto(&server.url("/")).await?;
    let seek = bob.wait(&format!("#seeks li[data-seek-id='{id}']"), 20).await?;
    let line = seek.text().await?;
    assert!(line.contains("Ann") && line.contains("1500") && line.contains("Rated"), "the seek reads: {line}");
    bob.screenshot("players-lobby-seek-phone").await?;
    bob.click(&format!("#seeks li[data-seek-id='{id}'] .join-seek")).await?;
    bob.wait(&format!(".game-page[data-game-id='{id}'] svg.coldwar-board"), 20).await?;
    ann.wait_js("window.tabulaGame.status === 'live'", 10).await?;
    // Real names and ratings in the bars, and each sees the other connected.
    assert!(bob.text(".player-o").await?.contains("Bob (you)"), "Bob's bar");
    let ann_bar = bob.text(".player-x").await?;
    assert!(ann_bar.contains("Ann") && ann_bar.contains("1500?"), "Ann's bar shows her provisional rating: {ann_bar}");
    ann.wait(".player-o .presence.online", 10).await?;
    bob.wait(".player-x .presence.online", 10).await?;
    assert!(ann.text("#game-kind").await?.contains("Rated"), "the page says the game is rated");

    let game = play_two_browsers_to_the_end(&ann, &bob).await?;
    assert_eq!(game["result"]["winner"], "x", "Ann (greedy) beats Bob: {}", game["result"]);
    // The rating change shows at the end, in the banner and the bars, on both pages.
    for b in [&ann, &bob] {
        let changes = b.wait("#rating-changes", 10).await?.text().await?;
        assert!(changes.contains("Ann") && changes.contains("Bob") && changes.contains('+'), "the changes: {changes}");
        b.wait(".player-x .rating-diff.up", 5).await?;
        b.wait(".player-o .rating-diff.down", 5).await?;
    }
    ann.screenshot("players-rated-game-over").await?;
    bob.screenshot("players-rated-game-over-phone").await?;
    let changes = page_game(&ann).await?["rating_changes"].clone();
    let after = |p: &str| changes[p]["after"].as_f64().unwrap_or(0.0).round() as i64;

    // Both profiles show the new ratings, the graph and the game.
    for (b, name, me, won) in [(&ann, "Ann", "x", true), (&bob, "Bob", "o", false)] {
        b.click("#account-name").await?;
        b.wait(&format!(".profile-page[data-user='{name}']"), 20).await?;
        let rating = profile_rating(b, "coldwar", "blitz").await?;
        assert_eq!(rating, format!("{}?", after(me)), "{name}'s new provisional rating");
        b.wait("svg#rating-graph circle.graph-point", 10).await?;
        let item = b.wait(&format!("#profile-games li[data-game-id='{id}']"), 10).await?;
        let text = item.text().await?;
        assert!(text.contains(if won { "Win" } else { "Loss" }) && text.contains("Rated"), "{name}'s history: {text}");
        assert!(text.contains(if won { "Bob" } else { "Ann" }), "the opponent is named: {text}");
        assert_eq!(b.text("[data-count=games] strong").await?, "1");
        // The filters: this game is a win for Ann and a loss for Bob, and a Cold War game.
        let other = if won { "loss" } else { "win" };
        b.select("#filter-result", other).await?;
        b.wait_js(&format!("!document.querySelector(\"#profile-games li[data-game-id='{id}']\")"), 10).await?;
        b.select("#filter-result", if won { "win" } else { "loss" }).await?;
        b.wait(&format!("#profile-games li[data-game-id='{id}']"), 10).await?;
        b.select("#filter-game", "dots").await?;
        b.wait_js(&format!("!document.querySelector(\"#profile-games li[data-game-id='{id}']\")"), 10).await?;
    }
    assert_no_page_errors(&ann).await?;
    assert_no_page_errors(&bob).await?;
    ann.screenshot("players-profile").await?;
    bob.full_page_screenshot("players-profile-phone").await?;
    bob.close().await?;
    ann.close().await
}

/// A player who leaves the page is shown gone to the opponent, even when
/// Chromium keeps the page in its back/forward cache (its socket is closed on
/// `pagehide`); coming back shows them again; gone long enough, the player on
/// move claims the win. The claim time is 3 s here instead of 30.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_leaves_is_shown_gone_and_the_win_can_be_claimed() -> Result<()> {
    let _guard = ONE_AT_A_TIME.lock().await;
    let server = TestServer::start_with(|c| c.rooms.claim_after_ms = 3_000).await?;
    let ann = Browser::start(DESKTOP.0, DESKTOP.1).await?;
    let bob = Browser::start(DESKTOP.0, DESKTOP.1).await?;
    sign_up(&ann, &server, "Ann").await?;
    sign_up(&bob, &server, "Bob").await?;
    let id = post_seek(&ann, &server, "coldwar", false, ("5", "2")).await?;
    bob.goto(&server.url("/")).await?;
    bob.wait(&format!("#seeks li[data-seek-id='{id}'] .join-seek"), 20).await?;
    bob.click(&format!("#seeks li[data-seek-id='{id}'] .join-seek")).await?;
    bob.wait(&format!(".game-page[data-game-id='{id}'] svg.coldwar-board"), 20).await?;
    ann.wait_js("window.tabulaGame.status === 'live'", 10).await?;
    // Three plies: Ann, Bob, Ann; then Bob is on move.
    for (ply, mover) in [(0, &ann), (1, &bob), (2, &ann)] {
        wait_plies(mover, ply, 10).await?;
        let mv = pick_coldwar_move(&page_game(mover).await?);
        click_move(mover, "coldwar", &mv).await?;
        wait_plies(&bob, ply + 1, 10).await?;
    }
    bob.wait(".player-x .presence.online", 10).await?;

    // Ann goes to another page: Bob sees her gone and a countdown to the claim.
    ann.goto(&server.url("/leaderboard")).await?;
    bob.wait(".player-x .presence.away", 10).await?;
    bob.wait("#claim-box:not([hidden])", 10).await?;
    // She comes back with the browser's Back button: present again, no claim.
    ann.client.back().await?;
    ann.wait(&format!(".game-page[data-game-id='{id}']"), 20).await?;
    bob.wait(".player-x .presence.online", 10).await?;
    bob.wait("#claim-box[hidden]", 10).await?;
    // She leaves for good; after the claim time Bob claims the win.
    ann.goto("about:blank").await?;
    bob.wait(".player-x .presence.away", 10).await?;
    bob.wait("#claim-win", 20).await?;
    bob.click("#claim-win").await?;
    let banner = bob.wait("#result-banner:not([hidden])", 10).await?.text().await?;
    assert!(banner.contains("Bob"), "the banner names the winner: {banner}");
    let game = page_game(&bob).await?;
    assert_eq!(game["result"]["winner"], "o", "Bob won by claim: {}", game["result"]);
    assert_no_page_errors(&bob).await?;
    bob.close().await?;
    ann.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_pairing_then_an_abort_before_the_first_move_changes_nothing() -> Result<()> {
    let (_guard, server, ann) = start_desktop().await?;
    let bob = Browser::start(DESKTOP.0, DESKTOP.1).await?;
    sign_up(&ann, &server, "Ann").await?;
    sign_up(&bob, &server, "Bob").await?;
    // Both ask for a rated 10+5 Cumisitha game in quick pairing; the server pairs them.
    for b in [&ann, &bob] {
        b.goto(&server.url("/")).await?;
        b.select("#game", "cumisitha").await?;
        b.wait("#pool-rated:checked", 10).await?;
        b.click("#quick-pairing button[data-tc='fischer:600+5']").await?;
    }
    ann.wait(".game-page[data-game=cumisitha]", 20).await?;
    bob.wait(".game-page[data-game=cumisitha]", 20).await?;
    let id = ann.eval("return window.tabulaGame.id;").await?.as_str().unwrap_or_default().to_string();
    assert_eq!(bob.eval("return window.tabulaGame.id;").await?, id.as_str(), "paired into the same game");
    ann.wait_js("window.tabulaGame.status === 'live'", 10).await?;
    let bars = ann.text(".board-column").await?;
    assert!(bars.contains("Ann (you)") && bars.contains("Bob"), "the bars: {bars}");
    assert!(ann.text("#game-kind").await?.contains("Rated · Rapid"), "10+5 is rapid");

    // Ann aborts before the first move: the game is marked aborted, nobody's rating moves.
    ann.click("#abort").await?;
    for b in [&ann, &bob] {
        let banner = b.wait("#result-banner:not([hidden])", 10).await?.text().await?;
        assert!(banner.contains("aborted"), "the banner: {banner}");
        assert!(b.client.find(fantoccini::Locator::Css("#rating-changes")).await.is_err(), "no rating change");
    }
    assert!(page_game(&ann).await?["rating_changes"].is_null());
    for (b, name) in [(&ann, "Ann"), (&bob, "Bob")] {
        b.goto(&server.url(&format!("/@/{name}"))).await?;
        b.wait(&format!(".profile-page[data-user='{name}']"), 20).await?;
        assert_eq!(b.text("p#ratings").await?, "No rated games yet.", "{name} has no rating");
        b.wait("#rating-graph", 5).await?;
        assert_eq!(b.text("[data-count=aborted] strong").await?, "1");
        b.select("#filter-result", "aborted").await?;
        b.wait(&format!("#profile-games li[data-game-id='{id}'][data-outcome=aborted]"), 10).await?;
    }
    assert_no_page_errors(&bob).await?;
    bob.close().await?;
    ann.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_bots_tokens_and_leaderboards() -> Result<()> {
    let (_guard, server, b) = start_sized((1366, 768)).await?;
    // A wrong login says so without saying which part was wrong.
    b.goto(&server.url("/login")).await?;
    b.wait("#username", 20).await?.send_keys("nobody").await?;
    b.wait("#password", 5).await?.send_keys("wrong password").await?;
    b.click("#login-submit").await?;
    let error = b.wait_js("document.querySelector('#auth-error').textContent", 10).await?;
    assert!(!error.as_str().unwrap_or_default().is_empty(), "a login error is shown");
    // A bad username is explained by the field.
    b.goto(&server.url("/signup")).await?;
    b.wait("#username", 20).await?.send_keys("no spaces").await?;
    b.wait("#password", 5).await?.send_keys(PASSWORD).await?;
    b.click("#signup-submit").await?;
    b.wait_js("document.querySelector('#username-error').textContent", 10).await?;
    assert_eq!(b.eval("return document.querySelector('#username').getAttribute('aria-invalid');").await?, "true");
    b.screenshot("players-signup-error").await?;

    // Sign up, log out, log in again.
    sign_up(&b, &server, "Cleo").await?;
    b.click("#logout").await?;
    b.wait("#login-link", 10).await?;
    b.click("#login-link").await?;
    b.wait("#username", 10).await?.send_keys("cleo").await?;
    b.wait("#password", 5).await?.send_keys(PASSWORD).await?;
    b.click("#login-submit").await?;
    b.wait_js("(document.querySelector('#account-name') || {}).textContent === 'Cleo'", 10).await?;

    // Cleo, without games yet, turns her account into a bot and manages its tokens.
    b.click("#account-name").await?;
    b.wait(".profile-page[data-user=Cleo]", 20).await?;
    b.eval("window.confirm = () => true; document.querySelector('.bot-card').open = true; return true;").await?;
    b.click("#become-bot").await?;
    b.wait(".profile-page .bot-badge", 20).await?;
    b.wait("#token-label", 10).await?.send_keys("laptop").await?;
    b.click("#create-token").await?;
    let secret = b.wait("#token-secret", 10).await?.prop("value").await?.unwrap_or_default();
    assert!(secret.starts_with("tba_"), "the new token is shown once: {secret}");
    b.wait("#token-list li[data-token-id]", 10).await?;
    b.screenshot("players-bot-tokens").await?;
    // It works as a bearer token, then is revoked.
    let who = |secret: &str| {
        format!("fetch('/api/account', {{headers: {{authorization: 'Bearer {secret}'}}}}).then(r => done(r.status));")
    };
    assert_eq!(b.eval_async(&who(&secret)).await?, 200, "the token authenticates");
    b.click("#token-list .revoke-token").await?;
    b.wait_js("!document.querySelector('#token-list li[data-token-id]')", 10).await?;
    assert_eq!(b.eval_async(&who(&secret)).await?, 401, "a revoked token is refused");
    b.client.refresh().await?;
    b.wait(".profile-page[data-user=Cleo]", 20).await?;
    assert!(b.client.find(fantoccini::Locator::Css("#token-secret")).await.is_err(), "the secret is never shown again");

    // The bots page lists the built-in bots and Cleo; the leaderboards draw.
    b.click("nav a[href='/bots']").await?;
    b.wait("#bot-list li[data-user='tabula-easy']", 20).await?;
    let cleo = b.wait("#bot-list li[data-user='Cleo']", 5).await?.text().await?;
    assert!(cleo.contains("No rated games yet"), "the bot's ratings: {cleo}");
    b.screenshot("players-bots").await?;
    b.click("nav a[href='/leaderboard']").await?;
    b.wait("#leaderboard-games a[aria-current=page]", 20).await?;
    b.click("#leaderboard-categories a[data-value=rapid]").await?;
    b.wait("#leaderboard-categories a[data-value=rapid][aria-current=page]", 10).await?;
    b.wait_js("!document.querySelector('#leaderboard').textContent.includes('Loading')", 10).await?;
    assert!(b.text("#leaderboard").await?.len() > 5);
    assert_no_page_errors(&b).await?;

    // Closing the account logs out; the name no longer logs in.
    b.goto(&server.url("/@/Cleo")).await?;
    b.wait(".close-card", 20).await?;
    b.eval("window.confirm = () => true; document.querySelector('.close-card').open = true; return true;").await?;
    b.wait("#close-password", 5).await?.send_keys(PASSWORD).await?;
    b.click("#close-account").await?;
    b.wait("#login-link", 10).await?;
    b.goto(&server.url("/login")).await?;
    b.wait("#username", 20).await?.send_keys("Cleo").await?;
    b.wait("#password", 5).await?.send_keys(PASSWORD).await?;
    b.click("#login-submit").await?;
    b.wait_js("document.querySelector('#auth-error').textContent", 10).await?;
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direct_challenges_declined_accepted_and_to_a_bot() -> Result<()> {
    let (_guard, server, ann) = start_desktop().await?;
    let bob = Browser::start(PHONE.0, PHONE.1).await?;
    sign_up(&ann, &server, "Ann").await?;
    sign_up(&bob, &server, "Bob").await?;
    bob.goto(&server.url("/")).await?;
    bob.wait("#new-game", 20).await?;
    let challenge_bob = || async {
        ann.goto(&server.url("/@/Bob")).await?;
        ann.click("#challenge-user").await?;
        ann.wait_js("document.querySelector('#friend').value === 'Bob'", 20).await?;
        ann.select("#game", "coldwar").await?;
        ann.wait("#rated:not([disabled])", 5).await?;
        ann.click("label[for=rated]").await?;
        ann.select("#side", "0").await?;
        assert_eq!(ann.text("#create-game").await?, "Send the challenge");
        ann.click("#create-game").await?;
        ann.wait("#challenges:not([hidden]) li.challenge-out", 10).await?;
        Ok::<(), anyhow::Error>(())
    };

    // Ann challenges Bob from his profile; Bob declines, and Ann is told.
    challenge_bob().await?;
    let incoming = bob.wait("#challenges:not([hidden]) li.challenge-in", 20).await?.text().await?;
    assert!(incoming.contains("Ann") && incoming.contains("rated"), "Bob sees the challenge: {incoming}");
    bob.screenshot("players-challenge-phone").await?;
    bob.click("#challenges li.challenge-in .decline-challenge").await?;
    let answer = ann.wait(".challenge-answer", 20).await?.text().await?;
    assert!(answer.contains("Bob declined"), "Ann learns of the decline: {answer}");

    // Again; Bob accepts, and both arrive on the game (Ann's lobby follows her challenge).
    challenge_bob().await?;
    bob.click("#challenges:not([hidden]) li.challenge-in .accept-challenge").await?;
    bob.wait(".game-page[data-game=coldwar]", 20).await?;
    ann.wait(".game-page[data-game=coldwar]", 20).await?;
    let id = bob.eval("return window.tabulaGame.id;").await?;
    assert_eq!(ann.eval("return window.tabulaGame.id;").await?, id, "the same game");
    assert!(ann.text(".player-x").await?.contains("Ann (you)"));
    assert!(bob.text(".player-o").await?.contains("Bob (you)"));
    click_move(&ann, "coldwar", "b2").await?;
    bob.wait("[data-square=b2][data-owner=x]", 10).await?;
    assert_no_page_errors(&bob).await?;

    // A built-in bot accepts at once, and its AI plays.
    ann.goto(&server.url("/bots")).await?;
    ann.click("#bot-list li[data-user='tabula-easy'] a").await?;
    ann.click("#challenge-user").await?;
    ann.wait_js("document.querySelector('#friend').value === 'tabula-easy'", 20).await?;
    ann.select("#game", "coldwar").await?;
    ann.select("#side", "0").await?;
    ann.click("#create-game").await?;
    ann.wait_js(&format!("window.tabulaGame && window.tabulaGame.id !== {id}"), 20).await?;
    assert!(ann.text(".player-o").await?.contains("tabula-easy"), "the bot's bar");
    click_move(&ann, "coldwar", "b2").await?;
    wait_plies(&ann, 2, 20).await?;
    assert_no_page_errors(&ann).await?;
    bob.close().await?;
    ann.close().await
}
