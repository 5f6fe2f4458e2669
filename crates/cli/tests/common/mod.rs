//! Running the `tabula` binary, shared by the command-line test files.

use std::io::Write;
use std::process::{Command, Output, Stdio};

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
