//! Running the `tabula` binary, shared by the command-line test files.
// Each test file uses some of these helpers, never all.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Output, Stdio};

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
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(["serve", "--addr", addr, "--db"])
        .arg(db)
        .env("TABULA_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tabula serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr =
        line.trim().strip_prefix("listening on http://").unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    (child, addr.to_string())
}
