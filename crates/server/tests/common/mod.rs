//! Test helpers: a server on a loopback port with a fresh database, a tiny
//! HTTP/1.1 client and a WebSocket client.
#![allow(dead_code)]

pub mod stubborn;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tabula_server::time::{ManualTime, Time};
use tabula_server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;

pub struct TestServer {
    pub running: tabula_server::Running,
    /// With `TABULA_TEST_NATS` set (on PostgreSQL), the addresses of the
    /// cluster's other two nodes: `base` is then a round-robin proxy over
    /// all three. They stop with [`TestServer::shutdown`], or when a server
    /// starts again on the same database (a restart of the cluster).
    pub others: Vec<std::net::SocketAddr>,
    pub base: String,
    pub db: PathBuf,
    /// The server's time: tests move it by hand, nothing sleeps.
    pub time: Arc<ManualTime>,
}

impl TestServer {
    /// Move the server's time forward and let its timers run.
    pub async fn advance(&self, ms: u64) {
        self.time.advance(ms);
        settle().await;
    }

    /// Stop the server: every node, on a cluster.
    pub async fn shutdown(self) {
        stop_other_nodes(&self.db).await;
        self.running.shutdown().await.unwrap();
    }

    /// The server's health figures; on a cluster, the first node's, with
    /// its counters (`ai_thinking`, `games_in_memory`…) summed over every
    /// node.
    pub async fn health(&self) -> Value {
        let mut sum = get(&self.base, "/api/health").await.json();
        if self.others.is_empty() {
            return sum;
        }
        sum = get(&self.running.addr.to_string(), "/api/health").await.json();
        for node in &self.others {
            let h = get(&node.to_string(), "/api/health").await.json();
            for (k, v) in sum.as_object_mut().unwrap() {
                if let (Some(a), Some(b)) = (v.as_u64(), h[k.as_str()].as_u64()) {
                    *v = (a + b).into();
                }
            }
        }
        sum
    }
}

/// Let spawned tasks run (a few scheduler turns, no wall-clock wait).
pub async fn settle() {
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
}

/// Wait in real time, up to `within`, until `check` holds; fails naming
/// `what` if it never does. For work the server finishes in the
/// background (an AI thinking, a database write on a busy PostgreSQL)
/// that no manual clock step can wait for.
pub async fn poll_until(what: &str, within: Duration, mut check: impl AsyncFnMut() -> bool) {
    let until = std::time::Instant::now() + within;
    while !check().await {
        assert!(std::time::Instant::now() < until, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// An instant in late 2025, where every test's time starts.
pub const T0: u64 = 1_764_460_800_000;

/// A fresh database for the test `name`, named by a path. With
/// `TABULA_TEST_POSTGRES` set (to a PostgreSQL server's URL, as
/// scripts/test does on its second pass), the path only names a fresh
/// PostgreSQL database on that server: see [`database`].
pub fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tabula-server-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("test.sqlite3");
    if let Some(base) = postgres_base() {
        let name = postgres_name(&path);
        sql::run(&base, move |base| async move {
            use sqlx::{Connection, Executor};
            let mut admin = sqlx::PgConnection::connect(&base).await?;
            admin.execute(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))).await?;
            admin.execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\""))).await?;
            Ok(())
        });
    }
    path
}

/// The PostgreSQL server the tests run on, if any (`TABULA_TEST_POSTGRES`).
pub fn postgres_base() -> Option<String> {
    std::env::var("TABULA_TEST_POSTGRES").ok().filter(|v| !v.is_empty())
}

/// The PostgreSQL database that stands for the SQLite path `path`.
fn postgres_name(path: &std::path::Path) -> String {
    let dir = path.parent().and_then(|d| d.file_name()).unwrap().to_string_lossy();
    let name: String = dir
        .trim_start_matches("tabula-server-test-")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
        .collect();
    format!("t_{}", &name[..name.len().min(60)])
}

/// The database a test's path stands for: the SQLite file itself, or its
/// PostgreSQL database when the tests run on PostgreSQL.
pub fn database(path: &std::path::Path) -> tabula_server::config::Database {
    match postgres_base() {
        None => tabula_server::config::Database::Sqlite(path.to_path_buf()),
        Some(base) => {
            let (server, _) = base.rsplit_once('/').expect("TABULA_TEST_POSTGRES is postgres://…/DATABASE");
            let url = format!("{server}/{}", postgres_name(path));
            PATHS.lock().unwrap().insert(url.clone(), path.to_path_buf());
            tabula_server::config::Database::Postgres(url)
        }
    }
}

/// The path each PostgreSQL database stands for, so a server started from
/// a configuration still knows its test path.
static PATHS: std::sync::Mutex<std::collections::BTreeMap<String, PathBuf>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// Tests that reach into the stored data directly, on either backend.
/// The SQL uses `?1`, `?2`… placeholders (turned into `$1`… for
/// PostgreSQL).
pub mod sql {
    use std::future::Future;
    use std::path::Path;

    /// A parameter.
    #[derive(Debug, Clone)]
    pub enum Param {
        /// Text.
        Text(String),
        /// An integer.
        Int(i64),
        /// A real number.
        Real(f64),
    }

    impl From<&str> for Param {
        fn from(v: &str) -> Param {
            Param::Text(v.to_string())
        }
    }
    impl From<&String> for Param {
        fn from(v: &String) -> Param {
            Param::Text(v.clone())
        }
    }
    impl From<i64> for Param {
        fn from(v: i64) -> Param {
            Param::Int(v)
        }
    }
    impl From<f64> for Param {
        fn from(v: f64) -> Param {
            Param::Real(v)
        }
    }

    /// Run `f` on PostgreSQL from synchronous code, on its own runtime.
    pub fn run<F, Fut, T>(url: &str, f: F) -> T
    where
        F: FnOnce(String) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, sqlx::Error>>,
        T: Send + 'static,
    {
        let url = url.to_string();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(f(url)).unwrap_or_else(|e| panic!("PostgreSQL: {e}"))
        })
        .join()
        .unwrap()
    }

    fn dollars(sql: &str) -> String {
        sql.replace('?', "$")
    }

    fn url(db: &Path) -> Option<String> {
        match super::database(db) {
            tabula_server::config::Database::Postgres(url) => Some(url),
            tabula_server::config::Database::Sqlite(_) => None,
        }
    }

    /// Execute one statement; returns the rows it changed.
    pub fn exec(db: &Path, sql: &str, params: &[Param]) -> u64 {
        match url(db) {
            None => {
                let conn = rusqlite::Connection::open(db).unwrap();
                let values: Vec<rusqlite::types::Value> = params
                    .iter()
                    .map(|p| match p {
                        Param::Text(t) => rusqlite::types::Value::Text(t.clone()),
                        Param::Int(i) => rusqlite::types::Value::Integer(*i),
                        Param::Real(r) => rusqlite::types::Value::Real(*r),
                    })
                    .collect();
                conn.execute(sql, rusqlite::params_from_iter(values)).unwrap() as u64
            }
            Some(url) => {
                let (sql, params) = (dollars(sql), params.to_vec());
                run(&url, move |url| async move {
                    use sqlx::Connection;
                    let mut conn = sqlx::PgConnection::connect(&url).await?;
                    let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
                    for p in params {
                        q = match p {
                            Param::Text(t) => q.bind(t),
                            Param::Int(i) => q.bind(i),
                            Param::Real(r) => q.bind(r),
                        };
                    }
                    Ok(q.execute(&mut conn).await?.rows_affected())
                })
            }
        }
    }

    /// The first column of every row, as text (NULL as "").
    pub fn texts(db: &Path, sql: &str) -> Vec<String> {
        match url(db) {
            None => {
                let conn = rusqlite::Connection::open(db).unwrap();
                let mut st = conn.prepare(sql).unwrap();
                let rows = st.query_map([], |r| r.get::<_, Option<String>>(0)).unwrap();
                rows.map(|r| r.unwrap().unwrap_or_default()).collect()
            }
            Some(url) => {
                let sql = dollars(sql);
                run(&url, move |url| async move {
                    use sqlx::{Connection, Row};
                    let mut conn = sqlx::PgConnection::connect(&url).await?;
                    let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch_all(&mut conn).await?;
                    rows.iter().map(|r| r.try_get::<Option<String>, _>(0).map(Option::unwrap_or_default)).collect()
                })
            }
        }
    }
}

/// The test configuration: manual time, generous limits unless a test
/// tightens them.
pub fn config(db: PathBuf, time: &Arc<ManualTime>) -> Config {
    let mut cfg = Config::new(database(&db));
    cfg.time = Time::from_source(time.clone());
    // Every helper request opens a connection, and test time stands still:
    // only the test of this limit turns it on.
    cfg.rate.connections = tabula_server::config::Rate::UNLIMITED;
    cfg
}

pub async fn start_config(cfg: Config, time: Arc<ManualTime>) -> TestServer {
    start_config_as(cfg, time, false).await
}

/// [`start_with`], but a server alone on its database even when the tests
/// run on clusters: for tests of one node's own resources (its
/// connections, its memory).
pub async fn start_alone_with(name: &str, tune: impl FnOnce(&mut Config)) -> TestServer {
    let time = ManualTime::new(T0);
    let mut cfg = config(temp_db(name), &time);
    tune(&mut cfg);
    start_config_as(cfg, time, true).await
}

/// [`start_on`], but a server alone even when the tests run on clusters.
pub async fn start_alone_on(db: PathBuf, time: Arc<ManualTime>) -> TestServer {
    start_config_as(config(db, &time), time, true).await
}

async fn start_config_as(cfg: Config, time: Arc<ManualTime>, alone: bool) -> TestServer {
    if let Ok(filter) = std::env::var("TABULA_LOG") {
        let _ = tracing_subscriber::fmt().with_env_filter(filter).with_test_writer().try_init();
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let db = match &cfg.db {
        tabula_server::config::Database::Sqlite(path) => path.clone(),
        tabula_server::config::Database::Postgres(url) => {
            PATHS.lock().unwrap().get(url).cloned().expect("a test database comes from common::database")
        }
    };
    if let (Some(nats), tabula_server::config::Database::Postgres(_), false) = (nats_url(), &cfg.db, alone) {
        drop(listener);
        stop_other_nodes(&db).await;
        let mut nodes = start_cluster(&cfg, &nats, 3).await;
        let base = round_robin(nodes.iter().map(|n| n.addr).collect()).await;
        let running = nodes.remove(0);
        let others = nodes.iter().map(|n| n.addr).collect();
        OTHER_NODES.lock().unwrap().extend(nodes.into_iter().map(|n| (db.clone(), n)));
        return TestServer { running, others, base, db, time };
    }
    let running = tabula_server::start_with(listener, cfg).await.unwrap();
    let base = format!("127.0.0.1:{}", running.addr.port());
    TestServer { running, others: Vec::new(), base, db, time }
}

/// The nodes of the test clusters besides the first (which the tests stop
/// themselves), by database.
static OTHER_NODES: std::sync::Mutex<Vec<(PathBuf, tabula_server::Running)>> = std::sync::Mutex::new(Vec::new());

/// Stop the other nodes of the cluster on `db`, if any.
async fn stop_other_nodes(db: &std::path::Path) {
    let stopping: Vec<tabula_server::Running> = {
        let mut all = OTHER_NODES.lock().unwrap();
        let (mine, rest) = std::mem::take(&mut *all).into_iter().partition(|(d, _)| d == db);
        *all = rest;
        mine.into_iter().map(|(_, n)| n).collect()
    };
    for node in stopping {
        let _ = node.shutdown().await;
    }
}

/// The NATS server the tests run their servers as 3-node clusters on
/// (`TABULA_TEST_NATS`, used with `TABULA_TEST_POSTGRES`).
pub fn nats_url() -> Option<String> {
    std::env::var("TABULA_TEST_NATS").ok().filter(|v| !v.is_empty())
}

/// `n` cluster nodes on `cfg`'s database and the NATS server `nats`, in a
/// cluster of their own (so tests running at once never meet).
pub async fn start_cluster(cfg: &Config, nats: &str, n: usize) -> Vec<tabula_server::Running> {
    static CLUSTERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let name = format!("t{}_{}", std::process::id(), CLUSTERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let mut nodes = Vec::new();
    for i in 0..n {
        let mut c = cfg.clone();
        let mut cluster = tabula_server::cluster::ClusterConfig::new(nats, &name, &format!("n{i}"));
        cluster.lease_ms = 2_000;
        c.cluster = Some(cluster);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        nodes.push(tabula_server::start_with(listener, c).await.unwrap());
    }
    nodes
}

/// A load balancer for the tests: each new connection goes to the next
/// node in turn. Returns its address.
pub async fn round_robin(nodes: Vec<std::net::SocketAddr>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("127.0.0.1:{}", listener.local_addr().unwrap().port());
    tokio::spawn(async move {
        let mut next = 0usize;
        while let Ok((mut client, _)) = listener.accept().await {
            let node = nodes[next % nodes.len()];
            next += 1;
            tokio::spawn(async move {
                if let Ok(mut server) = TcpStream::connect(node).await {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                }
            });
        }
    });
    base
}

/// A server on `db` whose time is `time`.
pub async fn start_on(db: PathBuf, time: Arc<ManualTime>) -> TestServer {
    start_config(config(db, &time), time).await
}

pub async fn start(name: &str) -> TestServer {
    start_on(temp_db(name), ManualTime::new(T0)).await
}

/// A server with a configuration changed by `tune`.
pub async fn start_with(name: &str, tune: impl FnOnce(&mut Config)) -> TestServer {
    let time = ManualTime::new(T0);
    let mut cfg = config(temp_db(name), &time);
    tune(&mut cfg);
    start_config(cfg, time).await
}

pub struct Reply {
    pub status: u16,
    pub headers: String,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
    pub fn code(&self) -> String {
        self.json()["error"]["code"].as_str().unwrap_or("").to_string()
    }
}

/// One request on a fresh connection (`Connection: close`).
pub async fn http(base: &str, method: &str, path: &str, body: Option<&str>) -> Reply {
    let mut s = TcpStream::connect(base).await.unwrap();
    let body = body.unwrap_or("");
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {base}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    // A server may answer before it has read the whole body (413 to an
    // oversized one) and close: the rest of the upload then fails, and the
    // reset can also end the read after the answer has arrived. Both are
    // fine as long as an answer came; read_to_end keeps what it read.
    let sent = s.write_all(req.as_bytes()).await;
    let mut raw = Vec::new();
    if let Err(e) = s.read_to_end(&mut raw).await {
        assert!(!raw.is_empty(), "{method} {path}: no answer ({e}; sending: {sent:?})");
    }
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    Reply { status, headers: head.to_string(), body: body.to_string() }
}

pub async fn get(base: &str, path: &str) -> Reply {
    http(base, "GET", path, None).await
}

pub async fn post(base: &str, path: &str, body: Value) -> Reply {
    http(base, "POST", path, Some(&body.to_string())).await
}

/// Create a game; panics unless it is created.
pub async fn create(base: &str, body: Value) -> Value {
    let r = post(base, "/api/games", body).await;
    assert_eq!(r.status, 201, "create failed: {}", r.body);
    r.json()
}

pub type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

pub async fn connect(base: &str, id: &str) -> Socket {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{base}/api/games/{id}/ws")).await.unwrap();
    ws
}

pub async fn send(ws: &mut Socket, msg: Value) {
    ws.send(Message::Text(msg.to_string().into())).await.unwrap();
}

/// The next JSON message, within `secs`.
pub async fn recv(ws: &mut Socket, secs: u64) -> Value {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(secs), ws.next())
            .await
            .expect("no message in time")
            .expect("socket closed")
            .expect("socket error");
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

/// Skip messages until one of `kind` arrives.
pub async fn recv_type(ws: &mut Socket, kind: &str, secs: u64) -> Value {
    let until = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let left = until.saturating_duration_since(tokio::time::Instant::now()).as_secs().max(1);
        let m = recv(ws, left).await;
        if m["type"] == kind {
            return m;
        }
        assert!(tokio::time::Instant::now() < until, "no '{kind}' message in time");
    }
}

pub fn move_msg(token: &str, mv: &str, ply: u64) -> Value {
    json!({"v": 1, "type": "move", "token": token, "move": mv, "ply": ply, "id": ply})
}

/// A small deterministic generator, so games vary without a dependency.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// A raw connection, to send exactly the bytes a test wants.
pub async fn raw(base: &str) -> TcpStream {
    TcpStream::connect(base).await.unwrap()
}

/// Read until the server closes the connection (`Some(bytes)`), or `None`
/// if it is still open after `secs` seconds of real time.
pub async fn read_to_close(s: &mut TcpStream, secs: u64) -> Option<Vec<u8>> {
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    let until = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        match tokio::time::timeout_at(until, s.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(all),
            Ok(Ok(n)) => all.extend_from_slice(&buf[..n]),
        }
    }
}

/// True if the connection is still open: nothing closes it within a moment.
/// Timeouts run on the manual clock, so a wrongful close would come at once
/// after `advance`; a quarter of a second is plenty to see it.
pub async fn still_open(s: &mut TcpStream) -> bool {
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_millis(250), s.read(&mut buf)).await {
            Err(_) => return true,
            Ok(Ok(0)) | Ok(Err(_)) => return false,
            Ok(Ok(_)) => {}
        }
    }
}

/// The JSON body and status of a raw HTTP answer.
pub fn parse_answer(bytes: &[u8]) -> Reply {
    let text = String::from_utf8_lossy(bytes).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    Reply { status, headers: head.to_string(), body: body.to_string() }
}

/// One request with extra headers (cookies, Origin, ...).
pub async fn http_with(base: &str, method: &str, path: &str, body: Option<&str>, headers: &[(&str, &str)]) -> Reply {
    let mut s = TcpStream::connect(base).await.unwrap();
    let body = body.unwrap_or("");
    let extra: String = headers.iter().map(|(k, v)| format!("{k}: {v}\r\n")).collect();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {base}\r\nConnection: close\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    // A server may answer before it has read the whole body (413 to an
    // oversized one) and close: the rest of the upload then fails, and the
    // reset can also end the read after the answer has arrived. Both are
    // fine as long as an answer came; read_to_end keeps what it read.
    let sent = s.write_all(req.as_bytes()).await;
    let mut raw = Vec::new();
    if let Err(e) = s.read_to_end(&mut raw).await {
        assert!(!raw.is_empty(), "{method} {path}: no answer ({e}; sending: {sent:?})");
    }
    parse_answer(&raw)
}

impl Reply {
    /// The value of the `tabula_session` cookie this answer sets, if any.
    pub fn session_cookie(&self) -> Option<String> {
        self.set_cookie().and_then(|c| {
            let v = c.split(';').next()?.trim().strip_prefix("tabula_session=")?.to_string();
            Some(v)
        })
    }
    /// The whole `Set-Cookie` header.
    pub fn set_cookie(&self) -> Option<String> {
        self.headers
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
            .map(|l| l.split_once(':').unwrap().1.trim().to_string())
    }
}

/// A browser-like session: its cookie, sent with the site's own Origin.
#[derive(Clone)]
pub struct Browser {
    pub base: String,
    pub cookie: String,
}

impl Browser {
    fn headers(&self) -> Vec<(&'static str, String)> {
        vec![("Cookie", format!("tabula_session={}", self.cookie)), ("Origin", format!("http://{}", self.base))]
    }
    pub async fn get(&self, path: &str) -> Reply {
        let h = self.headers();
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        http_with(&self.base, "GET", path, None, &h).await
    }
    pub async fn post(&self, path: &str, body: Value) -> Reply {
        let h = self.headers();
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        http_with(&self.base, "POST", path, Some(&body.to_string()), &h).await
    }
    pub async fn delete(&self, path: &str) -> Reply {
        let h = self.headers();
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        http_with(&self.base, "DELETE", path, None, &h).await
    }
    /// A WebSocket to game `id` carrying the session cookie from this site.
    pub async fn connect(&self, id: &str) -> Socket {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut req = format!("ws://{}/api/games/{id}/ws", self.base).into_client_request().unwrap();
        req.headers_mut().insert("Cookie", format!("tabula_session={}", self.cookie).parse().unwrap());
        req.headers_mut().insert("Origin", format!("http://{}", self.base).parse().unwrap());
        tokio_tungstenite::connect_async(req).await.unwrap().0
    }
}

/// Sign up `name` (password `name` + "-secret-pw") and return its browser.
pub async fn signup(base: &str, name: &str) -> Browser {
    let r = post(base, "/api/account/signup", json!({"username": name, "password": format!("{name}-secret-pw")})).await;
    assert_eq!(r.status, 201, "signup {name}: {}", r.body);
    Browser { base: base.to_string(), cookie: r.session_cookie().expect("a session cookie") }
}

/// An NDJSON stream read line by line from a chunked HTTP answer.
pub struct Ndjson {
    reader: tokio::io::BufReader<TcpStream>,
    pending: String,
    lines: std::collections::VecDeque<String>,
}

impl Ndjson {
    pub async fn open(base: &str, path: &str, token: &str) -> Ndjson {
        let mut s = TcpStream::connect(base).await.unwrap();
        let req = format!("GET {path} HTTP/1.1\r\nHost: {base}\r\nAuthorization: Bearer {token}\r\n\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
        let mut reader = tokio::io::BufReader::new(s);
        let mut head = String::new();
        loop {
            let mut l = String::new();
            tokio::io::AsyncBufReadExt::read_line(&mut reader, &mut l).await.unwrap();
            if l == "\r\n" || l.is_empty() {
                break;
            }
            head.push_str(&l);
        }
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(head.to_ascii_lowercase().contains("application/x-ndjson"), "{head}");
        Ndjson { reader, pending: String::new(), lines: Default::default() }
    }

    /// The next non-empty JSON line, or `None` once the stream ends.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(l) = self.lines.pop_front() {
                if l.trim().is_empty() {
                    continue;
                }
                return Some(serde_json::from_str(&l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")));
            }
            // One chunk: its size line, its data, its CRLF.
            let mut size = String::new();
            let read = tokio::time::timeout(
                Duration::from_secs(10),
                tokio::io::AsyncBufReadExt::read_line(&mut self.reader, &mut size),
            )
            .await
            .expect("no stream data in time")
            .unwrap();
            if read == 0 {
                return None;
            }
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or_else(|_| panic!("bad chunk size {size:?}"));
            if n == 0 {
                return None;
            }
            let mut data = vec![0u8; n + 2];
            tokio::io::AsyncReadExt::read_exact(&mut self.reader, &mut data).await.unwrap();
            self.pending.push_str(std::str::from_utf8(&data[..n]).unwrap());
            while let Some(i) = self.pending.find('\n') {
                let l: String = self.pending.drain(..=i).collect();
                self.lines.push_back(l);
            }
        }
    }

    pub async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let v = self.next().await.unwrap_or_else(|| panic!("the stream ended before a {kind}"));
            if v["type"] == kind {
                return v;
            }
        }
    }
}
