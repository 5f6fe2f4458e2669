//! Screenshots of every page at 1366×768 (a laptop) and 390×844 (a phone),
//! for people to look at: the lobby, a game of each kind in progress (as a
//! player), a finished game, a waiting invite game, a replay and the How to
//! play pages, the analysis board (a finished game, a pasted Cumisitha
//! line, Dots), the accounts pages (sign-up, log-in, a profile, the
//! leaderboard, bots) and the tournament pages (list, form, a tournament),
//! in the light and the dark theme.
//!
//!     cargo run --release -p tabula-browser-tests --example screenshots
//!
//! The PNGs go to `target/browser-artifacts/pages/`.

use anyhow::{bail, Result};
use serde_json::{json, Value};
use tabula_browser_tests::{artifacts_dir, Browser, TestServer};

/// Creates a game through the API from inside the page and plays `moves`
/// random legal moves; returns {id, tokens}.
const SETUP: &str = r#"
const [body, moves, seed] = arguments;
const call = async (method, path, data) => {
  let r;
  for (;;) {
    r = await fetch(path, { method, headers: { 'content-type': 'application/json' }, body: data ? JSON.stringify(data) : undefined });
    if (r.status !== 429) break;
    // The server's rate limit: wait as it says.
    await new Promise((ok) => setTimeout(ok, 1000 * Number(r.headers.get('retry-after') || 1)));
  }
  const j = await r.json();
  if (!r.ok) throw new Error(JSON.stringify(j));
  return j;
};
let x = seed;
const rand = (n) => { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; return Math.abs(x) % n; };
(async () => {
  const created = await call('POST', '/api/games', body);
  let g = created.game;
  for (let i = 0; i < moves && g.state.status === 'ongoing'; i++) {
    let legal = g.state.legal_moves;
    if (g.game === 'dots') {
      const mid = legal.filter((m) => { const [a, b] = m.split('-').map(Number); return Math.abs(a - 20) <= 7 && Math.abs(b - 16) <= 7; });
      if (mid.length) legal = mid;
    }
    const token = created.tokens[g.state.to_move];
    if (!token) {
      // The AI's turn: wait for its move.
      const plies = g.state.plies;
      while (g.state.plies === plies && !g.result) {
        await new Promise((r) => setTimeout(r, 50));
        g = await call('GET', `/api/games/${g.id}`);
      }
      i--;
      continue;
    }
    g = (await call('POST', `/api/games/${g.id}/move`, { token, move: legal[rand(legal.length)] })).game;
  }
  return { id: g.id, tokens: created.tokens, invites: created.invites || [] };
})().then(arguments[arguments.length - 1], (e) => arguments[arguments.length - 1]({ error: String(e) }));
"#;

async fn setup(b: &Browser, body: Value, moves: u32) -> Result<Value> {
    let v = b.client.execute_async(SETUP, vec![body, json!(moves), json!(12345)]).await?;
    if v.get("error").is_some() {
        bail!("setting up a game: {v}");
    }
    Ok(v)
}

/// A page to photograph: its name, its path, and the game id and seat tokens to hold there.
type Page = (String, String, Option<(String, Value)>);

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let server = TestServer::start().await?;
    let dir = artifacts_dir().join("pages");
    std::fs::create_dir_all(&dir)?;
    let mut invites: Vec<(String, Value)> = Vec::new();
    let mut pages: Vec<Page> = vec![("lobby".into(), "/".into(), None), ("howto".into(), "/howto".into(), None)];
    for game in ["coldwar", "cordots", "cumisitha", "dots"] {
        pages.push((format!("howto-{game}"), format!("/howto/{game}"), None));
    }
    {
        let b = Browser::start(1366, 768).await?;
        b.goto(&server.url("/")).await?;
        b.wait("#new-game", 20).await?;
        let me = json!([{"kind": "me"}, {"kind": "me"}]);
        let games = [
            (
                "cordots-competitive",
                json!({"game": "cordots", "options": {"mode": "competitive"}, "seats": me}),
                16,
                "white",
            ),
            ("cumisitha", json!({"game": "cumisitha", "seats": me, "time_control": "fischer:300+3"}), 22, "white"),
            (
                "dots-express",
                json!({"game": "dots", "options": {"format": "express"}, "seats": me, "time_control": "fischer:600+5"}),
                90,
                "blue",
            ),
            (
                "coldwar-finished",
                json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "ai", "level": "easy"}]}),
                400,
                "x",
            ),
            (
                "cumisitha-vs-ai",
                json!({"game": "cumisitha", "seats": [{"kind": "me"}, {"kind": "ai", "level": "easy"}]}),
                12,
                "white",
            ),
            ("coldwar-waiting", json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "open"}]}), 0, "x"),
        ];
        for (name, body, moves, seat) in games {
            let made = setup(&b, body, moves).await?;
            let id = made["id"].as_str().unwrap_or_default().to_string();
            let token = made["tokens"][seat].clone();
            pages.push((name.to_string(), format!("/game/{id}"), Some((id.clone(), json!({ seat: token })))));
            if name == "coldwar-finished" {
                pages.push(("replay".into(), format!("/replay/{id}"), None));
                pages.push(("analysis-coldwar-game".into(), format!("/analysis?game={id}&ply=6"), None));
            }
            if name == "coldwar-waiting" {
                invites.push((id.clone(), made["invites"].clone()));
            }
        }
        pages.push((
            "analysis-cumisitha".into(),
            "/analysis/cumisitha?moves=e4%20e5%20Nf3%20Nc6%20Bb5%20a6".into(),
            None,
        ));
        pages.push((
            "analysis-dots".into(),
            "/analysis/dots?moves=15-12%2016-12%2015-13%2016-13%2017-13%2016-14".into(),
            None,
        ));
        // An account (for its profile page) and a tournament it created and joined.
        b.fetch_json(
            "POST",
            "/api/account/signup",
            Some(json!({"username": "Ann", "password": "correct horse battery"})),
        )
        .await?;
        let created = b
            .fetch_json(
                "POST",
                "/api/tournaments",
                Some(json!({"name": "Friday Arena", "game": "coldwar", "options": {}, "time_control": "none",
                    "system": {"kind": "round_robin"}, "rated": false, "starts_in_s": 3600, "max_players": 8,
                    "bots_allowed": true})),
            )
            .await?;
        let tournament = created["tournament"]["id"].as_str().unwrap_or_default().to_string();
        b.fetch_json("POST", &format!("/api/tournaments/{tournament}/join"), Some(json!({}))).await?;
        for (name, path) in [
            ("signup", "/signup".to_string()),
            ("login", "/login".to_string()),
            ("profile", "/@/Ann".to_string()),
            ("leaderboard", "/leaderboard".to_string()),
            ("bots", "/bots".to_string()),
            ("tournaments", "/tournaments".to_string()),
            ("tournament-new", "/tournaments/new".to_string()),
            ("tournament", format!("/tournament/{tournament}")),
        ] {
            pages.push((name.into(), path, None));
        }
        b.close().await?;
    }
    for (size, (w, h)) in [("laptop", (1366, 768)), ("phone", (390, 844))] {
        for theme in ["light", "dark"] {
            let b = Browser::start(w, h).await?;
            b.goto(&server.url("/")).await?;
            b.wait("#new-game", 20).await?;
            b.eval(&format!("localStorage.setItem('tabula.settings', JSON.stringify({{theme: '{theme}', board: 'wood', sound: true}})); return true;")).await?;
            for (id, list) in &invites {
                b.eval(&format!("localStorage.setItem('tabula.invites.{id}', JSON.stringify({list})); return true;"))
                    .await?;
            }
            for (name, path, seat) in &pages {
                if theme == "dark" && !matches!(name.as_str(), "lobby" | "cumisitha" | "dots-express" | "howto-dots") {
                    continue;
                }
                if let Some((id, tokens)) = seat {
                    b.eval(&format!(
                        "localStorage.setItem('tabula.tokens.{id}', JSON.stringify({tokens})); return true;"
                    ))
                    .await?;
                }
                b.goto(&server.url(path)).await?;
                b.wait("main#app > :not(.loading)", 20).await?;
                b.wait_js("!document.querySelector('.loading')", 20).await?;
                tokio::time::sleep(std::time::Duration::from_millis(400)).await;
                let file = format!("pages/{name}-{size}-{theme}");
                b.screenshot(&file).await?;
                if size == "phone" && theme == "light" {
                    // A phone window cannot grow: take the rest of the page screen by screen.
                    for part in 1..6 {
                        let more = b
                            .eval(&format!(
                                "window.scrollTo(0, innerHeight * {part}); return scrollY > innerHeight * {} ;",
                                part - 1
                            ))
                            .await?;
                        if more != true {
                            break;
                        }
                        b.screenshot(&format!("{file}-{part}")).await?;
                    }
                }
            }
            b.close().await?;
        }
    }
    println!("screenshots in {}", dir.display());
    server.stop().await
}
