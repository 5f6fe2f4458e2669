//! The server's JSON bodies and WebSocket messages, over real sockets to a
//! real server (loopback, throwaway database, time that stands still).
//!
//! Each input is sent as a WebSocket message (as it is, and, when it is a
//! JSON object, again with a real seat token so moves reach the room), and
//! as the body of the create, join, move and draw requests. The server must
//! answer every one of them, and stay up.
#![no_main]
use futures_util::{SinkExt, StreamExt};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;
use tabula_server::time::{ManualTime, Time};
use tabula_server::Config;
use tokio::runtime::Runtime;
use tokio_tungstenite::tungstenite::Message;

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Below the server's WebSocket message limit, so messages are read, not refused.
const MAX_MESSAGE: usize = 12 * 1024;
/// A fresh game (and socket) this often, so finished games do not stop moves.
const NEW_GAME_EVERY: u64 = 300;
/// No answer in this long means the server hung.
const ANSWER_WITHIN: Duration = Duration::from_secs(60);

struct Fixture {
    rt: Runtime,
    base: String,
    _running: tabula_server::Running,
    http: Option<TcpStream>,
    game: Option<(String, Vec<String>, Socket)>,
    inputs: u64,
}

fn fixture() -> &'static Mutex<Fixture> {
    static FIXTURE: OnceLock<Mutex<Fixture>> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let dir = std::env::temp_dir().join(format!("tabula-fuzz-server-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut cfg = Config::new(dir.join("fuzz.sqlite3"));
        cfg.time = Time::from_source(ManualTime::new(1_764_460_800_000));
        cfg.rate = tabula_server::config::RateLimits::unlimited();
        cfg.ai.max_thinking = 1;
        let running = rt.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tabula_server::start_with(listener, cfg).await.expect("the server starts")
        });
        let base = format!("127.0.0.1:{}", running.addr.port());
        Mutex::new(Fixture { rt, base, _running: running, http: None, game: None, inputs: 0 })
    })
}

impl Fixture {
    /// One request on the kept-alive connection; returns the status.
    fn request(&mut self, method: &str, path: &str, body: &[u8]) -> (u16, Value) {
        for _attempt in 0..3 {
            if self.http.is_none() {
                let s = TcpStream::connect(&self.base).expect("the server accepts");
                s.set_read_timeout(Some(ANSWER_WITHIN)).unwrap();
                s.set_nodelay(true).unwrap();
                self.http = Some(s);
            }
            let s = self.http.as_mut().unwrap();
            let mut request = format!(
                "{method} {path} HTTP/1.1\r\nHost: fuzz\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )
            .into_bytes();
            request.extend_from_slice(body);
            if s.write_all(&request).is_err() {
                self.http = None;
                continue;
            }
            match read_response(s) {
                Some((status, close, json)) => {
                    if close {
                        self.http = None;
                    }
                    return (status, json);
                }
                None => self.http = None,
            }
        }
        panic!("{method} {path}: no answer from the server");
    }

    fn new_game(&mut self) {
        let body = br#"{"game":"cumisitha","seats":[{"kind":"me"},{"kind":"me"}]}"#;
        let (status, created) = self.request("POST", "/api/games", body);
        assert_eq!(status, 201, "cannot create a game: {created}");
        let id = created["game"]["id"].as_str().unwrap().to_string();
        let tokens = created["tokens"].as_object().unwrap().values().map(|t| t.as_str().unwrap().to_string()).collect();
        let url = format!("ws://{}/api/games/{id}/ws", self.base);
        let (socket, _) =
            self.rt.block_on(tokio_tungstenite::connect_async_with_config(url, None, true)).expect("the socket opens");
        self.game = Some((id, tokens, socket));
    }

    /// Send one WebSocket message and wait for its answer. `false` when the
    /// server closed the socket (it may, for a message it refuses).
    fn ws(&mut self, text: String) -> bool {
        let (_, _, socket) = self.game.as_mut().unwrap();
        self.rt.block_on(async {
            if socket.send(Message::Text(text.into())).await.is_err() {
                return false;
            }
            loop {
                match tokio::time::timeout(ANSWER_WITHIN, socket.next()).await.expect("the server answers in time") {
                    Some(Ok(Message::Text(t))) => {
                        let v: Value = serde_json::from_str(&t).expect("the server sends JSON");
                        if matches!(v["type"].as_str(), Some("ack" | "pong" | "error")) {
                            return true;
                        }
                    }
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return false,
                    Some(Ok(_)) => {}
                }
            }
        })
    }
}

/// Status, whether the server closes the connection, and the JSON body
/// (which every answer must have).
fn read_response(s: &mut TcpStream) -> Option<(u16, bool, Value)> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = s.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
    let status: u16 = head.split_whitespace().nth(1)?.parse().ok()?;
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map(|v| v.trim().parse().expect("a numeric Content-Length"))
        .expect("every answer has a Content-Length");
    while raw.len() < head_end + length {
        let n = s.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    let close = head.contains("connection: close");
    let body = &raw[head_end..head_end + length];
    let json = serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("status {status}: the body is not JSON ({e}): {}", String::from_utf8_lossy(body)));
    Some((status, close, json))
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_MESSAGE {
        return;
    }
    let mut f = fixture().lock().unwrap_or_else(|p| p.into_inner());
    f.inputs += 1;
    if f.game.is_none() || f.inputs % NEW_GAME_EVERY == 0 {
        f.new_game();
    }
    let text = String::from_utf8_lossy(data).into_owned();

    // As a WebSocket message, then with a seat's token.
    let mut open = f.ws(text.clone());
    if let (true, Ok(Value::Object(mut m))) = (open, serde_json::from_str::<Value>(&text)) {
        let (_, tokens, _) = f.game.as_ref().unwrap();
        let token = tokens[data.len() % tokens.len()].clone();
        m.insert("token".into(), Value::String(token));
        open = f.ws(Value::Object(m).to_string());
    }
    if !open {
        f.game = None;
    }

    // As request bodies.
    let id = f.game.as_ref().map(|g| g.0.clone()).unwrap_or_else(|| "nosuchgame".into());
    for path in [
        "/api/games".to_string(),
        format!("/api/games/{id}/move"),
        format!("/api/games/{id}/join"),
        format!("/api/games/{id}/draw"),
    ] {
        let (status, body) = f.request("POST", &path, data);
        assert!(status < 500, "POST {path}: {status} {body}");
    }
});
