//! Style and layout cost of a 39×32 Dots game page with 120 moves, in real
//! Chromium on a 412×823 phone viewport, with CSS variants injected into
//! the page, so their costs compare in one run.
//!
//!     cargo run -p tabula-browser-tests --example page_cost
//!
//! Each figure is the median of 31 forced full-page passes: a layout (the
//! body's width changed by a pixel) and a restyle (the colour theme swapped,
//! then every move button and board circle measured). Run to run the
//! figures vary by a third here, so compare variants within one run. Not a
//! test: a measure (it showed the move list is over half of the page's
//! style and layout, and that none of the CSS variants below makes it
//! cheaper; `content-visibility: auto` on the rows makes Chromium lay the
//! page out twice on its first frame).

use anyhow::{Context, Result};
use serde_json::Value;
use tabula_browser_tests::{Browser, TestServer};

const VARIANTS: &[(&str, &str)] = &[
    ("as shipped", ""),
    ("rows' columns minmax(0, 1fr)", ".move-row { grid-template-columns: 2.6em minmax(0, 1fr) minmax(0, 1fr); }"),
    ("move buttons display: block", ".move-list .move { display: block; } .move-list .move .swatch { display: inline-block; margin-right: 0.35em; }"),
    ("rows content-visibility: auto", ".move-row { content-visibility: auto; contain-intrinsic-size: auto 28px; }"),
    ("no move list", ".move-list { display: none; }"),
    ("no board", ".board-wrap { display: none; }"),
];

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let server = TestServer::start().await?;
    let b = Browser::start(412, 823).await?;
    b.goto(&server.url("/")).await?;
    b.wait("#new-game", 20).await?;
    let mut hot = b.hot_seat_game("dots").await?;
    let mut seed = 7u64;
    for _ in 0..120 {
        let legal: Vec<String> = hot.game["state"]["legal_moves"]
            .as_array()
            .context("legal moves")?
            .iter()
            .filter_map(|m| m.as_str().map(str::to_string))
            .filter(|m| m.split('-').zip([20i64, 16]).all(|(c, o)| (c.parse::<i64>().unwrap_or(0) - o).abs() <= 7))
            .collect();
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mv = legal[(seed >> 33) as usize % legal.len()].clone();
        hot.play(&b, &mv).await?;
    }
    let id = &hot.id;
    b.goto(&server.url(&format!("/game/{id}"))).await?;
    b.wait("svg.dots-board .dot", 20).await?;
    b.wait_js("document.querySelectorAll('.move-list button').length >= 120", 20).await?;
    println!("{} elements", b.eval("return document.getElementsByTagName('*').length;").await?);
    println!("{:<34} {:>10} {:>10}", "variant", "layout ms", "style ms");
    for round in 0..2 {
        for (name, css) in VARIANTS {
            let r: Value = b
                .eval(&format!(
                    "const style = document.createElement('style');
                     style.textContent = {css};
                     document.head.append(style);
                     document.body.offsetHeight;
                     const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
                     const layout = [], restyle = [];
                     for (let i = 0; i < 31; i++) {{
                       document.body.style.width = i % 2 ? '411px' : '';
                       let t = performance.now();
                       document.body.offsetHeight;
                       layout.push(performance.now() - t);
                       const root = document.documentElement;
                       root.dataset.theme = root.dataset.theme === 'dark' ? 'light' : 'dark';
                       t = performance.now();
                       getComputedStyle(document.body).color;
                       document.querySelectorAll('.move-list button, .dots-board circle').forEach((e) => e.offsetWidth);
                       restyle.push(performance.now() - t);
                     }}
                     document.body.style.width = '';
                     style.remove();
                     document.body.offsetHeight;
                     return [median(layout), median(restyle)];",
                    css = serde_json::to_string(css)?
                ))
                .await?;
            if round == 1 {
                println!(
                    "{:<34} {:>10.2} {:>10.2}",
                    name,
                    r[0].as_f64().unwrap_or(f64::NAN),
                    r[1].as_f64().unwrap_or(f64::NAN)
                );
            }
        }
    }
    b.close().await?;
    Ok(())
}
