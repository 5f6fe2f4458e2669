//! The analysis board (`/analysis`) in a real headless Chromium against the
//! real server and its engine (`POST /api/analysis`).
//!
//! - Cold War: every legal move's solved value, in the list and on the
//!   board, is what the API says, one mark per legal move, and stepping
//!   (once, then fast) shows the new position's values.
//! - A finished hot-seat Cold War game opened with its "Analyse" link is
//!   reviewed; the marked moves are the ones the engine's exact values call
//!   inaccuracies, mistakes or blunders, and the graph has every position.
//!   A Cumisitha position and moves pasted in its notation show an
//!   evaluation bar and a best line in SAN that plays on a click; an
//!   illegal pasted move is named and the line stops before it.
//! - Dots: the territory estimate is shaded on the board, point for point.
//!
//! Screenshots go to `target/browser-artifacts/analysis-*.png`.

use anyhow::{bail, Context, Result};
use fantoccini::key::Key;
use fantoccini::Locator;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use tabula_browser_tests::{Browser, TestServer};
use tabula_core::ThinkContext;

/// Chromium is heavy and the machine small: one browser test at a time.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const DESKTOP: (u32, u32) = (1366, 768);
const PHONE: (u32, u32) = (390, 844);

/// A Cold War line found with the solver: drawn throughout until X throws
/// the draw away with its 29th move (c2) and O gives the win back with its
/// 30th (c1xc2).
const COLDWAR_LINE: [&str; 30] = [
    "a2", "c1", "a2-a1", "c2", "b1", "c1xb1", "a2", "c1", "a3", "c2", "b3", "b2", "a2xb2", "c3", "b3xc3", "c2-c3",
    "a1-a2", "b2", "a2xb2", "c3-b3", "a3xb3", "b1", "c3", "c2xc3", "a2", "a1", "a2xa1", "a1", "c2", "c1xc2",
];

async fn start(size: (u32, u32)) -> Result<(tokio::sync::MutexGuard<'static, ()>, TestServer, Browser)> {
    let guard = ONE_AT_A_TIME.lock().await;
    let server = TestServer::start().await?;
    let browser = Browser::start(size.0, size.1).await?;
    Ok((guard, server, browser))
}

/// The server's analysis of `game` after `moves`, asked again while it says `retry`.
async fn api_analysis(b: &Browser, game: &str, moves: &[&str]) -> Result<Value> {
    for _ in 0..200 {
        let answer = b
            .fetch_json("POST", "/api/analysis", Some(json!({"game": game, "moves": moves, "budget_ms": 300})))
            .await?;
        if answer["analysis"]["retry"] != true {
            return Ok(answer);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    bail!("the analysis of {game} after {moves:?} never got ready")
}

/// The engine's own analysis (no server in between) of Cold War after `moves`.
fn engine_coldwar(moves: &[&str]) -> Result<tabula_core::analysis::Analysis> {
    let game = tabula_games::REGISTRY.get("coldwar")?;
    let state = game.replay(&[], None, moves)?;
    for _ in 0..600 {
        let a = state.analyse(&ThinkContext::default())?;
        if !a.retry {
            return Ok(a);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    bail!("the Cold War solution never got ready")
}

/// Waits until the page shows the engine's settled answer for the position after `moves`.
async fn wait_settled(b: &Browser, moves: &[&str], secs: u64) -> Result<()> {
    let key = json!(moves.join(" "));
    b.wait_js(
        &format!(
            "(() => {{ const p = document.querySelector('.analysis-page');
               return p && p.dataset.key === {key} && p.dataset.state === 'ready'; }})()"
        ),
        secs,
    )
    .await
    .with_context(|| format!("the page settling on the position after {moves:?}"))?;
    Ok(())
}

/// (move, result, plies) of every element matching `css` (data attributes).
async fn marks(b: &Browser, css: &str) -> Result<Vec<(String, String, u64)>> {
    let v = b
        .eval(&format!(
            "return [...document.querySelectorAll({})].map(e => [e.dataset.move, e.dataset.result, Number(e.dataset.plies)]);",
            json!(css)
        ))
        .await?;
    let mut out = Vec::new();
    for m in v.as_array().context("a list")? {
        out.push((
            m[0].as_str().unwrap_or_default().to_string(),
            m[1].as_str().unwrap_or_default().to_string(),
            m[2].as_u64().unwrap_or(u64::MAX),
        ));
    }
    Ok(out)
}

/// The page's marks, in the list and on the board, are the API's values, one per legal move.
async fn assert_coldwar_values(b: &Browser, moves: &[&str]) -> Result<Value> {
    let answer = api_analysis(b, "coldwar", moves).await?;
    let legal: BTreeSet<String> = answer["state"]["legal_moves"]
        .as_array()
        .context("legal moves")?
        .iter()
        .filter_map(|m| m.as_str().map(str::to_string))
        .collect();
    assert!(!legal.is_empty(), "the position after {moves:?} has moves");
    let expected: BTreeSet<(String, String, u64)> = answer["analysis"]["moves"]
        .as_array()
        .context("move values")?
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap_or_default().to_string(),
                m["solved"]["result"].as_str().unwrap_or_default().to_string(),
                m["solved"]["plies"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect();
    let valued: BTreeSet<String> = expected.iter().map(|(m, _, _)| m.clone()).collect();
    assert_eq!(valued, legal, "the API values every legal move after {moves:?}");
    for (css, what) in [("#move-values button[data-move]", "list"), ("svg.coldwar-board .move-value", "board")] {
        let shown = marks(b, css).await?;
        assert_eq!(shown.len(), legal.len(), "one {what} mark per legal move after {moves:?}: {shown:?}");
        let shown: BTreeSet<_> = shown.into_iter().collect();
        assert_eq!(shown, expected, "the {what} marks after {moves:?} are the API's values");
    }
    let best = answer["analysis"]["best_move"].as_str().unwrap_or_default();
    let outlined =
        b.eval("return [...document.querySelectorAll('svg .move-value.best')].map(e => e.dataset.move);").await?;
    assert_eq!(outlined, json!([best]), "the best move is outlined on the board");
    Ok(answer)
}

/// Fails when the page has met a script error (the app keeps them in `window.tabulaErrors`).
async fn assert_no_page_errors(b: &Browser) -> Result<()> {
    let errors = b.eval("return window.tabulaErrors || ['the app did not start'];").await?;
    assert_eq!(errors, json!([]), "script errors on {}", b.client.current_url().await?);
    Ok(())
}

fn coldwar_url(server: &TestServer, moves: &[&str], ply: usize) -> String {
    server.url(&format!("/analysis/coldwar?moves={}&ply={ply}", moves.join("+")))
}

/// The page is drawn with analysis.css applied (only the analysis board
/// loads it, whether opened directly or from another page).
async fn assert_styled(b: &Browser) -> Result<()> {
    let chrome = b
        .eval("return getComputedStyle(document.querySelector('.analysis-page')).getPropertyValue('--board-chrome').trim();")
        .await?;
    assert_eq!(chrome, "200px", "analysis.css applies to the analysis page");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coldwar_moves_show_their_solved_values_and_stepping_updates_them() -> Result<()> {
    let (_guard, server, b) = start(DESKTOP).await?;
    let line = &COLDWAR_LINE[..29];
    // Move 28's position: a draw in which two moves lose.
    b.goto(&coldwar_url(&server, line, 28)).await?;
    wait_settled(&b, &line[..28], 60).await?;
    assert_styled(&b).await?;
    // Once the page is drawn, the other pages' modules and stylesheets are
    // fetched into the cache (prefetch), not compiled (modulepreload).
    b.wait_js(
        "document.querySelector('link[rel=prefetch][href=\"/js/pages/lobby.js\"]') && \
         document.querySelector('link[rel=prefetch][href=\"/css/tournament.css\"]')",
        20,
    )
    .await?;
    assert_eq!(
        b.eval("return document.querySelectorAll('link[rel=modulepreload][href=\"/js/pages/lobby.js\"]').length;")
            .await?,
        0
    );
    let answer = assert_coldwar_values(&b, &line[..28]).await?;
    let results: BTreeSet<&str> =
        answer["analysis"]["moves"].as_array().unwrap().iter().filter_map(|m| m["solved"]["result"].as_str()).collect();
    assert_eq!(results, BTreeSet::from(["draw", "loss"]), "move 28's position has drawing and losing moves");
    assert_eq!(b.eval("return document.querySelector('#eval-bar').getAttribute('aria-valuenow');").await?, "50");
    b.screenshot("analysis-coldwar-desktop").await?;

    // → steps to the position after X's losing move: O wins, and the bar says so.
    b.keys(&String::from(char::from(Key::Right))).await?;
    wait_settled(&b, &line[..29], 30).await?;
    let answer = assert_coldwar_values(&b, &line[..29]).await?;
    assert!(
        answer["analysis"]["moves"].as_array().unwrap().iter().any(|m| m["solved"]["result"] == "win"),
        "O has a winning move after X's blunder"
    );
    assert_eq!(b.eval("return document.querySelector('#eval-bar').getAttribute('aria-valuenow');").await?, "0");
    let words = b.text("#eval-text").await?;
    assert!(words.starts_with("O wins with best play"), "the evaluation in words: {words}");

    // Fast steps back: only the position stopped at is shown, with its own values.
    for _ in 0..5 {
        b.keys(&String::from(char::from(Key::Left))).await?;
    }
    wait_settled(&b, &line[..24], 30).await?;
    assert_coldwar_values(&b, &line[..24]).await?;
    assert_eq!(b.eval("return window.tabulaAnalysis.ply;").await?, 24);

    // A value in the list plays its move: a variation, and the new position's values.
    let pick = b.eval("return document.querySelector('#move-values button[data-result=draw]').dataset.move;").await?;
    let pick = pick.as_str().context("a drawing move")?.to_string();
    b.click(&format!("#move-values button[data-move='{pick}']")).await?;
    let mut varied: Vec<&str> = line[..24].to_vec();
    varied.push(&pick);
    wait_settled(&b, &varied, 30).await?;
    assert_coldwar_values(&b, &varied).await?;
    if pick != line[24] {
        b.wait("#variation-note:not([hidden])", 5).await?;
    }
    assert_no_page_errors(&b).await?;
    b.close().await?;

    // The same on a phone.
    let phone = Browser::start(PHONE.0, PHONE.1).await?;
    phone.goto(&coldwar_url(&server, line, 29)).await?;
    wait_settled(&phone, line, 60).await?;
    assert_coldwar_values(&phone, line).await?;
    phone.screenshot("analysis-coldwar-phone").await?;
    assert_no_page_errors(&phone).await?;
    phone.close().await
}

/// The expected-score drop of the mover at each ply, judged as the page documents (docs/analysis.md).
fn judgement(drop: f64) -> Option<&'static str> {
    [(0.3, "blunder"), (0.2, "mistake"), (0.1, "inaccuracy")]
        .into_iter()
        .find(|(d, _)| drop >= d - 1e-9)
        .map(|(_, k)| k)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_is_reviewed_and_a_pasted_cumisitha_line_is_analysed() -> Result<()> {
    let (_guard, server, b) = start(DESKTOP).await?;
    b.goto(&server.url("/")).await?;
    b.wait("#new-game", 20).await?;
    // A hot-seat Cold War game played through the API, then resigned: a finished game.
    let mut hot = b.hot_seat_game("coldwar").await?;
    for mv in COLDWAR_LINE {
        hot.play(&b, mv).await?;
    }
    let id = hot.id.clone();
    b.fetch_json("POST", &format!("/api/games/{id}/resign"), Some(json!({"token": hot.token_to_move()}))).await?;

    // Its page links to the analysis board, which opens on the last move.
    b.goto(&server.url(&format!("/game/{id}"))).await?;
    b.click("#analyse-link").await?;
    b.wait(".analysis-page[data-game=coldwar]", 20).await?;
    assert_styled(&b).await?;
    wait_settled(&b, &COLDWAR_LINE, 60).await?;
    assert_eq!(b.eval("return location.search;").await?, format!("?game={id}&ply=30"));
    assert_eq!(
        b.eval("return document.querySelectorAll('#analysis-moves button.move').length;").await?,
        30,
        "the game's moves in the line"
    );

    // The review, against the engine's exact values.
    b.click("#review-start").await?;
    b.wait_js("document.querySelector('.analysis-page').dataset.review === 'done'", 120).await?;
    let mut expected = BTreeMap::new();
    let mut before = engine_coldwar(&[])?;
    for ply in 1..=COLDWAR_LINE.len() {
        let after = engine_coldwar(&COLDWAR_LINE[..ply])?;
        let mover_first = before.to_move == "x";
        let mine = |e: f64| if mover_first { e } else { 1.0 - e };
        let drop = mine(before.evaluation.expected) - mine(after.evaluation.expected);
        if let Some(kind) = judgement(drop) {
            expected.insert(ply as u64, kind.to_string());
        }
        before = after;
    }
    assert_eq!(
        expected,
        BTreeMap::from([(29, "blunder".to_string()), (30, "blunder".to_string())]),
        "the engine's values: X's c2 and O's c1xc2 throw a result away"
    );
    let shown = b
        .eval(
            "return [...document.querySelectorAll('#analysis-moves button[data-judgement]')]
               .map(e => [Number(e.dataset.ply), e.dataset.judgement]);",
        )
        .await?;
    let shown: BTreeMap<u64, String> = shown
        .as_array()
        .context("marks")?
        .iter()
        .map(|m| (m[0].as_u64().unwrap_or(0), m[1].as_str().unwrap_or_default().to_string()))
        .collect();
    assert_eq!(shown, expected, "the review marks the moves the engine's values call bad");
    let glyph = b.text("#analysis-moves button[data-ply='29'] .judgement").await?;
    assert_eq!(glyph, "??");
    assert_eq!(b.eval("return document.querySelector('#eval-graph').dataset.points;").await?, "31");
    let counts = b.text("#review-summary li[data-player=x]").await?;
    assert!(counts.contains("1 blunder"), "X's count: {counts}");
    b.screenshot("analysis-review-desktop").await?;
    assert_no_page_errors(&b).await?;

    // A Cumisitha position and moves pasted into the form (SAN), then a line with an illegal move.
    b.goto(&server.url("/analysis")).await?;
    b.wait("#setup-game option[value=cumisitha]", 20).await?;
    b.select("#setup-game", "cumisitha").await?;
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    b.wait("#setup-position", 5).await?.send_keys(fen).await?;
    b.wait("#setup-moves", 5).await?.send_keys("2. Nf3 Nc6").await?;
    b.click("#setup-go").await?;
    b.wait(".analysis-page[data-game=cumisitha]", 20).await?;
    wait_settled(&b, &["Nf3", "Nc6"], 60).await?;
    let analysis = b.eval("return window.tabulaAnalysis.analysis;").await?;
    let expected_pct = (analysis["evaluation"]["expected"].as_f64().context("expected score")? * 1000.0).round() / 10.0;
    let bar = b.eval("return document.querySelector('#eval-bar').getAttribute('aria-valuenow');").await?;
    assert_eq!(bar.as_str().and_then(|v| v.parse::<f64>().ok()), Some(expected_pct), "the bar is the expected score");
    let pv: Vec<String> = b
        .eval("return [...document.querySelectorAll('#pv button.pv-move')].map(e => e.textContent);")
        .await?
        .as_array()
        .context("the line")?
        .iter()
        .filter_map(|m| m.as_str().map(str::to_string))
        .collect();
    assert!(pv.len() >= 2, "a best line of some length: {pv:?}");
    let display: Vec<&str> = analysis["pv_display"].as_array().unwrap().iter().filter_map(|m| m.as_str()).collect();
    assert_eq!(pv, display[..pv.len()], "the line is shown as people write it");
    // UCI is four squares' letters and digits (and a promotion); SAN never looks like that.
    let uci = |m: &str| {
        let b = m.as_bytes();
        (b.len() == 4 || b.len() == 5)
            && b[0].is_ascii_lowercase()
            && b[1].is_ascii_digit()
            && b[2].is_ascii_lowercase()
            && b[3].is_ascii_digit()
    };
    assert!(!pv.iter().any(|m| uci(m)), "SAN, not UCI: {pv:?}");
    assert_eq!(b.text("#best-move").await?, pv[0]);
    b.screenshot("analysis-cumisitha-desktop").await?;
    // The second move of the line plays both.
    let pv_moves: Vec<String> =
        analysis["pv"].as_array().unwrap().iter().filter_map(|m| m.as_str().map(str::to_string)).collect();
    b.click("#pv button[data-index='1']").await?;
    wait_settled(&b, &["Nf3", "Nc6", &pv_moves[0], &pv_moves[1]], 60).await?;
    let shown = b.eval("return document.querySelectorAll('#analysis-moves button.move').length;").await?;
    assert_eq!(shown, 4);

    b.goto(&server.url(&format!("/analysis/cumisitha?position={}&moves=Nf3+Nc6+Ke5", fen.replace(' ', "+")))).await?;
    b.wait_js("(document.querySelector('#line-error') || {}).textContent", 30).await?;
    let error = b.text("#line-error").await?;
    assert!(error.starts_with("Move 3 (Ke5) is not legal"), "the refused move is named: {error}");
    wait_settled(&b, &["Nf3", "Nc6"], 60).await?;
    assert_eq!(b.eval("return window.tabulaAnalysis.moves;").await?, json!(["Nf3", "Nc6"]), "the line stops before it");
    assert_no_page_errors(&b).await?;
    b.close().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dots_territory_is_shaded_on_the_board() -> Result<()> {
    let (_guard, server, b) = start(PHONE).await?;
    // Blue surrounds the red dot on 10-10 (captured).
    let moves = ["10-11", "10-10", "9-10", "30-30", "11-10", "30-28", "10-9"];
    let url = server.url(&format!("/analysis/dots?moves={}", moves.join("+")));
    b.goto(&url).await?;
    wait_settled(&b, &moves, 60).await?;
    let analysis = b.eval("return window.tabulaAnalysis.analysis;").await?;
    let territory = &analysis["territory"];
    let (width, height) = (territory["width"].as_u64().unwrap_or(0), territory["height"].as_u64().unwrap_or(0));
    assert_eq!((width, height), (39, 32), "an estimate for every point of the board");
    let owner: Vec<f64> = territory["owner"].as_array().context("owners")?.iter().filter_map(Value::as_f64).collect();
    let mut expected = BTreeMap::new();
    for (i, v) in owner.iter().enumerate() {
        if v.abs() >= 0.2 {
            let (x, y) = (i as u64 % width + 1, i as u64 / width + 1);
            expected.insert(format!("{x}-{y}"), if *v > 0.0 { "blue" } else { "red" }.to_string());
        }
    }
    let shaded = b
        .eval(
            "return [...document.querySelectorAll('svg.dots-board .territory-estimate')]
               .map(e => [e.dataset.point, e.classList.contains('estimate-blue') ? 'blue' : 'red']);",
        )
        .await?;
    let shaded: BTreeMap<String, String> = shaded
        .as_array()
        .context("shaded points")?
        .iter()
        .map(|p| (p[0].as_str().unwrap_or_default().to_string(), p[1].as_str().unwrap_or_default().to_string()))
        .collect();
    assert!(!shaded.is_empty(), "some points are shaded");
    assert_eq!(shaded, expected, "every point the estimate gives a side is shaded in its colour");
    assert_eq!(shaded.get("10-10").map(String::as_str), Some("blue"), "the captured red dot is blue's ground");
    let best = analysis["best_move"].as_str().context("a best move")?;
    b.wait(&format!("svg.dots-board .best-ring[data-best='{best}']"), 5).await?;
    b.screenshot("analysis-dots-phone").await?;
    assert_no_page_errors(&b).await?;
    b.close().await?;

    let desk = Browser::start(DESKTOP.0, DESKTOP.1).await?;
    desk.goto(&url).await?;
    wait_settled(&desk, &moves, 60).await?;
    let n = desk.client.find_all(Locator::Css("svg.dots-board .territory-estimate")).await?.len();
    assert!(n > 0, "shaded on the desktop too");
    desk.screenshot("analysis-dots-desktop").await?;
    assert_no_page_errors(&desk).await?;
    desk.close().await
}
