//! A Dots match between Tabula's MCTS and oppai-rs, the strongest open
//! Dots engine, at equal time per move. oppai-rs runs as a separate program
//! driven through its JSON line protocol (`oppai-cli`); nothing of it is
//! built or copied here. Tabula's own rules referee every game: oppai-rs is
//! told each dot and asked for its move, and the game ends as Tabula's
//! rules say (a protected lead, a full board).
//!
//! oppai-rs is AGPL: build it yourself, outside this repository, e.g.
//!
//!     git clone https://github.com/pointsgame/oppai-rs /tmp/oppai-rs
//!     (cd /tmp/oppai-rs && cargo build --release -p oppai-cli \
//!         --no-default-features --features dsu,ndarray)
//!     cargo run --release -p tabula-dots --example vs_oppai -- \
//!         /tmp/oppai-rs/target/release/oppai-cli --games 40 --ms 300
//!
//! Options: `--games N` (40), `--ms MS` time per move for both (300),
//! `--width W --height H` (20x20), `--seed S` (1), `--jobs J` games at once
//! (1; each game uses two processes that take turns, so 2 fills 2 cores),
//! `--threads T` Tabula's threads (1), `--cutoff C` Tabula's playout cut-off
//! (the levels' 100, or 60 with `--no-rave`), `--rave K` RAVE's equivalence (the levels' 1000), `--no-rave` the
//! search before RAVE, `--exploration C` Tabula's UCT constant (the
//! levels' 0, or 0.6 with `--no-rave`), and `--oppai-arg ARG` (repeatable) passed on to oppai-cli, which is
//! started with `--backend Ndarray --threads-count 1`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tabula_core::{Agent, Game, Player, ThinkContext};
use tabula_dots::ai::{DotsAgent, Search, LEVEL_CUTOFF, LEVEL_RAVE};
use tabula_dots::{Dots, DotsOptions, Point};
use tabula_ratings::match_stats::{format_elo, trinomial_interval};

struct Config {
    oppai: String,
    games: usize,
    ms: u64,
    width: u8,
    height: u8,
    seed: u64,
    jobs: usize,
    threads: usize,
    cutoff: Option<u32>,
    rave: Option<f64>,
    no_rave: bool,
    exploration: Option<f64>,
    oppai_args: Vec<String>,
}

fn usage(problem: &str) -> ! {
    eprintln!("vs_oppai: {problem}");
    eprintln!(
        "usage: vs_oppai OPPAI_CLI [--games N] [--ms MS] [--width W] [--height H] [--seed S] [--jobs J] [--threads T] [--cutoff C] [--rave K | --no-rave] [--exploration C] [--oppai-arg ARG]..."
    );
    std::process::exit(2);
}

fn parse_args() -> Config {
    let mut args = std::env::args().skip(1);
    let mut c = Config {
        oppai: String::new(),
        games: 40,
        ms: 300,
        width: 20,
        height: 20,
        seed: 1,
        jobs: 1,
        threads: 1,
        cutoff: None,
        rave: None,
        no_rave: false,
        exploration: None,
        oppai_args: Vec::new(),
    };
    fn num<T: std::str::FromStr>(flag: &str, v: Option<String>) -> T {
        let v = v.unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        v.parse().unwrap_or_else(|_| usage(&format!("{flag} {v}: not a number in range")))
    }
    while let Some(a) = args.next() {
        match a.as_str() {
            "--games" => c.games = num(&a, args.next()),
            "--ms" => c.ms = num(&a, args.next()),
            "--width" => c.width = num(&a, args.next()),
            "--height" => c.height = num(&a, args.next()),
            "--seed" => c.seed = num(&a, args.next()),
            "--jobs" => c.jobs = num::<usize>(&a, args.next()).max(1),
            "--threads" => c.threads = num::<usize>(&a, args.next()).clamp(1, 64),
            "--cutoff" => c.cutoff = Some(num(&a, args.next())),
            "--rave" => c.rave = Some(num(&a, args.next())),
            "--no-rave" => c.no_rave = true,
            "--exploration" => c.exploration = Some(num(&a, args.next())),
            "--oppai-arg" => c.oppai_args.push(args.next().unwrap_or_else(|| usage("--oppai-arg needs a value"))),
            "-h" | "--help" => usage("help"),
            s if s.starts_with('-') => usage(&format!("unknown option {s}")),
            s if c.oppai.is_empty() => c.oppai = s.to_string(),
            s => usage(&format!("unexpected argument {s}")),
        }
    }
    if c.oppai.is_empty() {
        usage("give the path of an oppai-cli binary");
    }
    if !(5..=64).contains(&c.width) || !(5..=64).contains(&c.height) {
        usage("the board is 5 to 64 points each way");
    }
    if c.no_rave && c.rave.is_some() {
        usage("--rave and --no-rave exclude each other");
    }
    if c.rave.is_some_and(|k| !(k.is_finite() && k > 0.0))
        || c.exploration.is_some_and(|e| !(e.is_finite() && e >= 0.0))
    {
        usage("--rave takes a positive number, --exploration one of at least 0");
    }
    c
}

impl Config {
    /// Tabula's search: the levels' (RAVE) unless `--no-rave`.
    fn search(&self) -> Search {
        let time = Duration::from_millis(self.ms);
        let base = if self.no_rave {
            Search::uct(time)
        } else {
            Search { rave: Some(self.rave.unwrap_or(LEVEL_RAVE)), ..Search::level(time, LEVEL_CUTOFF) }
        };
        Search {
            exploration: self.exploration.unwrap_or(base.exploration),
            cutoff: self.cutoff.unwrap_or(base.cutoff),
            ..base
        }
    }
}

/// One oppai-cli process.
struct Oppai {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
}

impl Oppai {
    fn start(c: &Config) -> Result<Oppai, String> {
        let mut child = Command::new(&c.oppai)
            .args(["--backend", "Ndarray", "--threads-count", "1"])
            .args(&c.oppai_args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            // Its progress log would bury the results; errors still show.
            .env("RUST_LOG", "error")
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", c.oppai))?;
        let to = child.stdin.take().expect("piped");
        let from = BufReader::new(child.stdout.take().expect("piped"));
        Ok(Oppai { child, to, from })
    }

    /// Sends one request and reads its answer.
    fn ask(&mut self, request: serde_json::Value) -> Result<serde_json::Value, String> {
        writeln!(self.to, "{request}").map_err(|e| format!("oppai-cli closed its input: {e}"))?;
        let mut line = String::new();
        let n = self.from.read_line(&mut line).map_err(|e| format!("reading oppai-cli: {e}"))?;
        if n == 0 {
            return Err(format!("oppai-cli exited after {request}"));
        }
        serde_json::from_str(&line).map_err(|e| format!("oppai-cli answered {line:?}: {e}"))
    }

    fn put(&mut self, d: &Dots, p: Point, who: Player) -> Result<(), String> {
        let (x, y) = d.xy(p);
        let r = self.ask(
            serde_json::json!({"command": "PutPoint", "coords": {"x": x - 1, "y": y - 1}, "player": colour(who)}),
        )?;
        if r["put"] != serde_json::json!(true) {
            return Err(format!("oppai-rs refused the dot at {} ({r})", d.format_move(p)));
        }
        Ok(())
    }
}

impl Drop for Oppai {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn colour(p: Player) -> &'static str {
    match p {
        Player::First => "Red",
        Player::Second => "Black",
    }
}

struct GameResult {
    /// Tabula's score: 1, ½ or 0.
    score: f64,
    tabula_first: bool,
    reason: String,
    plies: u32,
    /// Tabula's and oppai-rs's captured points at the end.
    points: [i32; 2],
    /// Tabula's and oppai-rs's thinking time and moves.
    think: [(Duration, u32); 2],
}

fn play(c: &Config, index: usize) -> Result<GameResult, String> {
    let tabula_first = index.is_multiple_of(2);
    let tabula_side = if tabula_first { Player::First } else { Player::Second };
    let mut g = Dots::new(&DotsOptions::sized(c.width, c.height));
    let mut oppai = Oppai::start(c)?;
    oppai.ask(serde_json::json!({"command": "Init", "width": c.width, "height": c.height}))?;
    let setup: Vec<(Point, Player)> = g.points().filter_map(|p| g.dot_at(p).map(|(who, _)| (p, who))).collect();
    for (p, who) in setup {
        oppai.put(&g, p, who)?;
    }
    let mut tabula =
        DotsAgent::with_search("expert", c.search(), c.seed.wrapping_mul(1_000_003).wrapping_add(index as u64));
    let ctx = ThinkContext { threads: c.threads, ..ThinkContext::default() };
    let mut think = [(Duration::ZERO, 0u32); 2];
    let mut legal = Vec::new();
    while !g.status().is_over() {
        let who = g.to_move();
        let started = Instant::now();
        let mv = if who == tabula_side {
            tabula.choose(&g, &ctx)
        } else {
            let r = oppai.ask(serde_json::json!({
                "command": "Analyze", "player": colour(who), "constraint": {"type": "Time", "value": c.ms}
            }))?;
            g.legal_moves(&mut legal);
            let suggested = r["moves"].as_array().ok_or_else(|| format!("oppai-cli answered {r} to Analyze"))?;
            // Its best move that Tabula's rules allow.
            suggested
                .iter()
                .filter_map(|m| {
                    let x = usize::try_from(m["coords"]["x"].as_u64()?).ok()?;
                    let y = usize::try_from(m["coords"]["y"].as_u64()?).ok()?;
                    g.point(x + 1, y + 1)
                })
                .find(|p| legal.contains(p))
                .ok_or_else(|| format!("oppai-rs suggested no legal move at ply {} ({r})", g.plies()))?
        };
        let side = usize::from(who != tabula_side);
        think[side].0 += started.elapsed();
        think[side].1 += 1;
        g.play(mv);
        oppai.put(&g, mv, who)?;
    }
    let outcome = g.status().outcome().expect("the game is over");
    let score = match outcome.winner {
        None => 0.5,
        Some(w) if w == tabula_side => 1.0,
        Some(_) => 0.0,
    };
    let s = g.scores();
    let points = if tabula_first { s } else { [s[1], s[0]] };
    Ok(GameResult { score, tabula_first, reason: outcome.reason.to_string(), plies: g.plies(), points, think })
}

fn main() {
    let c = parse_args();
    println!(
        "Tabula (MCTS, cut-off {}, exploration {}{}, {} thread{}) vs oppai-rs ({}{}), {}x{} from the cross, {} ms a move, {} games, seed {}",
        c.search().cutoff,
        c.search().exploration,
        c.search().rave.map_or(String::new(), |k| format!(", RAVE k={k}")),
        c.threads,
        if c.threads == 1 { "" } else { "s" },
        c.oppai,
        c.oppai_args.iter().map(|a| format!(" {a}")).collect::<String>(),
        c.width,
        c.height,
        c.ms,
        c.games,
        c.seed
    );
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<GameResult>>> = Mutex::new((0..c.games).map(|_| None).collect());
    let failure = Mutex::new(None::<String>);
    std::thread::scope(|s| {
        for _ in 0..c.jobs.min(c.games) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= c.games || failure.lock().unwrap().is_some() {
                    break;
                }
                match play(&c, i) {
                    Ok(r) => {
                        println!(
                            "game {:>3}: Tabula {} {} ({}), {} plies, points {}-{}",
                            i + 1,
                            if r.tabula_first { "first " } else { "second" },
                            match r.score {
                                1.0 => "won ",
                                0.0 => "lost",
                                _ => "drew",
                            },
                            r.reason,
                            r.plies,
                            r.points[0],
                            r.points[1]
                        );
                        results.lock().unwrap()[i] = Some(r);
                    }
                    Err(e) => {
                        *failure.lock().unwrap() = Some(format!("game {}: {e}", i + 1));
                        break;
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap() {
        eprintln!("vs_oppai: {e}");
        std::process::exit(1);
    }
    let results: Vec<GameResult> = results.into_inner().unwrap().into_iter().flatten().collect();
    let n = results.len() as f64;
    let count = |v: f64| results.iter().filter(|r| r.score == v).count();
    let (wins, draws, losses) = (count(1.0), count(0.5), count(0.0));
    let score = trinomial_interval(wins, draws, losses);
    println!("Tabula: {wins} wins, {draws} draws, {losses} losses");
    println!(
        "Tabula's score: {:.1}% (95% CI {:.1}% to {:.1}%), Elo {} (95% CI {} to {})",
        score.value * 100.0,
        score.low * 100.0,
        score.high * 100.0,
        format_elo(score.value),
        format_elo(score.low),
        format_elo(score.high)
    );
    let avg = |f: &dyn Fn(&GameResult) -> f64| results.iter().map(f).sum::<f64>() / n;
    println!(
        "average points Tabula {:.1}, oppai-rs {:.1}; average plies {:.1}",
        avg(&|r| r.points[0] as f64),
        avg(&|r| r.points[1] as f64),
        avg(&|r| r.plies as f64)
    );
    let per_move = |side: usize| {
        let (t, k) = results.iter().fold((Duration::ZERO, 0), |(t, k), r| (t + r.think[side].0, k + r.think[side].1));
        t.as_secs_f64() * 1000.0 / f64::from(k.max(1))
    };
    println!("average time a move: Tabula {:.0} ms, oppai-rs {:.0} ms", per_move(0), per_move(1));
    let mut endings: Vec<(String, usize)> = Vec::new();
    for r in &results {
        match endings.iter_mut().find(|(e, _)| *e == r.reason) {
            Some(e) => e.1 += 1,
            None => endings.push((r.reason.clone(), 1)),
        }
    }
    println!("endings: {}", endings.iter().map(|(e, k)| format!("{e} {k}")).collect::<Vec<_>>().join(", "));
}
