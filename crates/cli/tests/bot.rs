//! `tabula bot` against the real `tabula serve`, on a temporary database
//! and a loopback port.

mod common;

use common::tabula;
use std::process::Child;

/// A server on a free loopback port and a fresh database; killed on drop.
struct Server {
    child: Child,
    url: String,
    dir: std::path::PathBuf,
}

impl Server {
    fn start(name: &str) -> Server {
        let dir = std::env::temp_dir().join(format!("tabula-bot-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (child, addr) = common::serve(&dir.join("bot.sqlite3"));
        Server { child, url: format!("http://{addr}"), dir }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn a_bad_address_is_refused_at_once() {
    for url in ["localhost:8080", "ftp://example.org", "http://", "http://host/?a=1"] {
        let out = tabula(&["bot", "--server", url, "--token", "tba_x", "--level", "easy"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{url}: {err}");
        assert!(err.contains("is not a server address"), "{url}: {err}");
    }
}

#[test]
fn bad_settings_are_refused_before_connecting() {
    let cases: [(&[&str], &str); 4] = [
        (&["--level", "no-such-level"], "no AI level 'no-such-level'"),
        (&["--engine", "stockfish"], "--engine needs --games"),
        (&["--engine", "/nonexistent/engine", "--games", "cumisitha"], "cannot start '/nonexistent/engine'"),
        (&["--level", "easy", "--games", "no-such-game"], "no-such-game"),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["bot", "--server", "http://127.0.0.1:9", "--token", "tba_x"];
        args.extend_from_slice(extra);
        let out = tabula(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(expected), "{extra:?}: {err}");
    }
    let out = tabula(&["bot", "--server", "http://127.0.0.1:9", "--token", "tba_x"]);
    assert_eq!(out.status.code(), Some(2), "neither --level nor --engine");
}

#[test]
fn an_unreachable_server_is_a_clear_error() {
    // Port 9 (discard) on loopback: nothing listens there.
    let out = tabula(&["bot", "--server", "http://127.0.0.1:9", "--token", "tba_x", "--level", "easy"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot reach http://127.0.0.1:9/api/account"), "{err}");
}

#[test]
fn a_refused_token_is_a_clear_error() {
    let server = Server::start("badtoken");
    let out = tabula(&["bot", "--server", &server.url, "--token", "tba_not_a_real_token", "--level", "easy"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("the server refused the token (401"), "{err}");
    assert!(!err.contains("tba_not_a_real_token"), "the token is never printed: {err}");
}
