//! The web front end in a real headless Chromium against the real server.
//!
//! Each test creates its games through the lobby form and moves by clicking
//! on the SVG boards, then checks what the page shows and saves screenshots
//! to `target/browser-artifacts/`.

use anyhow::{bail, Result};
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
    let guard = ONE_AT_A_TIME.lock().await;
    let server = TestServer::start().await?;
    let browser = Browser::start(DESKTOP.0, DESKTOP.1).await?;
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
    b.wait("#game", 5).await?.select_by_value(game).await?;
    for (key, value) in options {
        let field = b.wait(&format!("#opt_{key}"), 5).await?;
        if field.tag_name().await? == "select" {
            field.select_by_value(value).await?;
        } else {
            field.clear().await?;
            field.send_keys(value).await?;
        }
    }
    b.click(&format!("input[name=opponent][value={opponent}]")).await?;
    if let Some(level) = level {
        b.wait("#level", 5).await?.select_by_value(level).await?;
    }
    b.wait("#side", 5).await?.select_by_value("0").await?;
    if let Some((base_min, inc_s)) = fischer {
        b.wait("#time-control", 5).await?.select_by_value("fischer").await?;
        for (name, value) in [("base_min", base_min), ("inc_s", inc_s)] {
            let field = b.wait(&format!("input[name={name}]"), 5).await?;
            field.clear().await?;
            field.send_keys(value).await?;
        }
    }
    b.click("#create-game").await?;
    b.wait(&format!(".game-page[data-game={game}]"), 20).await?;
    let id = b.eval("return document.querySelector('.game-page').dataset.gameId;").await?;
    Ok(id.as_str().unwrap_or_default().to_string())
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

/// Makes `mv` by clicking the board the way a person would.
async fn click_move(b: &Browser, game: &str, mv: &str) -> Result<()> {
    let before = plies(b).await?;
    match game {
        "dots" => b.click(&format!(".hit[data-point='{mv}']")).await?,
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coldwar_full_game_against_the_ai_by_clicking() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    b.goto(&server.url("/")).await?;
    b.wait("#live-games", 20).await?;
    b.screenshot("lobby").await?;
    let id = create_game(&b, &server, "coldwar", "ai", Some("random"), &[]).await?;
    for _ in 0..1200 {
        let game = page_game(&b).await?;
        if !game["result"].is_null() {
            break;
        }
        let plies_now = game["state"]["plies"].as_u64().unwrap_or(0);
        if game["state"]["to_move"] != "x" {
            b.wait_js(&format!("window.tabulaGame.result || window.tabulaGame.state.plies > {plies_now}"), 30).await?;
            continue;
        }
        let mv = pick_coldwar_move(&game);
        click_move(&b, "coldwar", &mv).await?;
    }
    let banner = b.wait("#result-banner:not([hidden])", 30).await?;
    let text = banner.text().await?;
    let game = page_game(&b).await?;
    let reason = game["result"]["reason"].as_str().unwrap_or_default().to_string();
    assert!(!reason.is_empty(), "the result has a reason: {game}");
    assert!(text.contains(&reason), "the banner `{text}` shows the reason `{reason}`");
    assert!(text.contains("wins") || text.contains("Draw"), "the banner names the result: {text}");
    let moves = b.client.find_all(fantoccini::Locator::Css("#move-list li")).await?;
    assert_eq!(moves.len() as u64, game["state"]["plies"].as_u64().unwrap(), "one move-list line per ply");
    b.screenshot("coldwar-game-over").await?;

    // The lobby lists it among the finished games.
    b.goto(&server.url("/")).await?;
    b.wait(&format!("#finished-games li[data-game-id='{id}']"), 20).await?;

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
    create_game(&b, &server, "dots", "hotseat", None, &[]).await?;
    b.wait("svg.dots-board .hit", 10).await?;
    assert_eq!(b.eval("return document.querySelectorAll('svg.dots-board .dot').length;").await?, 4, "the cross");
    assert_eq!(b.text(".player-blue .score").await?, "0");
    // Blue surrounds the red dot at 10-10 on its four sides.
    for mv in ["10-11", "10-10", "9-10", "30-30", "11-10", "30-28", "10-9"] {
        click_move(&b, "dots", mv).await?;
    }
    b.wait("path.territory-blue", 10).await?;
    assert_eq!(b.text(".player-blue .score").await?, "1", "blue's score after the capture");
    assert_eq!(b.text(".player-red .score").await?, "0");
    let captured =
        b.eval("return document.querySelector(\"circle.dot.captured[data-point='10-10']\") !== null;").await?;
    assert_eq!(captured, true, "the red dot is drawn as captured");
    let last = b.text("#move-list li:last-child").await?;
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
async fn cumisitha_move_and_promotion_through_the_dialog() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    create_game(&b, &server, "cumisitha", "hotseat", None, &[]).await?;
    b.wait("svg.cumisitha-board [data-square=e2][data-piece=P]", 10).await?;
    for mv in ["b2b4", "a7a5", "b4a5", "h7h6", "a5a6", "h6h5", "a6b7", "g7g6"] {
        click_move(&b, "cumisitha", mv).await?;
    }
    assert!(b.text("#move-list").await?.contains("axb7"), "the move list speaks SAN");
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

    // After a reload the move list still speaks SAN (read from the PGN export).
    b.client.refresh().await?;
    b.wait("svg.cumisitha-board [data-square=a8][data-piece=N]", 10).await?;
    b.wait_js("document.querySelector('#move-list').textContent.includes('bxa8=N')", 10).await?;
    assert_eq!(b.text("#move-list li:first-child .move").await?, "b4", "SAN from the first move on");
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cordots_capture_by_clicking() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    // Competitive mode: one 20-minute match clock for both players.
    create_game(&b, &server, "cordots", "hotseat", None, &[("mode", "competitive"), ("minutes", "20")]).await?;
    b.wait("svg.cordots-board [data-square=a1][data-piece=white-capturer]", 10).await?;
    let game = page_game(&b).await?;
    assert_eq!(game["clock"]["shared"], true, "a shared match clock: {}", game["clock"]);
    let white_clock = b.text("[data-clock=white]").await?;
    assert!(white_clock.starts_with("20:00") || white_clock.starts_with("19:5"), "match clock: {white_clock}");
    let black_clock = b.text("[data-clock=black]").await?;
    assert!(
        black_clock.starts_with("20:00") || black_clock.starts_with("19:5"),
        "one clock on both bars: {black_clock}"
    );
    b.wait("svg.cordots-board [data-square=a2][data-piece=white-victim]", 10).await?;
    let moves = ["a2-a3", "b7-b6", "a3-a4", "b6-b5", "c2-c3", "h7-h6", "c3-c4", "h6-h5", "a4-a5", "h5-h4"];
    for mv in moves {
        click_move(&b, "cordots", mv).await?;
    }
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
    let id = create_timed_game(&host, &server, "coldwar", "invite", None, &[], Some(("5", "2"))).await?;
    let link = host.wait("#invite-link", 10).await?.prop("value").await?.unwrap_or_default();
    assert!(link.contains(&format!("/game/{id}?invite=")), "invite link: {link}");
    assert!(host.text("#status-line").await?.contains("Waiting"), "the host waits for the friend");
    host.screenshot("invite-waiting").await?;

    let guest = Browser::start(PHONE.0, PHONE.1).await?;
    guest.goto(&link).await?;
    guest.wait(".game-page[data-game=coldwar] svg.coldwar-board", 20).await?;
    guest.wait_js("window.tabulaGame && window.tabulaGame.seats.every(s => s.joined)", 10).await?;
    assert!(guest.text(".player-o").await?.contains("(you)"), "the guest plays O");
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
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let later = guest.text("[data-clock=o]").await?;
    assert!(first.starts_with("5:0") || first.starts_with("4:5"), "O's clock: {first}");
    assert_ne!(first, later, "O's clock ticks while O is to move");
    guest.screenshot("invite-guest-phone").await?;
    host.screenshot("invite-host").await?;

    // A draw offer reaches the other browser, which declines it.
    host.click("#offer-draw").await?;
    guest.click("#decline-draw").await?;
    guest.wait_js("window.tabulaGame.draw_offer === null", 10).await?;
    host.wait_js("window.tabulaGame.draw_offer === null", 10).await?;

    // The guest resigns; both see the banner.
    guest.eval("window.confirm = () => true; return true;").await?;
    guest.click("#resign").await?;
    for b in [&host, &guest] {
        let text = b.wait("#result-banner:not([hidden])", 10).await?.text().await?;
        assert!(text.contains("X wins") && text.contains("resigned"), "banner: {text}");
    }

    // A rematch with colours swapped: the host now plays O, the guest follows the link.
    host.click("#rematch").await?;
    host.wait_js(&format!("window.tabulaGame && window.tabulaGame.id !== '{id}'"), 10).await?;
    assert!(host.text(".player-o").await?.contains("(you)"), "the host plays O in the rematch");
    guest.click("#rematch-link").await?;
    guest.wait_js(&format!("window.tabulaGame && window.tabulaGame.id !== '{id}'"), 10).await?;
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
async fn how_to_play_pages_draw_their_examples() -> Result<()> {
    let (_guard, server, b) = start_desktop().await?;
    for game in ["coldwar", "cordots", "cumisitha", "dots"] {
        b.goto(&server.url(&format!("/howto/{game}"))).await?;
        b.wait(&format!(".howto[data-game={game}] .example svg.board"), 20).await?;
        let boards = b.eval("return document.querySelectorAll('.howto .example svg.board').length;").await?;
        assert!(boards.as_u64().unwrap_or(0) >= 2, "{game}: worked examples drawn ({boards})");
        b.full_page_screenshot(&format!("howto-{game}")).await?;
    }
    b.close().await
}
