//! A client for engines that speak UCI, run as child processes (Debian's
//! `stockfish`, or any engine speaking UCI in a game's notation), as
//! `tabula bot --engine` plays them. Nothing in it knows a game.
//!
//! Lines from the engine are read on a thread of their own, so every wait
//! has a timeout and a hung engine is an error, never a hang.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long an engine may take to answer `uci` and `isready`.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Why talking to a UCI engine failed.
#[derive(Debug, thiserror::Error)]
pub enum UciError {
    /// The engine's command line is empty.
    #[error("no engine command given")]
    NoCommand,
    /// The engine could not be started.
    #[error("cannot start '{program}': {source} (is it installed? e.g. apt-get install stockfish)")]
    Start {
        /// The program named.
        program: String,
        /// Why it did not start.
        source: std::io::Error,
    },
    /// The engine's standard input or output could not be opened.
    #[error("no {0} for the engine")]
    NoPipe(&'static str),
    /// Writing to the engine failed.
    #[error("{engine}: write failed: {source}")]
    Write {
        /// The engine's program.
        engine: String,
        /// Why.
        source: std::io::Error,
    },
    /// The engine did not answer in time.
    #[error("{engine} did not answer '{expected}' within {timeout:?}")]
    Timeout {
        /// The engine's program.
        engine: String,
        /// The answer waited for.
        expected: String,
        /// How long we waited.
        timeout: Duration,
    },
    /// The engine exited.
    #[error("{0} exited")]
    Exited(String),
}

/// A UCI engine running as a child process. Dropping it sends `quit` and
/// ends the process.
pub struct UciEngine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    name: String,
}

impl UciEngine {
    /// Start `command` (the program, then its arguments). A bare program
    /// name not found on `PATH` is also looked for in `/usr/games`, where
    /// Debian installs engines. The engine is started, not yet greeted: call
    /// [`UciEngine::handshake`].
    pub fn start(command: &[String]) -> Result<UciEngine, UciError> {
        let (program, args) = command.split_first().ok_or(UciError::NoCommand)?;
        let spawn = |p: &str| {
            Command::new(p).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn()
        };
        let mut child = spawn(program)
            .or_else(|e| if program.contains('/') { Err(e) } else { spawn(&format!("/usr/games/{program}")) })
            .map_err(|source| UciError::Start { program: program.clone(), source })?;
        let stdin = child.stdin.take().ok_or(UciError::NoPipe("stdin"))?;
        let stdout = child.stdout.take().ok_or(UciError::NoPipe("stdout"))?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(UciEngine { child, stdin, lines: rx, name: program.clone() })
    }

    /// The program's name, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The engine's process id (e.g. to read its CPU time).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// `uci` / `uciok`, then each `setoption`, then `isready` / `readyok`.
    pub fn handshake(&mut self, options: &[(String, String)]) -> Result<(), UciError> {
        self.send("uci")?;
        self.wait_for("uciok", HANDSHAKE_TIMEOUT)?;
        for (name, value) in options {
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        self.ready()
    }

    /// `isready`, waiting for `readyok`.
    pub fn ready(&mut self) -> Result<(), UciError> {
        self.send("isready")?;
        self.wait_for("readyok", HANDSHAKE_TIMEOUT).map(|_| ())
    }

    /// `ucinewgame`, then `isready`.
    pub fn new_game(&mut self) -> Result<(), UciError> {
        self.send("ucinewgame")?;
        self.ready()
    }

    /// Send one line.
    pub fn send(&mut self, line: &str) -> Result<(), UciError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|source| UciError::Write { engine: self.name.clone(), source })
    }

    /// Send `position` and `go` lines and wait up to `timeout` for the
    /// engine's `bestmove`; returns the move's text as the engine wrote it.
    pub fn best_move(&mut self, position: &str, go: &str, timeout: Duration) -> Result<String, UciError> {
        self.send(position)?;
        self.send(go)?;
        let line = self.wait_for("bestmove", timeout)?;
        Ok(line.split_whitespace().nth(1).unwrap_or("").to_string())
    }

    /// Read lines until one starts with `prefix`; returns it.
    pub fn wait_for(&mut self, prefix: &str, timeout: Duration) -> Result<String, UciError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.starts_with(prefix) => return Ok(l),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    let engine = self.name.clone();
                    return Err(UciError::Timeout { engine, expected: prefix.to_string(), timeout });
                }
                Err(RecvTimeoutError::Disconnected) => return Err(UciError::Exited(self.name.clone())),
            }
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        std::thread::sleep(Duration::from_millis(50));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A tiny UCI engine in sh: it knows `uci`, `isready` and `go`, and
    /// answers every `go` with the last word of the last `position` line.
    const ECHO_ENGINE: &str = r#"last=none
while read -r cmd rest; do
  case "$cmd" in
    uci) echo "id name echo"; echo uciok ;;
    isready) echo readyok ;;
    position) last="${rest##* }" ;;
    go) echo "info depth 1"; echo "bestmove $last" ;;
    quit) exit 0 ;;
  esac
done"#;

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn talks_to_an_engine() {
        let mut e = UciEngine::start(&sh(ECHO_ENGINE)).unwrap();
        assert_eq!(e.name(), "sh");
        e.handshake(&[("Skill Level".into(), "3".into())]).unwrap();
        e.new_game().unwrap();
        let mv = e.best_move("position startpos moves e2e4 e7e5", "go movetime 10", Duration::from_secs(5)).unwrap();
        assert_eq!(mv, "e7e5");
    }

    #[test]
    fn failures_are_clear_errors() {
        let e = UciEngine::start(&["/nonexistent/engine".to_string()]).err().unwrap();
        assert!(e.to_string().contains("cannot start '/nonexistent/engine'"), "{e}");
        assert!(matches!(UciEngine::start(&[]), Err(UciError::NoCommand)));
        // Silent: a timeout, not a hang.
        let mut e = UciEngine::start(&sh("sleep 5")).unwrap();
        let err = e.wait_for("uciok", Duration::from_millis(100)).unwrap_err();
        assert!(err.to_string().contains("did not answer 'uciok'"), "{err}");
        // Gone: the engine exited.
        let mut e = UciEngine::start(&sh("exit 0")).unwrap();
        let err = e.wait_for("uciok", Duration::from_secs(5)).unwrap_err();
        assert!(matches!(err, UciError::Exited(_)), "{err}");
    }
}
