//! What the server benchmarks share: a one-shot HTTP client, WebSocket
//! reading, and the process's CPU and memory figures.
#![allow(dead_code)]

use futures_util::StreamExt;
use serde_json::Value;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

/// A connection from a chosen loopback address (127.x.y.z all reach the server).
pub async fn connect_from(from: Ipv4Addr, to: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(IpAddr::V4(from), 0))?;
    socket.connect(to).await
}

/// One request on `stream` (`Connection: close`); the answer's JSON body.
pub async fn request(mut stream: TcpStream, method: &str, path: &str, body: &Value) -> Result<Value, String> {
    let body = body.to_string();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(req.as_bytes()).await.map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&raw);
    let (_, body) = text.split_once("\r\n\r\n").ok_or("no HTTP body")?;
    serde_json::from_str(body).map_err(|e| format!("{e}: {body}"))
}

/// One request on a fresh connection to `base` (`host:port`).
pub async fn http(base: &str, method: &str, path: &str, body: &Value) -> Result<Value, String> {
    let stream = TcpStream::connect(base).await.map_err(|e| e.to_string())?;
    request(stream, method, path, body).await
}

/// The next JSON text message, within 30 s.
pub async fn next_json<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut WebSocketStream<S>) -> Result<Value, String> {
    loop {
        match tokio::time::timeout(Duration::from_secs(30), ws.next()).await {
            Err(_) => return Err("no message in 30 s".into()),
            Ok(None) => return Err("socket closed".into()),
            Ok(Some(Err(e))) => return Err(e.to_string()),
            Ok(Some(Ok(Message::Text(t)))) => return serde_json::from_str(&t).map_err(|e| e.to_string()),
            Ok(Some(Ok(_))) => {}
        }
    }
}

/// CPU seconds used by this process so far (user + system, all threads).
pub fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses): utime is 14th, stime 15th overall.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<u64> = rest.split_whitespace().map(|x| x.parse().unwrap_or(0)).collect();
    // Clock ticks are 100 per second on Linux.
    f.get(11).zip(f.get(12)).map_or(0.0, |(u, s)| (u + s) as f64 / 100.0)
}

/// Resident memory of this process, in KiB.
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// The machine's load averages (1, 5, 15 minutes).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `p` quantile of sorted microseconds, in milliseconds.
pub fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize] as f64 / 1000.0
}
