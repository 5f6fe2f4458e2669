//! End-to-end tests of Tabula's web front end.
//!
//! The harness starts the real server (the `tabula-server` library that
//! `tabula serve` runs, with the web front end embedded, on a free loopback
//! port with a fresh database) and drives
//! Debian's headless Chromium through chromedriver over WebDriver. Nothing
//! is mocked: if Chromium or chromedriver is missing the tests fail and say
//! how to install them.
//!
//! [`examples`] computes the boards of the How to play pages with the game
//! engines, so the pages draw real positions.
#![warn(missing_docs)]

pub mod examples;

use anyhow::{bail, Context, Result};
use fantoccini::actions::{Actions, InputSource, MouseActions, PointerAction, TouchActions, MOUSE_BUTTON_LEFT};
use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where Debian's chromium package puts the browser.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// Where Debian's chromium-driver package puts the driver.
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// Where screenshots go: `target/browser-artifacts/` (git-ignored).
pub fn artifacts_dir() -> PathBuf {
    let dir = target_dir().join("browser-artifacts");
    std::fs::create_dir_all(&dir).expect("create the artefacts folder");
    dir
}

/// The target folder this test binary was built into (`.../target`).
fn target_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    workspace_root().join("target")
}

/// A free TCP port on loopback (the OS picks it; we release it at once).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

fn wait_for_port(port: u16, child: &mut Child, what: &str, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    loop {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if let Some(status) = child.try_wait()? {
            bail!("{what} exited before listening on port {port}: {status}");
        }
        if Instant::now() > deadline {
            bail!("{what} did not listen on port {port} within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills a child process when dropped, so a failing test leaves nothing behind.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The real server (the library behind `tabula serve`), in this process on a
/// free loopback port with a fresh database in a temporary folder.
pub struct TestServer {
    /// The server's root URL, `http://127.0.0.1:PORT`.
    pub base: String,
    addr: std::net::SocketAddr,
    running: Option<tabula_server::Running>,
    dir: tempfile::TempDir,
    tune: fn(&mut tabula_server::Config),
}

impl TestServer {
    /// Starts a server on a free loopback port with a fresh database.
    pub async fn start() -> Result<TestServer> {
        TestServer::start_with(|_| {}).await
    }

    /// [`TestServer::start`] with the server's configuration changed by
    /// `tune` (e.g. shorter room times); a [`TestServer::resume`] keeps it.
    pub async fn start_with(tune: fn(&mut tabula_server::Config)) -> Result<TestServer> {
        let dir = tempfile::tempdir()?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let running = TestServer::run(listener, &dir, tune).await.context("starting the tabula server")?;
        let addr = running.addr;
        Ok(TestServer { base: format!("http://{addr}"), addr, running: Some(running), dir, tune })
    }

    async fn run(
        listener: tokio::net::TcpListener,
        dir: &tempfile::TempDir,
        tune: fn(&mut tabula_server::Config),
    ) -> Result<tabula_server::Running> {
        let mut config = tabula_server::Config::new(dir.path().join("tabula.sqlite3"));
        tune(&mut config);
        Ok(tabula_server::start_with(listener, config).await?)
    }

    /// The full URL of `path` (which starts with `/`) on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Stops the server as a crash or a restart would look to a browser (the
    /// port closes, every WebSocket drops); [`TestServer::resume`] brings it
    /// back on the same port with the same database.
    pub async fn pause(&mut self) -> Result<()> {
        if let Some(running) = self.running.take() {
            running.shutdown().await?;
        }
        Ok(())
    }

    /// Starts the server again after [`TestServer::pause`].
    pub async fn resume(&mut self) -> Result<()> {
        let listener =
            tokio::net::TcpListener::bind(self.addr).await.with_context(|| format!("binding {} again", self.addr))?;
        let running = TestServer::run(listener, &self.dir, self.tune).await.context("restarting the tabula server")?;
        self.running = Some(running);
        Ok(())
    }

    /// Shuts the server down gracefully (its games are saved either way).
    pub async fn stop(mut self) -> Result<()> {
        self.pause().await
    }
}

/// A headless Chromium session driven through its own chromedriver.
pub struct Browser {
    /// The WebDriver client, for what the helpers below do not cover.
    pub client: Client,
    _driver: KillOnDrop,
    _profile: tempfile::TempDir,
}

/// Fails with a clear message when the system's Chromium is not there.
pub fn require_chromium() {
    for (path, package) in [(CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")] {
        assert!(
            Path::new(path).exists(),
            "{path} is missing: the browser tests need Debian's Chromium. Install it with \
             `apt-get update && apt-get install -y chromium chromium-driver` (./scripts/test does this), \
             package {package}"
        );
    }
}

impl Drop for Browser {
    /// A test that fails half-way never calls [`Browser::close`]: end the
    /// Chromium processes of this browser's own profile (found by that unique
    /// folder in their command line) so they do not outlive the test.
    fn drop(&mut self) {
        let marker = format!("--user-data-dir={}", self._profile.path().display());
        let Ok(entries) = std::fs::read_dir("/proc") else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name.to_str().filter(|n| n.bytes().all(|b| b.is_ascii_digit())) else { continue };
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            if cmdline.split(|&b| b == 0).any(|arg| arg == marker.as_bytes()) {
                let _ = Command::new("kill").arg("-9").arg(pid).stderr(Stdio::null()).status();
            }
        }
    }
}

impl Browser {
    /// A fresh browser (own profile) whose pages get `width`×`height` CSS pixels.
    pub async fn start(width: u32, height: u32) -> Result<Browser> {
        require_chromium();
        let profile = tempfile::tempdir()?;
        let port = free_port();
        let mut child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting chromedriver")?;
        wait_for_port(port, &mut child, "chromedriver", Duration::from_secs(20))?;
        let driver = KillOnDrop(child);
        let args = vec![
            "--headless".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-quic".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--disable-dev-shm-usage".into(),
            "--hide-scrollbars".into(),
            format!("--window-size={width},{height}"),
            format!("--user-data-dir={}", profile.path().display()),
        ];
        let mut chrome = json!({ "binary": CHROMIUM, "args": args });
        if width < 500 {
            // Desktop Chromium windows are at least 500 px wide; a phone needs emulating.
            chrome["mobileEmulation"] = json!({
                "deviceMetrics": { "width": width, "height": height, "pixelRatio": 2, "touch": true },
            });
        }
        let caps = json!({ "browserName": "chrome", "goog:chromeOptions": chrome });
        let caps = match caps {
            Value::Object(map) => map,
            _ => unreachable!(),
        };
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .context("opening a WebDriver session in Chromium")?;
        let browser = Browser { client, _driver: driver, _profile: profile };
        if width >= 500 {
            // The window includes the browser's own frame: size it so that the
            // page itself gets `width`×`height` CSS pixels, as on a real screen.
            let inner = browser.eval("return [innerWidth, innerHeight];").await?;
            let (iw, ih) = (inner[0].as_u64().unwrap_or(0) as u32, inner[1].as_u64().unwrap_or(0) as u32);
            if (iw, ih) != (width, height) && iw > 0 && ih > 0 {
                browser
                    .client
                    .set_window_size(width + width.saturating_sub(iw), height + height.saturating_sub(ih))
                    .await?;
            }
        }
        Ok(browser)
    }

    /// Opens `url` in the browser's one window.
    pub async fn goto(&self, url: &str) -> Result<()> {
        self.client.goto(url).await.with_context(|| format!("loading {url}"))
    }

    /// Waits (up to `secs`) for an element matching `css`.
    pub async fn wait(&self, css: &str, secs: u64) -> Result<Element> {
        self.client
            .wait()
            .at_most(Duration::from_secs(secs))
            .for_element(Locator::Css(css))
            .await
            .with_context(|| format!("waiting {secs} s for `{css}`"))
    }

    /// Waits until `js` (an expression) is truthy; returns its value.
    pub async fn wait_js(&self, js: &str, secs: u64) -> Result<Value> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            // An expression that throws (an element not drawn yet, a page
            // still loading) is not true yet; the last error is reported.
            let value = match self.eval(&format!("return ({js});")).await {
                Ok(value) => value,
                Err(e) if Instant::now() > deadline => return Err(e.context(format!("waited {secs} s for `{js}`"))),
                Err(_) => Value::Null,
            };
            let truthy = !matches!(value, Value::Null | Value::Bool(false)) && value != json!(0) && value != json!("");
            if truthy {
                return Ok(value);
            }
            if Instant::now() > deadline {
                bail!("waited {secs} s for `{js}`; it is still {value}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Runs `script` in the page and returns what it returns.
    pub async fn eval(&self, script: &str) -> Result<Value> {
        self.client.execute(script, vec![]).await.with_context(|| format!("running `{script}`"))
    }

    /// Clicks the element matching `css` once it is there.
    pub async fn click(&self, css: &str) -> Result<()> {
        self.on_fresh(css, |el| async move { el.click().await }).await.with_context(|| format!("clicking `{css}`"))
    }

    /// Text of the element matching `css`.
    pub async fn text(&self, css: &str) -> Result<String> {
        self.on_fresh(css, |el| async move { el.text().await }).await.with_context(|| format!("reading `{css}`"))
    }

    /// Picks the option `value` of the `<select>` matching `css`.
    pub async fn select(&self, css: &str, value: &str) -> Result<()> {
        self.on_fresh(css, |el| async move { el.select_by_value(value).await })
            .await
            .with_context(|| format!("choosing `{value}` in `{css}`"))
    }

    /// Replaces the text of the input matching `css` with `value`.
    pub async fn fill(&self, css: &str, value: &str) -> Result<()> {
        self.on_fresh(css, |el| async move {
            el.clear().await?;
            el.send_keys(value).await
        })
        .await
        .with_context(|| format!("typing `{value}` into `{css}`"))
    }

    /// Sets the form field matching `css` to `value`, whether it is a
    /// `<select>` or an input.
    pub async fn set_field(&self, css: &str, value: &str) -> Result<()> {
        let tag = self.on_fresh(css, |el| async move { el.tag_name().await }).await?;
        if tag == "select" {
            self.select(css, value).await
        } else {
            self.fill(css, value).await
        }
    }

    /// Runs `act` on the element matching `css`, finding it again when the
    /// page replaced it in between (a "stale element": the lobby redraws its
    /// form on every change and the clocks redraw every tick), a few times.
    async fn on_fresh<T, F, Fut>(&self, css: &str, act: F) -> Result<T>
    where
        F: Fn(Element) -> Fut,
        Fut: std::future::Future<Output = std::result::Result<T, fantoccini::error::CmdError>>,
    {
        let mut tries = 0;
        loop {
            let el = self.wait(css, 10).await?;
            match act(el).await {
                Err(e) if e.is_stale_element_reference() && tries < 5 => tries += 1,
                other => return Ok(other?),
            }
        }
    }

    /// Runs `js` (a function body that ends by calling `done(value)`) and waits for the value.
    pub async fn eval_async(&self, js: &str) -> Result<Value> {
        let script = format!("const done = arguments[arguments.length - 1]; {js}");
        self.client.execute_async(&script, vec![]).await.with_context(|| format!("running `{js}`"))
    }

    /// One API request made from the page, so it carries the page's session
    /// cookie; the JSON answer, or an error naming the status when it is not
    /// a success.
    pub async fn fetch_json(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value> {
        // Each as a JSON string, which is a JavaScript string literal too.
        let body = json!(body.map(|v| v.to_string()).unwrap_or_default());
        let (path, method) = (json!(path), json!(method));
        let answer = self
            .eval_async(&format!(
                "const body = {body};
                 fetch({path}, {{method: {method}, headers: body ? {{'content-type': 'application/json'}} : {{}}, body: body || undefined}})
                   .then(async r => done({{status: r.status, text: await r.text()}}))
                   .catch(e => done({{status: 0, text: String(e)}}));"
            ))
            .await?;
        let status = answer["status"].as_u64().unwrap_or(0);
        let text = answer["text"].as_str().unwrap_or_default();
        if !(200..300).contains(&status) {
            bail!("{method} {path} answered {status}: {text}");
        }
        serde_json::from_str(text).with_context(|| format!("{method} {path} answered {text}"))
    }

    /// A hot-seat game of `game` (both seats this page's), made through the
    /// API from the page.
    pub async fn hot_seat_game(&self, game: &str) -> Result<HotSeat> {
        let body = json!({"game": game, "seats": [{"kind": "me"}, {"kind": "me"}]});
        let created = self.fetch_json("POST", "/api/games", Some(body)).await?;
        let id = created["game"]["id"].as_str().context("a game id")?.to_string();
        Ok(HotSeat { id, tokens: created["tokens"].clone(), game: created["game"].clone() })
    }

    /// A mouse click at a point of the viewport (CSS pixels).
    pub async fn click_at(&self, x: f64, y: f64) -> Result<()> {
        let mouse = MouseActions::new("mouse".into())
            .then(PointerAction::MoveTo { duration: None, x: x.round(), y: y.round() })
            .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
            .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
        self.client.perform_actions(mouse).await.context("clicking")?;
        self.client.release_actions().await?;
        Ok(())
    }

    /// Drags with the mouse from one viewport point to another, in small steps as a hand would.
    pub async fn mouse_drag(&self, from: (f64, f64), to: (f64, f64)) -> Result<()> {
        let mouse = drag_steps(MouseActions::new("mouse".into()), from, to);
        self.client.perform_actions(mouse).await.context("dragging with the mouse")?;
        self.client.release_actions().await?;
        Ok(())
    }

    /// Drags one finger across the screen.
    pub async fn touch_drag(&self, from: (f64, f64), to: (f64, f64)) -> Result<()> {
        let finger = drag_steps(TouchActions::new("finger".into()), from, to);
        self.client.perform_actions(finger).await.context("dragging a finger")?;
        self.client.release_actions().await?;
        Ok(())
    }

    /// A finger tap at a point of the viewport.
    pub async fn tap_at(&self, x: f64, y: f64) -> Result<()> {
        let finger = TouchActions::new("finger".into())
            .then(PointerAction::MoveTo { duration: None, x: x.round(), y: y.round() })
            .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
            .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
        self.client.perform_actions(finger).await.context("tapping")?;
        self.client.release_actions().await?;
        Ok(())
    }

    /// Two fingers moving apart (`spread` > 1) or together around a centre point.
    pub async fn pinch(&self, centre: (f64, f64), start_gap: f64, spread: f64) -> Result<()> {
        let finger = |id: &str, side: f64| {
            let mut f = TouchActions::new(id.into())
                .then(PointerAction::MoveTo {
                    duration: None,
                    x: (centre.0 + side * start_gap / 2.0).round(),
                    y: centre.1.round(),
                })
                .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT });
            for step in 1..=8 {
                let gap = start_gap * (1.0 + (spread - 1.0) * f64::from(step) / 8.0);
                f = f.then(PointerAction::MoveTo {
                    duration: Some(Duration::from_millis(20)),
                    x: (centre.0 + side * gap / 2.0).round(),
                    y: centre.1.round(),
                });
            }
            f.then(PointerAction::Up { button: MOUSE_BUTTON_LEFT })
        };
        let actions = Actions::from(finger("finger1", -1.0)).and(finger("finger2", 1.0));
        self.client.perform_actions(actions).await.context("pinching")?;
        self.client.release_actions().await?;
        Ok(())
    }

    /// Types keys into whatever has the focus (a string, or `Key` values collected into one).
    pub async fn keys(&self, keys: &str) -> Result<()> {
        let active = self.client.active_element().await.context("finding the focused element")?;
        active.send_keys(keys).await.with_context(|| format!("typing {keys:?}"))
    }

    /// Saves a PNG of the window under `target/browser-artifacts/`.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf> {
        let png = self.client.screenshot().await.context("taking a screenshot")?;
        let path = artifacts_dir().join(format!("{name}.png"));
        std::fs::write(&path, png)?;
        Ok(path)
    }

    /// Saves a PNG of the whole page (the window grows to the page's height).
    pub async fn full_page_screenshot(&self, name: &str) -> Result<PathBuf> {
        let (width, height) = self.client.get_window_size().await?;
        let page = self.eval("return document.documentElement.scrollHeight;").await?.as_u64().unwrap_or(1000);
        self.client.set_window_size(width as u32, (page as u32 + 140).min(12000)).await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let path = self.screenshot(name).await;
        self.client.set_window_size(width as u32, height as u32).await?;
        path
    }

    /// Ends the session and stops its chromedriver.
    pub async fn close(self) -> Result<()> {
        self.client.clone().close().await.context("closing the browser")?;
        Ok(())
    }
}

/// Press at `from`, move to `to` in eight steps of 20 ms, release.
fn drag_steps<S: InputSource<Action = PointerAction>>(source: S, from: (f64, f64), to: (f64, f64)) -> S {
    let mut source = source
        .then(PointerAction::MoveTo { duration: None, x: from.0.round(), y: from.1.round() })
        .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT });
    for step in 1..=8 {
        let k = f64::from(step) / 8.0;
        let (x, y) = (from.0 + (to.0 - from.0) * k, from.1 + (to.1 - from.1) * k);
        source = source.then(PointerAction::MoveTo {
            duration: Some(Duration::from_millis(20)),
            x: x.round(),
            y: y.round(),
        });
    }
    source.then(PointerAction::Up { button: MOUSE_BUTTON_LEFT })
}

/// A hot-seat game made by [`Browser::hot_seat_game`]: its id, and the game
/// as the API last gave it.
pub struct HotSeat {
    /// The game's id.
    pub id: String,
    /// Each seat's token, by player.
    tokens: Value,
    /// The game as the API last gave it (`{"id", "state", ...}`).
    pub game: Value,
}

impl HotSeat {
    /// The seat token of the player to move.
    pub fn token_to_move(&self) -> &Value {
        &self.tokens[self.game["state"]["to_move"].as_str().unwrap_or_default()]
    }

    /// Plays `mv` for the player to move, through the API.
    pub async fn play(&mut self, b: &Browser, mv: &str) -> Result<()> {
        let body = json!({"token": self.token_to_move(), "move": mv});
        self.game = b.fetch_json("POST", &format!("/api/games/{}/move", self.id), Some(body)).await?["game"].clone();
        Ok(())
    }
}
