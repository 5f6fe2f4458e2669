//! Click-to-paint latency on a 39×32 Dots board, in real Chromium against
//! the real server (with its SQLite save), at 1366×768.
//!
//!     cargo run --release -p tabula-browser-tests --example dots_latency -- [moves]
//!
//! Each move is a real mouse click (WebDriver actions) on a random legal
//! point. The time runs from the click's `pointerdown` event to the first
//! frame painted after the new dot is in the page, so it includes the WebSocket round trip, the server's
//! move and save, and the page's drawing. Not a test: a measure.

use anyhow::{Context, Result};
use serde_json::Value;
use tabula_browser_tests::{Browser, TestServer};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let moves: usize = std::env::args().nth(1).map(|s| s.parse()).transpose()?.unwrap_or(60);
    let server = TestServer::start().await?;
    let b = Browser::start(1366, 768).await?;
    b.goto(&server.url("/")).await?;
    b.wait("#game option[value='dots']", 20).await?.click().await?;
    b.wait("#game", 5).await?.select_by_value("dots").await?;
    b.click("input[name=opponent][value=hotseat]").await?;
    b.click("#create-game").await?;
    b.wait("svg.dots-board .dot", 20).await?;
    // Watch for each new dot and note when the frame after it is painted.
    b.eval(
        "window.latency = [];
         const board = document.querySelector('.board-wrap').tabulaBoard;
         board.viewport.addEventListener('pointerdown', (e) => { window.clickAt = e.timeStamp; }, true);
         new MutationObserver(() => {
           if (window.clickAt == null || !window.waitFor) return;
           if (!document.querySelector(`circle.dot[data-point='${window.waitFor}']`)) return;
           const start = window.clickAt;
           window.clickAt = null;
           const mark = (name) => { const all = performance.getEntriesByName(name); return all.length ? all[all.length - 1].startTime : NaN; };
           const sent = mark('tabula:move-sent');
           const state = mark('tabula:state');
           const rendered = mark('tabula:rendered');
           // After the next frame is painted: a message posted from the frame's callback.
           requestAnimationFrame(() => {
             const channel = new MessageChannel();
             channel.port1.onmessage = () => {
               const t = performance.now();
               window.latency.push([t - start, sent - start, state - sent, rendered - state, t - state]);
             };
             channel.port2.postMessage(0);
           });
         }).observe(board.viewport, { childList: true, subtree: true });
         return true;",
    )
    .await?;
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    for i in 0..moves {
        let game: Value = b.eval("return window.tabulaGame;").await?;
        let legal: Vec<String> = game["state"]["legal_moves"]
            .as_array()
            .context("legal moves")?
            .iter()
            .filter_map(|m| m.as_str().map(str::to_string))
            .collect();
        if legal.is_empty() {
            break;
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mv = &legal[(seed % legal.len() as u64) as usize];
        let xy = b
            .eval(&format!(
                "window.waitFor = '{mv}'; return document.querySelector('.board-wrap').tabulaBoard.clientPoint('{mv}');"
            ))
            .await?;
        b.click_at(xy[0].as_f64().unwrap_or(0.0), xy[1].as_f64().unwrap_or(0.0)).await?;
        b.wait_js(&format!("window.latency.length > {i}"), 20).await?;
    }
    let rows: Vec<Vec<f64>> = b
        .eval("return window.latency;")
        .await?
        .as_array()
        .context("latencies")?
        .iter()
        .map(|r| r.as_array().map(|v| v.iter().filter_map(Value::as_f64).collect()).unwrap_or_default())
        .collect();
    println!("click-to-paint on a 39x32 Dots board at 1366x768, {} moves (ms):", rows.len());
    for (i, what) in [
        "click to paint (total)",
        "  click to move sent",
        "  move sent to new state (network, server, save)",
        "  new state drawn (the page's script)",
        "  new state to paint (script, layout, paint)",
    ]
    .iter()
    .enumerate()
    {
        let mut ms: Vec<f64> = rows.iter().filter_map(|r| r.get(i).copied()).filter(|v| v.is_finite()).collect();
        ms.sort_by(f64::total_cmp);
        if ms.is_empty() {
            continue;
        }
        let at = |q: f64| ms[((ms.len() as f64 - 1.0) * q).round() as usize];
        println!(
            "  {what:<50} min {:>5.1}  median {:>5.1}  p95 {:>5.1}  max {:>5.1}",
            at(0.0),
            at(0.5),
            at(0.95),
            at(1.0)
        );
    }
    b.close().await?;
    server.stop().await
}
