//! Running the `tabula` binary, shared by the command-line test files.
// Each test file uses some of these helpers, never all.
#![allow(dead_code)]

use serde_json::Value;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// Runs `tabula` with `args` and waits for it.
pub fn tabula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabula")).args(args).output().expect("run tabula")
}

/// Runs `tabula` with `args`, feeding `input` (text or raw bytes) on stdin.
pub fn play(args: &[&str], input: impl AsRef<[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_ref()).unwrap();
    child.wait_with_output().unwrap()
}

/// Starts `tabula serve` on a free loopback port with the database `db`;
/// returns the process and its address (`127.0.0.1:PORT`) once it listens.
pub fn serve(db: &std::path::Path) -> (Child, String) {
    serve_on(db, "127.0.0.1:0")
}

/// Starts `tabula serve` on `addr` (port 0: a free one) with the database
/// `db`; returns the process and its address once it listens.
pub fn serve_on(db: &std::path::Path, addr: &str) -> (Child, String) {
    serve_args(&["--addr".as_ref(), addr.as_ref(), "--db".as_ref(), db.as_os_str()])
}

/// Starts `tabula serve ARGS…`; returns the process and its address
/// (`127.0.0.1:PORT`) once it listens.
pub fn serve_args(args: &[&OsStr]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .arg("serve")
        .args(args)
        .env("TABULA_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tabula serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("tabula serve {args:?} did not start: {line:?}"));
    (child, addr.to_string())
}

/// One HTTP request with a JSON body, on a connection of its own; `None`
/// when the server is gone (or answers something unreadable).
pub fn request(addr: &str, method: &str, path: &str, body: &Value) -> Option<(u16, Value)> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(20))).ok()?;
    let body = body.to_string();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).ok()?;
    let mut raw = String::new();
    s.read_to_string(&mut raw).ok()?;
    let (head, body) = raw.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, serde_json::from_str(body).ok()?))
}
