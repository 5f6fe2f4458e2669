//! The UCI front end (`tabula uci`). Input is read on its own thread so that
//! `stop`, `isready` and `quit` are answered while the engine searches on
//! another. Bad or out-of-order commands get an `info string error: ...`
//! line and are otherwise ignored, as UCI asks engines to keep going.

use crate::ai::{time_budget, Engine, Info, Limits};
use crate::notation::{self, format_uci};
use crate::rules::{self, chess_moves};
use cozy_chess::{Board, Color};
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;
use tabula_core::NotationError;

/// The name the engine gives in `id name`.
pub const ENGINE_NAME: &str = "Tabula Cumisitha";
const DEFAULT_HASH_MB: usize = 16;
const MAX_HASH_MB: usize = 1024;
const MAX_THREADS: usize = 64;

/// A `setoption` the engine understands.
#[derive(Debug, PartialEq, Eq)]
enum EngineOption {
    Hash(usize),
    Threads(usize),
    UseNnue(bool),
}

type Out<W> = Arc<Mutex<W>>;

fn say<W: Write>(out: &Out<W>, line: &str) {
    let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
    // A closed output (the GUI went away) is not worth a panic.
    let _ = writeln!(w, "{line}");
    let _ = w.flush();
}

fn error<W: Write>(out: &Out<W>, msg: &str) {
    // Quote at most 80 characters of what the GUI sent, as every error does.
    say(out, &format!("info string error: {}", tabula_core::error::shorten_quotes(msg.to_string())));
}

/// A search running on its own thread; gives the engine back when joined.
struct Running {
    stop: Arc<AtomicBool>,
    /// Set just before `bestmove` is written: from then on the GUI may send
    /// the next command, so it must not be refused as out of order.
    answered: Arc<AtomicBool>,
    infinite: bool,
    handle: JoinHandle<Engine>,
}

/// Speak UCI on `input`/`output` until `quit` or the end of the input.
pub fn run<R, W>(input: R, output: W) -> io::Result<()>
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let out: Out<W> = Arc::new(Mutex::new(output));
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        // Bytes, not `lines()`: a line that is not UTF-8 must not end the
        // session; read lossily, it is an unknown command like any other.
        let mut input = input;
        let mut raw = Vec::new();
        loop {
            raw.clear();
            match input.read_until(b'\n', &mut raw) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let line = String::from_utf8_lossy(&raw).trim_end_matches(['\n', '\r']).to_string();
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut engine = Some(Engine::new(DEFAULT_HASH_MB));
    let mut board = Board::default();
    let mut running: Option<Running> = None;
    let finish = |running: &mut Option<Running>, engine: &mut Option<Engine>, stop_it: bool| {
        if let Some(r) = running.take() {
            if stop_it {
                r.stop.store(true, Ordering::Relaxed);
            }
            match r.handle.join() {
                Ok(e) => *engine = Some(e),
                Err(_) => *engine = Some(Engine::new(DEFAULT_HASH_MB)),
            }
        }
    };
    for line in rx.iter() {
        // Reap a search that ended by itself.
        if running.as_ref().is_some_and(|r| r.answered.load(Ordering::SeqCst) || r.handle.is_finished()) {
            finish(&mut running, &mut engine, false);
        }
        let line = line.trim();
        let mut words = line.split_whitespace();
        let Some(cmd) = words.next() else { continue };
        let rest: Vec<&str> = words.collect();
        let busy = running.is_some();
        match cmd {
            "uci" => {
                say(&out, &format!("id name {ENGINE_NAME} {}", env!("CARGO_PKG_VERSION")));
                say(&out, "id author the Tabula project");
                say(&out, &format!("option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"));
                say(&out, &format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"));
                say(&out, "option name UseNNUE type check default true");
                say(&out, "uciok");
            }
            "isready" => say(&out, "readyok"),
            "quit" => {
                finish(&mut running, &mut engine, true);
                return Ok(());
            }
            "stop" => {
                if busy {
                    finish(&mut running, &mut engine, true);
                }
            }
            "ucinewgame" | "setoption" | "position" | "go" if busy => {
                error(&out, &format!("'{cmd}' arrived while the engine is searching; send 'stop' first"));
            }
            "ucinewgame" => {
                if let Some(e) = engine.as_mut() {
                    e.new_game();
                }
                board = Board::default();
            }
            "setoption" => match set_option(&rest) {
                Ok(option) => {
                    if let Some(e) = engine.as_mut() {
                        match option {
                            EngineOption::Hash(mb) => e.set_hash(mb),
                            EngineOption::Threads(n) => e.set_threads(n),
                            EngineOption::UseNnue(on) => e.set_nnue(on),
                        }
                    }
                }
                Err(e) => error(&out, &e),
            },
            "position" => match parse_position(&rest) {
                Ok(b) => board = b,
                Err(e) => error(&out, &format!("{e} (the position is unchanged)")),
            },
            "go" => {
                let (limits, infinite) = parse_go(&rest, &board, &out);
                let mut moves = Vec::new();
                chess_moves(&board, &mut moves);
                if moves.is_empty() {
                    let why = if board.checkers().is_empty() { "stalemate" } else { "checkmate" };
                    say(&out, &format!("info string the game is over ({why}): there is no legal move"));
                    say(&out, "bestmove 0000");
                    continue;
                }
                if board.halfmove_clock() >= rules::COUNTER_LIMIT {
                    say(&out, "info string the game is already drawn by the 100-ply counter; searching anyway");
                }
                let stop = Arc::new(AtomicBool::new(false));
                let mut eng = engine.take().unwrap_or_else(|| Engine::new(DEFAULT_HASH_MB));
                let b = board.clone();
                let o = out.clone();
                let answered = Arc::new(AtomicBool::new(false));
                let answered_in_thread = answered.clone();
                let s = stop.clone();
                let handle = std::thread::spawn(move || {
                    let mut report = |info: &Info| say(&o, &info_line(&b, info));
                    let result = eng.search(&b, limits, s.clone(), &mut report);
                    // `go infinite` must not answer before `stop`.
                    while infinite && !s.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    let best = result.best.or_else(|| {
                        let mut v = Vec::new();
                        chess_moves(&b, &mut v);
                        v.first().copied()
                    });
                    answered_in_thread.store(true, Ordering::SeqCst);
                    match best {
                        Some(m) => say(&o, &format!("bestmove {}", format_uci(&b, m))),
                        None => say(&o, "bestmove 0000"),
                    }
                    eng
                });
                running = Some(Running { stop, answered, handle, infinite });
            }
            "d" => {
                let state = crate::rules::Cumisitha::from_board(board.clone());
                let text = tabula_core::GameMeta::render_text(&state, false);
                for l in text.lines() {
                    say(&out, &format!("info string {l}"));
                }
                say(&out, &format!("info string fen {}", notation::to_fen(&board)));
            }
            "ponderhit" | "register" | "debug" => {}
            other => error(&out, &format!("unknown command '{other}'")),
        }
    }
    // End of input: let a running search finish its answer (an infinite
    // one would never end, so it is stopped).
    let infinite = running.as_ref().is_some_and(|r| r.infinite);
    finish(&mut running, &mut engine, infinite);
    Ok(())
}

fn info_line(board: &Board, info: &Info) -> String {
    let mut b = board.clone();
    let mut pv = String::new();
    for &m in &info.pv {
        if !b.is_legal(m) {
            break;
        }
        pv.push(' ');
        pv.push_str(&format_uci(&b, m));
        b.play_unchecked(m);
    }
    format!(
        "info depth {} seldepth {} score {} nodes {} nps {} time {} hashfull {} pv{}",
        info.depth,
        info.seldepth,
        info.score,
        info.nodes,
        info.nps(),
        info.time.as_millis(),
        info.hashfull,
        pv
    )
}

/// `setoption name Hash value N`, `setoption name Threads value N` or
/// `setoption name UseNNUE value true|false`.
fn set_option(args: &[&str]) -> Result<EngineOption, String> {
    let text = args.join(" ");
    let lower = text.to_ascii_lowercase();
    let Some(after_name) = lower.strip_prefix("name ") else {
        return Err(format!("setoption needs 'name <option> value <value>', got '{text}'"));
    };
    let (name, value) = match after_name.split_once(" value ") {
        Some((n, v)) => (n.trim(), Some(v.trim())),
        None => (after_name.trim(), None),
    };
    if name == "usennue" {
        return match value {
            Some("true") => Ok(EngineOption::UseNnue(true)),
            Some("false") => Ok(EngineOption::UseNnue(false)),
            Some(v) => Err(format!("UseNNUE value '{v}' is neither true nor false")),
            None => Err("setoption name UseNNUE needs 'value true' or 'value false'".into()),
        };
    }
    let (label, unit, max) = match name {
        "hash" => ("Hash", "megabytes", MAX_HASH_MB),
        "threads" => ("Threads", "threads", MAX_THREADS),
        _ => return Err(format!("unknown option '{name}' (this engine has: Hash, Threads, UseNNUE)")),
    };
    let v = value.ok_or(format!("setoption name {label} needs 'value <{unit}>'"))?;
    let n: usize = v.parse().map_err(|_| format!("{label} value '{v}' is not a whole number of {unit}"))?;
    if !(1..=max).contains(&n) {
        return Err(format!("{label} value {n} is out of range (1 to {max})"));
    }
    Ok(if label == "Hash" { EngineOption::Hash(n) } else { EngineOption::Threads(n) })
}

/// `position startpos|fen <fen> [moves m1 m2 ...]`.
pub fn parse_position(args: &[&str]) -> Result<Board, NotationError> {
    parse_position_text(args).map_err(NotationError::new)
}

fn parse_position_text(args: &[&str]) -> Result<Board, String> {
    let moves_at = args.iter().position(|w| *w == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let mut board = match setup.first() {
        Some(&"startpos") if setup.len() == 1 => Board::default(),
        Some(&"startpos") => return Err(format!("unexpected '{}' after 'position startpos'", setup[1..].join(" "))),
        Some(&"fen") => {
            let fen = setup[1..].join(" ");
            crate::notation::fen::parse(&fen).map_err(|e| format!("bad FEN '{fen}': {e}"))?
        }
        Some(other) => return Err(format!("'position {other}': expected 'startpos' or 'fen <FEN>'")),
        None => return Err("'position' needs 'startpos' or 'fen <FEN>'".into()),
    };
    for (i, text) in moves.iter().enumerate() {
        let mv = notation::parse_uci(&board, text).map_err(|e| format!("move {} '{text}': {e}", i + 1))?;
        if !board.is_legal(mv) {
            return Err(format!("move {} '{text}' is illegal: {}", i + 1, rules::explain_illegal(&board, mv)));
        }
        board.play_unchecked(mv);
    }
    Ok(board)
}

/// The search limits of a `go` command, and whether it is `infinite`.
fn parse_go<W: Write>(args: &[&str], board: &Board, out: &Out<W>) -> (Limits, bool) {
    let mut limits = Limits::default();
    let mut infinite = false;
    let (mut wtime, mut btime, mut winc, mut binc, mut mtg, mut movetime) = (None, None, None, None, None, None);
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        let takes_value =
            matches!(key, "wtime" | "btime" | "winc" | "binc" | "movestogo" | "movetime" | "depth" | "nodes" | "mate");
        let value = if takes_value {
            i += 1;
            match args.get(i).map(|v| v.parse::<i64>()) {
                Some(Ok(v)) => Some(v.max(0) as u64),
                Some(Err(_)) => {
                    error(out, &format!("'go {key} {}': '{}' is not a number; ignored", args[i], args[i]));
                    None
                }
                None => {
                    error(out, &format!("'go {key}' needs a number; ignored"));
                    None
                }
            }
        } else {
            None
        };
        match key {
            "wtime" => wtime = value,
            "btime" => btime = value,
            "winc" => winc = value,
            "binc" => binc = value,
            "movestogo" => mtg = value,
            "movetime" => movetime = value,
            "depth" => limits.depth = value.map(|d| d.clamp(1, 100) as i32),
            "nodes" => limits.nodes = value.map(|n| n.max(1)),
            "infinite" => infinite = true,
            "ponder" | "mate" => {}
            "searchmoves" => {
                error(out, "'searchmoves' is not supported; searching every move");
                while i + 1 < args.len() && notation::looks_like_uci(args[i + 1]) {
                    i += 1;
                }
            }
            other => error(out, &format!("unknown 'go' parameter '{other}'; ignored")),
        }
        i += 1;
    }
    if let Some(ms) = movetime {
        // Keep a few milliseconds for answering.
        let t = Duration::from_millis(ms.saturating_sub(5).max(1));
        limits.soft_time = Some(t);
        limits.hard_time = Some(t);
    } else if !infinite {
        let (time, inc) = match board.side_to_move() {
            Color::White => (wtime, winc),
            Color::Black => (btime, binc),
        };
        if let Some(t) = time {
            let (soft, hard) =
                time_budget(Duration::from_millis(t), Duration::from_millis(inc.unwrap_or(0)), mtg.map(|m| m as u32));
            limits.soft_time = Some(soft);
            limits.hard_time = Some(hard);
        }
    }
    (limits, infinite)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn session(script: &str) -> Vec<String> {
        session_bytes(script.as_bytes())
    }

    fn session_bytes(script: &[u8]) -> Vec<String> {
        let out = Shared::default();
        run(Cursor::new(script.to_vec()), out.clone()).unwrap();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_string).collect()
    }

    fn bestmove(lines: &[String]) -> &str {
        lines.iter().rev().find_map(|l| l.strip_prefix("bestmove ")).expect("a bestmove")
    }

    #[test]
    fn a_line_that_is_not_utf8_is_an_unknown_command_and_the_session_goes_on() {
        let lines = session_bytes(b"\xff\xfe go\nisready\nquit\n");
        assert!(lines.iter().any(|l| l.starts_with("info string error: unknown command")), "{lines:?}");
        assert!(lines.iter().any(|l| l == "readyok"), "{lines:?}");
        // A huge unknown command is quoted, not echoed.
        let lines = session(&format!("{}\nquit\n", "x".repeat(100_000)));
        assert!(lines.iter().all(|l| l.len() < 200), "{} bytes", lines.iter().map(String::len).max().unwrap_or(0));
    }

    #[test]
    fn scripted_session() {
        let lines = session(
            "uci\nisready\nsetoption name Hash value 8\nsetoption name Threads value 2\nucinewgame\nposition startpos moves e2e4 e7e5 g1f3\ngo depth 5\nisready\n",
        );
        assert!(lines.iter().any(|l| l.starts_with("id name ")));
        assert!(lines.iter().any(|l| l.starts_with("option name Hash type spin")));
        assert!(lines.iter().any(|l| l.starts_with("option name Threads type spin")));
        assert!(lines.iter().any(|l| l == "option name UseNNUE type check default true"));
        assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
        assert!(lines.contains(&"uciok".to_string()));
        assert!(lines.contains(&"readyok".to_string()));
        let info = lines.iter().find(|l| l.starts_with("info depth 5 ")).expect("a depth 5 info line");
        for field in [" seldepth ", " score ", " nodes ", " nps ", " time ", " pv "] {
            assert!(info.contains(field), "{info} lacks {field}");
        }
        let b = parse_position(&["startpos", "moves", "e2e4", "e7e5", "g1f3"]).unwrap();
        let best = bestmove(&lines);
        let mv = notation::parse_uci(&b, best).unwrap();
        assert!(b.is_legal(mv), "{best} is not legal");
    }

    #[test]
    fn the_hand_written_evaluation_can_be_chosen() {
        // The two evaluations differ, so their first iteration's scores do.
        let score = |lines: &[String]| -> String {
            let info = lines.iter().find(|l| l.starts_with("info depth 1 ")).expect("a depth 1 line");
            info.split(" score ").nth(1).unwrap().split(" nodes").next().unwrap().to_string()
        };
        let go = "position fen r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9\ngo depth 1\n";
        let nnue = session(&format!("setoption name UseNNUE value true\n{go}"));
        let hce = session(&format!("setoption name UseNNUE value false\n{go}"));
        assert!(!nnue.iter().chain(&hce).any(|l| l.contains("error")), "{nnue:?} {hce:?}");
        assert_ne!(score(&nnue), score(&hce));
        let lines = session("setoption name UseNNUE value maybe\nsetoption name UseNNUE\nquit\n");
        assert!(lines.iter().any(|l| l.contains("UseNNUE value 'maybe' is neither true nor false")), "{lines:?}");
        assert!(lines.iter().any(|l| l.contains("needs 'value true' or 'value false'")), "{lines:?}");
    }

    #[test]
    fn stop_ends_an_infinite_search_and_isready_answers_meanwhile() {
        let lines = session("position fen 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\ngo infinite\nisready\nstop\nquit\n");
        let ready = lines.iter().position(|l| l == "readyok").unwrap();
        let best = lines.iter().position(|l| l.starts_with("bestmove ")).unwrap();
        assert!(ready < best, "readyok must come while the search runs");
    }

    #[test]
    fn mate_score_movetime_and_castling_notation() {
        let lines = session("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo movetime 200\n");
        assert_eq!(bestmove(&lines), "a1a8");
        assert!(lines.iter().any(|l| l.contains("score mate 1")));
        let lines = session("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1 e8c8\ngo depth 1\n");
        assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    }

    #[test]
    fn bad_and_out_of_order_input_gets_clear_errors() {
        let lines = session(
            "position startpos moves e2e5\nposition fen 8/8/8/8/8/8/8/8 w - - 0 1\nposition sideways\nsetoption name Hash value lots\nsetoption name Threads value 0\nsetoption name Ponder value true\nfrobnicate\ngo depth 30\ngo depth 2\nposition startpos\nstop\ngo wtime abc btime 1000\nstop\nquit\n",
        );
        let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("info string error")).collect();
        assert!(errors.iter().any(|l| l.contains("move 1 'e2e5' is illegal")), "{errors:?}");
        assert!(errors.iter().any(|l| l.contains("White has 0 kings")), "{errors:?}");
        assert!(errors.iter().any(|l| l.contains("expected 'startpos' or 'fen")), "{errors:?}");
        assert!(errors.iter().any(|l| l.contains("not a whole number")), "{errors:?}");
        assert!(errors.iter().any(|l| l.contains("unknown option")), "{errors:?}");
        assert!(errors.iter().any(|l| l.contains("Threads value 0 is out of range")), "{errors:?}");
        assert!(errors.iter().any(|l| l.contains("unknown command 'frobnicate'")), "{errors:?}");
        assert!(errors.iter().any(|l| l.contains("while the engine is searching")), "{errors:?}");
        assert!(errors.iter().any(|l| l.contains("'abc' is not a number")), "{errors:?}");
        // Every go got a legal answer from the start position.
        let b = Board::default();
        for l in lines.iter().filter_map(|l| l.strip_prefix("bestmove ")) {
            assert!(b.is_legal(notation::parse_uci(&b, l).unwrap()), "{l}");
        }
    }

    /// A reader fed line by line from the test, like a GUI's pipe.
    struct Pipe {
        rx: mpsc::Receiver<String>,
        buf: Vec<u8>,
        pos: usize,
    }
    impl io::Read for Pipe {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.pos == self.buf.len() {
                match self.rx.recv() {
                    Ok(line) => {
                        self.buf = line.into_bytes();
                        self.pos = 0;
                    }
                    Err(_) => return Ok(0),
                }
            }
            let n = out.len().min(self.buf.len() - self.pos);
            out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    #[test]
    fn the_next_command_right_after_bestmove_is_accepted() {
        let (tx, rx) = mpsc::channel();
        let out = Shared::default();
        let reader = io::BufReader::new(Pipe { rx, buf: Vec::new(), pos: 0 });
        let writer = out.clone();
        let engine = std::thread::spawn(move || run(reader, writer));
        let bestmoves = || String::from_utf8(out.0.lock().unwrap().clone()).unwrap().matches("bestmove").count();
        let mut moves = String::new();
        for round in 0..20 {
            tx.send(format!("position startpos moves{moves}\ngo depth 2\n")).unwrap();
            let began = std::time::Instant::now();
            while bestmoves() <= round {
                assert!(began.elapsed() < Duration::from_secs(20), "no bestmove in round {round}");
                std::thread::yield_now();
            }
            let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
            let best = text.lines().rev().find_map(|l| l.strip_prefix("bestmove ")).unwrap().to_string();
            moves.push(' ');
            moves.push_str(&best);
        }
        tx.send("quit\n".into()).unwrap();
        engine.join().unwrap().unwrap();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert!(!text.contains("error"), "{text}");
    }

    #[test]
    fn no_legal_move_answers_0000() {
        let lines = session("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\ngo depth 3\n");
        assert_eq!(bestmove(&lines), "0000");
    }
}
