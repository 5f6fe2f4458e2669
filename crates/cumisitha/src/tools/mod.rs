//! Cumisitha's own commands beyond the common game API, which the game adds
//! to `tabula` as tools: `perft` (move-generation counts), `uci` (a UCI
//! front end for chess GUIs and match runners) and `uci-match` (matches
//! against an external UCI engine).

pub mod arena;
pub mod perft;
pub mod uci;

use crate::rules::Cumisitha;
use clap::Parser;
use serde_json::json;
use std::ffi::OsString;
use std::io::Write;
use std::time::Duration;
use tabula_core::record::split_moves;
use tabula_core::tool::{Tool, ToolError};
use tabula_core::{Game, NoOptions};

const PERFT_ABOUT: &str = "Count the legal move tree of a Cumisitha position (perft)";
const UCI_ABOUT: &str = "Speak UCI on stdin/stdout: the Cumisitha engine for chess GUIs and match runners";
const MATCH_ABOUT: &str = "Play the Cumisitha engine against an external UCI engine (e.g. stockfish)";

/// The commands Cumisitha adds to `tabula`.
pub const TOOLS: &[Tool] = &[
    Tool { name: "perft", about: PERFT_ABOUT, run: run_perft },
    Tool { name: "uci", about: UCI_ABOUT, run: run_uci },
    Tool { name: "uci-match", about: MATCH_ABOUT, run: run_uci_match },
];

fn input(message: impl Into<String>) -> ToolError {
    ToolError::Input(message.into())
}

#[derive(Parser)]
#[command(about = PERFT_ABOUT, after_help = "Counts the leaf nodes of the legal move tree (chess moves, as the published perft \n\
    numbers are). The last line of the output is the node count alone; --divide first prints one line\n\
    per root move (`e2e4: 20`) and a blank line.\n\n\
    EXAMPLES:\n  tabula perft cumisitha --depth 5\n  tabula perft cumisitha --position 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1' --depth 4 --divide")]
struct PerftArgs {
    /// Game id; only cumisitha has perft
    game: String,
    /// Start position as FEN (default: the standard start)
    #[arg(long)]
    position: Option<String>,
    /// Moves to play first (UCI or SAN), separated by spaces
    #[arg(long, allow_hyphen_values = true)]
    moves: Option<String>,
    /// Depth in plies
    #[arg(long)]
    depth: u32,
    /// One line per root move before the total
    #[arg(long)]
    divide: bool,
}

fn run_perft(args: Vec<OsString>) -> Result<(), ToolError> {
    let args = PerftArgs::parse_from(args);
    if args.game != Cumisitha::ID {
        let game = tabula_core::error::excerpt(&args.game);
        return Err(input(format!("only cumisitha has perft; '{game}' has none")));
    }
    if args.depth > 12 {
        return Err(input(format!("depth {} is too deep for perft (at most 12)", args.depth)));
    }
    let mut state = match &args.position {
        Some(p) => {
            Cumisitha::from_position(p, &NoOptions).map_err(|e| input(format!("position '{p}' refused: {e}")))?
        }
        None => Cumisitha::new(&NoOptions),
    };
    if let Some(moves) = &args.moves {
        // Perft counts chess moves, so moves are played as chess even past
        // the end of a Cumisitha game (the counter).
        for (i, text) in split_moves(moves).into_iter().enumerate() {
            let refused = |e: &dyn std::fmt::Display| input(format!("move {} '{text}' refused: {e}", i + 1));
            let mv = state.parse_move(text).map_err(|e| refused(&e))?;
            state.play_chess(mv).map_err(|e| refused(&e))?;
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.divide {
        perft::divide(state.board(), args.depth, &mut out)?;
    } else {
        writeln!(out, "{}", perft::perft(state.board(), args.depth))?;
    }
    Ok(())
}

#[derive(Parser)]
#[command(about = UCI_ABOUT, after_help = "Speaks the Universal Chess Interface on standard input and output, playing by \n\
    Cumisitha rules (a repetition is not a draw; 100 plies without capture or pawn move is). Supports\n\
    uci, isready, ucinewgame, setoption name Hash value MB, setoption name Threads value N,\n\
    position startpos|fen ... [moves ...],\n\
    go wtime/btime/winc/binc/movestogo/movetime/depth/nodes/infinite, stop and quit.\n\n\
    EXAMPLE:\n  printf 'position startpos moves e2e4\\ngo movetime 500\\n' | tabula uci")]
struct UciArgs {}

fn run_uci(args: Vec<OsString>) -> Result<(), ToolError> {
    UciArgs::parse_from(args);
    uci::run(std::io::BufReader::new(std::io::stdin()), std::io::stdout())?;
    Ok(())
}

#[derive(Parser)]
#[command(about = MATCH_ABOUT, after_help = "Plays Tabula's Cumisitha engine against an external UCI engine, adjudicated by \n\
    Cumisitha rules. Both engines get the same budget per move: --movetime (default 100 ms), --nodes or\n\
    --depth. Openings come from a book of 50, each played once with each colour (a pair), optionally\n\
    followed by --random-plies seeded random moves that keep material level. With --sprt the match\n\
    stops as soon as the sequential probability ratio test (pentanomial, on the pairs) decides, and the\n\
    log-likelihood ratio is printed after every pair. For self-play, the opponent is another build:\n\
    --engine '/path/to/old/tabula uci'. See docs/cumisitha-engine.md.\n\n\
    EXAMPLES:\n  tabula uci-match --engine stockfish --engine-option 'Skill Level=10' --movetime 100 --games 100\n  \
    tabula uci-match --engine '/tmp/base/tabula uci' --nodes 20000 --random-plies 4 --concurrency 2 \\\n      \
    --games 20000 --sprt 0,5")]
struct MatchArgs {
    /// The opponent's program (and arguments, separated by spaces)
    #[arg(long, default_value = "stockfish")]
    engine: String,
    /// An option for the opponent as NAME=VALUE (repeatable), e.g. 'Skill Level=3'
    #[arg(long = "engine-option")]
    engine_options: Vec<String>,
    /// Milliseconds per move for both engines (the default budget: 100)
    #[arg(long, conflicts_with_all = ["nodes", "depth"])]
    movetime: Option<u64>,
    /// Nodes per move for both engines, instead of a time
    #[arg(long, conflicts_with = "depth")]
    nodes: Option<u64>,
    /// Depth per move for both engines, instead of a time
    #[arg(long)]
    depth: Option<i32>,
    /// Games to play (the most, with --sprt); even, so every opening gets both colours
    #[arg(long, default_value_t = 40)]
    games: usize,
    /// Our transposition table in MB
    #[arg(long, default_value_t = 32)]
    hash: usize,
    /// Games played at once, each by its own pair of engines
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Seeded random plies after each book line, for more varied openings
    #[arg(long, default_value_t = 0)]
    random_plies: u32,
    /// Seed of the random plies
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop when an SPRT decides: ELO0,ELO1[,ALPHA,BETA] (alpha, beta default 0.05), e.g. 0,5
    #[arg(long)]
    sprt: Option<String>,
    /// Write every game to this PGN file
    #[arg(long)]
    pgn: Option<std::path::PathBuf>,
    /// Print the summary as JSON
    #[arg(long)]
    json: bool,
}

fn run_uci_match(args: Vec<OsString>) -> Result<(), ToolError> {
    let args = MatchArgs::parse_from(args);
    let mut options = Vec::new();
    for o in &args.engine_options {
        let (k, v) = o.split_once('=').ok_or_else(|| input(format!("engine option '{o}' is not NAME=VALUE")))?;
        options.push((k.trim().to_string(), v.trim().to_string()));
    }
    let limit = match (args.movetime, args.nodes, args.depth) {
        (_, Some(0), _) | (_, _, Some(0)) | (Some(0), _, _) => {
            return Err(input("--movetime, --nodes and --depth must be above zero"))
        }
        (_, Some(n), _) => arena::MoveLimit::Nodes(n),
        (_, _, Some(d)) if d > 100 => return Err(input(format!("--depth {d} is too deep (at most 100)"))),
        (_, _, Some(d)) => arena::MoveLimit::Depth(d),
        (ms, _, _) => arena::MoveLimit::Movetime(Duration::from_millis(ms.unwrap_or(100))),
    };
    if args.games == 0 {
        return Err(input("--games must be above zero"));
    }
    if args.concurrency == 0 || args.concurrency > 64 {
        return Err(input("--concurrency must be between 1 and 64"));
    }
    let sprt = args.sprt.as_deref().map(arena::Sprt::parse).transpose().map_err(input)?;
    let config = arena::ArenaConfig {
        command: args.engine.split_whitespace().map(str::to_string).collect(),
        options: options.clone(),
        limit,
        games: args.games,
        hash_mb: args.hash,
        concurrency: args.concurrency,
        random_plies: args.random_plies,
        seed: args.seed,
        sprt,
    };
    let quiet = args.json;
    let report = arena::run(&config, &mut |g, r| {
        if !quiet {
            let llr = match &r.sprt {
                Some(s) => format!("  LLR {:+.2} [{:.2}, {:.2}]", s.llr, s.lower, s.upper),
                None => String::new(),
            };
            eprintln!(
                "game {:>4} {:<24} tabula {} {:>3} plies  {:<26} running: +{} ={} -{} ({:.1}%){llr}",
                g.number,
                g.opening,
                if g.tabula_white { "white" } else { "black" },
                g.plies,
                format!("{} ({})", g.tabula_score, g.reason),
                r.wins,
                r.draws,
                r.losses,
                100.0 * r.score()
            );
        }
    })
    .map_err(|e| ToolError::Failed(e.to_string()))?;
    if let Some(path) = &args.pgn {
        let mut text = String::new();
        for g in &report.games {
            text.push_str(&arena::game_pgn(g, &args.engine).map_err(|e| ToolError::Failed(e.to_string()))?);
            text.push('\n');
        }
        std::fs::write(path, text)?;
    }
    let options_text: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let score = report.score_interval();
    let basis = report.elo_basis();
    let elo = tabula_ratings::match_stats::format_elo;
    if args.json {
        println!(
            "{}",
            json!({
                "engine": args.engine, "engine_options": options_text, "limit": limit.to_string(),
                "games": report.games.len(), "wins": report.wins, "draws": report.draws, "losses": report.losses,
                "score": report.score(), "score_low": score.low, "score_high": score.high,
                "elo": elo(basis.value), "elo_low": elo(basis.low), "elo_high": elo(basis.high),
                "pentanomial": report.pentanomial,
                "sprt": report.sprt.map(|s| json!({
                    "llr": s.llr, "lower": s.lower, "upper": s.upper, "verdict": s.verdict(),
                })),
                "tabula_nps": report.nps(), "wall_seconds": report.wall.as_secs_f64(),
                "cpu_seconds_tabula": report.cpu_ours.as_secs_f64(),
                "cpu_seconds_opponent": report.cpu_theirs.as_secs_f64(),
            })
        );
    } else {
        println!(
            "tabula vs {} [{}], {}, concurrency {}: +{} ={} -{} in {} games, score {:.1}% [{:.1}%, {:.1}%], \
             Elo {} [{}, {}]",
            args.engine,
            options_text.join(", "),
            limit,
            args.concurrency,
            report.wins,
            report.draws,
            report.losses,
            report.games.len(),
            100.0 * score.value,
            100.0 * score.low,
            100.0 * score.high,
            elo(basis.value),
            elo(basis.low),
            elo(basis.high),
        );
        let p = report.pentanomial;
        println!("pairs by tabula's points (0, 1/2, 1, 3/2, 2): {} {} {} {} {}", p[0], p[1], p[2], p[3], p[4]);
        if let (Some(s), Some(test)) = (report.sprt, &config.sprt) {
            println!("{test}: LLR {:.2} (bounds {:.2}, {:.2}): {}", s.llr, s.lower, s.upper, s.verdict());
        }
        println!(
            "tabula {} nodes/s; wall {:.0} s; CPU {:.0} s tabula, {:.0} s opponent",
            report.nps(),
            report.wall.as_secs_f64(),
            report.cpu_ours.as_secs_f64(),
            report.cpu_theirs.as_secs_f64()
        );
    }
    Ok(())
}
