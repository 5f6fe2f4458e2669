//! The connection layer under the router: accepting, capping and timing
//! out connections, so no client can hold the server with idle or
//! half-sent requests.
//!
//! - Connections are capped in total and per client address (an IPv6
//!   client is its /64). A connection over its address's cap gets a 503
//!   JSON answer and is closed at once. At the total cap, the oldest
//!   connection that is still waiting for a request (idle, or half-sent) is
//!   closed to make room, so idle connections can never lock out a client
//!   with a real request; only when every connection is busy or a WebSocket
//!   is a newcomer refused.
//! - A watchdog per connection closes it when a request's head does not
//!   arrive within `header_timeout_ms` of its first byte (or of the
//!   connection, for the first request), or when a keep-alive connection
//!   has no request for `idle_timeout_ms`. Bodies are
//!   timed by the body reader (`http::JsonBody`); WebSockets have their
//!   own ping (`ws.rs`).
//! - Requests over the size limits are answered at once, in JSON: 413 for a
//!   `Content-Length` over the body limit (before any of the body is read),
//!   414 for a long target, 431 for large headers. The few answers hyper
//!   writes by itself for requests it cannot parse (400, 414, 431, with no
//!   body) are rewritten on their way out into the same JSON form.

use crate::app::App;
use crate::config::NetLimits;
use crate::error::ApiError;
use crate::time::Time;
use axum::http::{header, HeaderValue, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};
use tower::ServiceExt;

/// The client's address, put in every request's extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

/// The key limits count by: IPv4 as is, IPv6 by its /64 network.
pub fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
        v4 => v4,
    }
}

/// Open connections, in total and per client.
#[derive(Clone)]
pub(crate) struct ConnectionSlots {
    inner: Arc<SlotsInner>,
}

struct SlotsInner {
    max: usize,
    per_client: usize,
    open: AtomicUsize,
    by_client: Mutex<HashMap<IpAddr, usize>>,
    /// Every connection, oldest first, to find one to close at the cap.
    by_age: Mutex<std::collections::VecDeque<std::sync::Weak<ConnState>>>,
}

/// A connection's place; freed when dropped (with the socket, also after a
/// WebSocket upgrade).
pub(crate) struct SlotGuard {
    inner: Arc<SlotsInner>,
    client: IpAddr,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        self.inner.open.fetch_sub(1, Ordering::Relaxed);
        let mut map = self.inner.by_client.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = map.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.client);
            }
        }
    }
}

impl ConnectionSlots {
    pub fn new(max: usize, per_client: usize) -> Self {
        ConnectionSlots {
            inner: Arc::new(SlotsInner {
                max: max.max(1),
                per_client: per_client.max(1),
                open: AtomicUsize::new(0),
                by_client: Mutex::new(HashMap::new()),
                by_age: Mutex::new(std::collections::VecDeque::new()),
            }),
        }
    }

    /// Open connections now.
    pub fn open(&self) -> usize {
        self.inner.open.load(Ordering::Relaxed)
    }

    fn try_acquire(&self, client: IpAddr) -> Option<SlotGuard> {
        let mut map = self.inner.by_client.lock().unwrap_or_else(|p| p.into_inner());
        let n = map.get(&client).copied().unwrap_or(0);
        if n >= self.inner.per_client {
            return None;
        }
        if self.inner.open.load(Ordering::Relaxed) >= self.inner.max && !self.close_oldest_waiting() {
            return None;
        }
        map.insert(client, n + 1);
        self.inner.open.fetch_add(1, Ordering::Relaxed);
        Some(SlotGuard { inner: self.inner.clone(), client })
    }

    /// Keep track of a connection's state, for [`Self::close_oldest_waiting`].
    fn register(&self, state: &Arc<ConnState>) {
        let mut by_age = self.inner.by_age.lock().unwrap_or_else(|p| p.into_inner());
        if by_age.len() > 2 * self.open().max(1024) {
            by_age.retain(|w| w.strong_count() > 0); // forget closed connections
        }
        by_age.push_back(Arc::downgrade(state));
    }

    /// At the cap: close the oldest connection that waits for a request
    /// (idle or half-sent). False if every connection is busy or upgraded.
    fn close_oldest_waiting(&self) -> bool {
        let mut by_age = self.inner.by_age.lock().unwrap_or_else(|p| p.into_inner());
        for _ in 0..by_age.len() {
            let Some(weak) = by_age.pop_front() else { break };
            let Some(state) = weak.upgrade() else { continue };
            match state.phase.load(Ordering::Relaxed) {
                IDLE | HEAD => {
                    state.phase.store(CLOSING, Ordering::Relaxed);
                    state.changed.notify_one();
                    return true;
                }
                // A WebSocket never waits for a request again: forget it, so
                // a server full of them does not scan them on every accept.
                CLOSING | UPGRADED => {}
                _ => by_age.push_back(weak),
            }
        }
        false
    }
}

/// The connection cap when none is configured: what the process's
/// descriptor limit allows, keeping a reserve for the database and logs.
pub fn default_max_connections() -> usize {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes into the struct we pass.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
            return (limit.rlim_cur as usize).saturating_sub(128).max(64);
        }
    }
    4096
}

/// Raise the soft descriptor limit to the hard limit (or `want`, if lower),
/// so the connection cap can be high. Returns the new soft limit.
#[allow(clippy::unnecessary_cast)] // rlim_t is not u64 everywhere
pub fn raise_fd_limit(want: u64) -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit/setrlimit read and write the struct we pass.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return None;
            }
            if want > limit.rlim_max as u64 {
                // Raising the hard limit needs privileges; try, else keep it.
                let raised = libc::rlimit { rlim_cur: want as libc::rlim_t, rlim_max: want as libc::rlim_t };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    return Some(want);
                }
            }
            let target = (want as libc::rlim_t).min(limit.rlim_max);
            if target > limit.rlim_cur {
                limit.rlim_cur = target;
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                    return None;
                }
            }
            return Some(limit.rlim_cur as u64);
        }
    }
    #[allow(unreachable_code)]
    None
}

/// Marks a response whose body streams for as long as it likes (NDJSON):
/// its connection is not timed as idle while it runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Streaming;

const IDLE: u8 = 0;
const HEAD: u8 = 1;
const BUSY: u8 = 2;
const UPGRADED: u8 = 3;
/// Chosen to make room at the connection cap: close now.
const CLOSING: u8 = 4;

/// Where a connection is, for its watchdog.
struct ConnState {
    phase: AtomicU8,
    since: AtomicU64,
    changed: Notify,
    time: Time,
}

impl ConnState {
    fn set(&self, phase: u8) {
        self.since.store(self.time.now_ms(), Ordering::Relaxed);
        // A connection chosen to close stays chosen.
        let _ = self.phase.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |p| (p != CLOSING).then_some(phase));
        self.changed.notify_one();
    }

    fn load(&self) -> (u8, u64) {
        (self.phase.load(Ordering::Relaxed), self.since.load(Ordering::Relaxed))
    }
}

/// Resolves when the connection has overstayed: a head too slow, or idle
/// too long between requests.
async fn watchdog(state: &ConnState, limits: &NetLimits) {
    loop {
        let (phase, since) = state.load();
        let limit = match phase {
            CLOSING => return,
            IDLE => limits.idle_timeout_ms,
            HEAD => limits.header_timeout_ms,
            _ => {
                state.changed.notified().await;
                continue;
            }
        };
        tokio::select! {
            _ = state.time.sleep_until(since.saturating_add(limit)) => {
                if state.load() == (phase, since) {
                    return;
                }
            }
            _ = state.changed.notified() => {}
        }
    }
}

/// The socket, watched: reads move an idle connection to "head", and the
/// bodyless error answers hyper writes by itself become JSON.
struct WatchedIo {
    inner: TcpStream,
    state: Arc<ConnState>,
    pending: Option<(Vec<u8>, usize)>,
    _slot: SlotGuard,
}

/// hyper's own answer to a request it could not parse, if `buf` is one:
/// then its JSON replacement.
fn rewrite_bare_error(buf: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(buf).ok()?;
    let rest = text.strip_prefix("HTTP/1.1 ").or_else(|| text.strip_prefix("HTTP/1.0 "))?;
    if !text.ends_with("\r\n\r\n") || !text.to_ascii_lowercase().contains("\r\ncontent-length: 0\r\n") {
        return None;
    }
    let (code, message) = match rest.get(..3)? {
        "400" => {
            ("bad_request", "the request could not be read as HTTP/1.1 (a malformed request line, target or header)")
        }
        "414" => ("uri_too_long", "the request target is too long"),
        "431" => ("headers_too_large", "the request headers are too large or too many"),
        _ => return None,
    };
    let status = rest.lines().next()?;
    let body = serde_json::json!({ "v": 1, "error": { "code": code, "message": message } }).to_string();
    Some(
        format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

/// hyper closes a connection whenever it answers before reading the whole
/// request (a 413 to an oversized body, an error before the body was
/// needed): the socket is handed to [`linger`] so the unread rest cannot
/// turn the close into a reset that loses the answer. The socket is
/// duplicated because hyper owns this one; the copy keeps the connection
/// open while it drains, and its shutdown sends the end of stream.
impl Drop for WatchedIo {
    fn drop(&mut self) {
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        let copy = std::os::fd::AsFd::as_fd(&self.inner)
            .try_clone_to_owned()
            .map(std::net::TcpStream::from)
            .and_then(|s| s.set_nonblocking(true).map(|()| s))
            .and_then(TcpStream::from_std);
        if let Ok(copy) = copy {
            linger(copy);
        }
    }
}

impl WatchedIo {
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((buf, done)) = &mut self.pending {
            if *done >= buf.len() {
                self.pending = None;
                break;
            }
            let n = std::task::ready!(Pin::new(&mut self.inner).poll_write(cx, &buf[*done..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *done += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for WatchedIo {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before && self.state.load().0 == IDLE {
            self.state.set(HEAD);
        }
        if self.state.load().0 == CLOSING {
            return Poll::Ready(Err(io::ErrorKind::ConnectionAborted.into()));
        }
        r
    }
}

impl AsyncWrite for WatchedIo {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        std::task::ready!(self.drain(cx))?;
        if let Some(json) = rewrite_bare_error(buf) {
            self.pending = Some((json, 0));
            let _ = self.drain(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Refuse what is too large before the router sees it.
fn check_size(req: &Request<Incoming>, limits: &NetLimits) -> Result<(), ApiError> {
    let target = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if target > limits.max_uri_bytes {
        return Err(ApiError::new(
            StatusCode::URI_TOO_LONG,
            "uri_too_long",
            format!("the request target is {target} bytes; the limit is {}", limits.max_uri_bytes),
        ));
    }
    let head: usize = req.headers().iter().map(|(k, v)| k.as_str().len() + v.len() + 4).sum();
    if head > limits.max_header_bytes {
        return Err(ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "headers_too_large",
            format!("the headers are {head} bytes; the limit is {}", limits.max_header_bytes),
        ));
    }
    let length = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if let Some(length) = length.filter(|&l| l > limits.max_body_bytes as u64) {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!("the body is {length} bytes; the limit is {} bytes", limits.max_body_bytes),
        ));
    }
    Ok(())
}

fn client_of(req: &Request<Incoming>, peer: IpAddr, limits: &NetLimits) -> IpAddr {
    if limits.trust_forwarded_for {
        let last = req
            .headers()
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|s| s.trim().parse::<IpAddr>().ok())
            .next_back();
        if let Some(ip) = last {
            return client_key(ip);
        }
    }
    client_key(peer)
}

fn closing(mut response: Response) -> Response {
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

async fn serve_connection(app: Arc<App>, router: Router, stream: TcpStream, peer: SocketAddr, slot: SlotGuard) {
    let _ = stream.set_nodelay(true);
    let limits = app.cfg.net.clone();
    // A new connection must send its first request as promptly as a head.
    let state = Arc::new(ConnState {
        phase: AtomicU8::new(HEAD),
        since: AtomicU64::new(app.time.now_ms()),
        changed: Notify::new(),
        time: app.time.clone(),
    });
    app.conns.register(&state);
    let io = WatchedIo { inner: stream, state: state.clone(), pending: None, _slot: slot };
    let service_state = state.clone();
    let service_limits = limits.clone();
    let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
        let (router, state, limits) = (router.clone(), service_state.clone(), service_limits.clone());
        async move {
            state.set(BUSY);
            let response = match check_size(&req, &limits) {
                Err(e) => closing(e.into_response()),
                Ok(()) => {
                    let client = client_of(&req, peer.ip(), &limits);
                    req.extensions_mut().insert(ClientAddr(client));
                    router.oneshot(req.map(axum::body::Body::new)).await.unwrap_or_else(|e| match e {})
                }
            };
            let mut response = response;
            // A long-lived stream (the Bot API's NDJSON) is not idle while
            // it runs: like a WebSocket it is left to its own keep-alive,
            // and the connection closes when it ends.
            let streaming = response.extensions().get::<Streaming>().is_some();
            if streaming {
                response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            let upgraded = streaming || response.status() == StatusCode::SWITCHING_PROTOCOLS;
            state.set(if upgraded { UPGRADED } else { IDLE });
            Ok::<_, std::convert::Infallible>(response)
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .keep_alive(true)
        .writev(false)
        .header_read_timeout(None)
        .max_buf_size((limits.max_header_bytes + limits.max_uri_bytes).max(8 * 1024) * 2)
        .max_headers(100);
    let conn = builder.serve_connection(TokioIo::new(io), service).with_upgrades();
    tokio::pin!(conn);
    let mut shutdown = app.shutdown.clone();
    let mut stopping = false;
    loop {
        tokio::select! {
            r = conn.as_mut() => {
                if let Err(e) = r {
                    tracing::debug!(%peer, error = %e, "connection ended with an error");
                }
                return;
            }
            _ = watchdog(&state, &limits) => {
                tracing::debug!(%peer, "closing a connection that sent nothing in time");
                return;
            }
            _ = crate::app::stopped(&mut shutdown), if !stopping => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

/// Refused connections being closed gently at once (see [`refuse`]).
static LINGERING: AtomicUsize = AtomicUsize::new(0);
/// Well under the descriptors kept in reserve beside the connection cap.
const MAX_LINGERING: usize = 64;
/// Enough for a request body well over the body limit: what a client sends
/// before it reads the 413 and stops.
const LINGER_BYTES: usize = 1 << 20;

/// A short JSON answer for a connection refused before any request was
/// read; the socket is closed after it. Closing a socket whose request is
/// still unread would send a reset, which can make the client lose the
/// answer: so the server stops writing, then reads and drops what the
/// client sends for a moment before closing (a "lingering close"), for a
/// bounded number of connections at once.
fn refuse(stream: TcpStream, e: &ApiError) {
    let body = serde_json::json!({"v": 1, "error": e.body()}).to_string();
    let answer = format!(
        "HTTP/1.1 {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: {}\r\nconnection: close\r\n\r\n{body}",
        e.status,
        body.len(),
        e.retry_after_secs.unwrap_or(5)
    );
    let _ = stream.try_write(answer.as_bytes());
    linger(stream);
}

/// Close `stream` gently: stop writing, then read and drop what the client
/// still sends for a moment (at most [`LINGER_BYTES`], half a second) before the
/// socket closes, for at most [`MAX_LINGERING`] sockets at once. Closing a
/// socket with unread input sends a reset instead of an end of stream, and
/// a reset can make the client drop an answer it has already received.
fn linger(stream: TcpStream) {
    if LINGERING.fetch_add(1, Ordering::Relaxed) >= MAX_LINGERING {
        LINGERING.fetch_sub(1, Ordering::Relaxed);
        return;
    }
    tokio::spawn(async move {
        let mut stream = stream;
        let _ = tokio::io::AsyncWriteExt::shutdown(&mut stream).await;
        let drain = async {
            let mut buf = [0u8; 4096];
            let mut left: usize = LINGER_BYTES;
            while left > 0 {
                match tokio::io::AsyncReadExt::read(&mut stream, &mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => left = left.saturating_sub(n),
                }
            }
        };
        let _ = tokio::time::timeout(std::time::Duration::from_millis(500), drain).await;
        LINGERING.fetch_sub(1, Ordering::Relaxed);
    });
}

fn too_many_connections() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "too_many_connections",
        "too many open connections from your address or in total; close some and try again",
    )
}

/// Accept connections until shutdown, then wait for the open ones to end.
pub(crate) async fn serve(app: Arc<App>, router: Router, listener: TcpListener, mut stop: watch::Receiver<bool>) {
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = crate::app::stopped(&mut stop) => break,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of descriptors or a connection reset while queued: go on shortly.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                continue;
            }
        };
        let client = client_key(peer.ip());
        if let Err(e) = app.limits.check_connection(client) {
            refuse(stream, &e);
            continue;
        }
        let Some(slot) = app.conns.try_acquire(client) else {
            refuse(stream, &too_many_connections());
            continue;
        };
        tokio::spawn(serve_connection(app.clone(), router.clone(), stream, peer, slot));
    }
    drop(listener);
    // In-flight requests finish; WebSockets close on the shutdown signal.
    for _ in 0..500 {
        if app.conns.open() == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyper_bare_errors_become_json() {
        let bare = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let json = String::from_utf8(rewrite_bare_error(bare).unwrap()).unwrap();
        assert!(json.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "{json}");
        let body: serde_json::Value = serde_json::from_str(json.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(body["error"]["code"], "headers_too_large");
        assert!(rewrite_bare_error(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(rewrite_bare_error(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n").is_none());
    }

    #[test]
    fn ipv6_clients_count_by_their_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        assert_eq!(client_key(a), client_key(b));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(client_key(mapped), "10.0.0.1".parse::<IpAddr>().unwrap());
    }
}
