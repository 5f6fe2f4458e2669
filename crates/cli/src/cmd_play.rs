use crate::util::{self, describe_result, input_error};
use anyhow::Result;
use rand::Rng;
use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tabula_core::clock::fmt_ms;
use tabula_core::matches::{Match, MatchError};
use tabula_core::{DynAgent, DynGame, DynState, Player, TimeControl};
use tabula_games::REGISTRY;

#[derive(clap::Args)]
pub struct Args {
    /// Game id (see `tabula games`)
    game: String,
    /// The first player's seat: human, ai or ai:LEVEL
    #[arg(long = "first", value_name = "SEAT")]
    first: Option<String>,
    /// The second player's seat: human, ai or ai:LEVEL
    #[arg(long = "second", value_name = "SEAT")]
    second: Option<String>,
    /// A game option as key=value (repeatable)
    #[arg(long = "option", short = 'o', value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Start from this position, in the game's notation
    #[arg(long)]
    position: Option<String>,
    /// Time control: none, fischer:BASE+INC (seconds), match:MINUTES, shot:SECONDS.
    /// Defaults to what the game's options call for (a match mode), else none.
    /// A game whose options fix the clock refuses a different one
    #[arg(long)]
    clock: Option<String>,
    /// Seed for the AIs
    #[arg(long, value_parser = crate::util::whole::<u64>)]
    seed: Option<u64>,
}

/// The names of one seat across the registered games, in registry order,
/// each once: `white`, `blue`, `x` for the first seat.
fn seat_names(seat: usize) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for g in REGISTRY.games() {
        let name = g.players()[seat];
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// An option of the game worth showing in an example: the first one with a
/// list of values, set to a value other than its default.
fn example_option(game: &dyn DynGame) -> Option<String> {
    game.option_specs().iter().find_map(|spec| {
        let value = spec.values.split('|').find(|v| *v != spec.default && !v.contains(".."))?;
        (spec.values.contains('|')).then(|| format!(" --option {}={value}", spec.key))
    })
}

/// `play` with the seat options and examples of the registered games: the
/// first seat is `--white` with the other games' names for it (`--blue`,
/// `--x`) and `--first` as aliases, the second likewise.
pub fn from_registry(cmd: clap::Command) -> clap::Command {
    let [first, second] = [seat_names(0), seat_names(1)];
    let aliases = |names: &[&'static str], generic: &'static str| {
        names[1..].iter().copied().chain([generic]).collect::<Vec<&'static str>>()
    };
    let dashed = |names: &[&str]| names.iter().map(|n| format!("--{n}")).collect::<Vec<_>>().join(", ");
    let mut examples = String::new();
    for g in REGISTRY.games() {
        let [p0, p1] = g.players();
        let option = example_option(*g).unwrap_or_default();
        examples.push_str(&format!("\n  tabula play {}{option} --{p0} human --{p1} ai:{}", g.id(), g.default_level()));
    }
    let help = format!(
        "SEATS: each seat is `human`, `ai` (the game's default level) or `ai:LEVEL`.\n\
         The first player's seat is --{} (also {}), the second's --{}\n\
         (also {}). With no seat given you play against the default AI and\n\
         your colour is drawn at random.\n\n\
         While playing, type a move in the game's notation, or: help, moves, board, undo, resign, quit.\n\n\
         EXAMPLES:{examples}",
        first[0],
        dashed(&aliases(&first, "first")),
        second[0],
        dashed(&aliases(&second, "second")),
    );
    cmd.after_help(help)
        .mut_arg("first", |a| a.long(first[0]).visible_aliases(aliases(&first, "first")))
        .mut_arg("second", |a| a.long(second[0]).visible_aliases(aliases(&second, "second")))
}

enum Seat {
    Human,
    Ai(Box<dyn DynAgent>, String),
}

fn parse_seat(game: &dyn tabula_core::DynGame, spec: &str, seed: u64) -> Result<Seat> {
    let spec = spec.trim();
    if spec.eq_ignore_ascii_case("human") {
        return Ok(Seat::Human);
    }
    let level = match spec.split_once(':') {
        Some((ai, level)) if ai.eq_ignore_ascii_case("ai") => level,
        None if spec.eq_ignore_ascii_case("ai") => game.default_level(),
        _ => return Err(input_error(format!("seat '{spec}' is not human, ai or ai:LEVEL"))),
    };
    let agent = game.new_agent(level, seed).map_err(|e| input_error(e.to_string()))?;
    Ok(Seat::Ai(agent, format!("ai:{level}")))
}

const HELP: &str = "Commands:\n  <move>   play a move in the game's notation\n  moves    list the legal moves\n  \
    board    show the board again\n  undo     take back your last move (untimed games)\n  resign   give up the game\n  \
    help     this text\n  quit     leave";

pub fn run(args: Args) -> Result<ExitCode> {
    let game = util::game(&args.game)?;
    let options = util::options(&args.options)?;
    let state = util::new_state(game, &options, args.position.as_deref())?;
    let seed = args.seed.unwrap_or_else(|| rand::rng().random());
    let (first, second) = match (&args.first, &args.second) {
        (None, None) => {
            let ai = format!("ai:{}", game.default_level());
            if rand::rng().random_bool(0.5) {
                ("human".to_string(), ai)
            } else {
                (ai, "human".to_string())
            }
        }
        (a, b) => (a.clone().unwrap_or_else(|| "human".into()), b.clone().unwrap_or_else(|| "human".into())),
    };
    let mut seats = [parse_seat(game, &first, seed)?, parse_seat(game, &second, seed.wrapping_add(1))?];
    let control = util::clock(game, state.as_ref(), args.clock.as_deref())?;
    let color = util::use_color();
    let names = state.players();
    for (i, seat) in seats.iter().enumerate() {
        let who = match seat {
            Seat::Human => "human".to_string(),
            Seat::Ai(a, spec) => format!("{spec} ({})", a.describe()),
        };
        println!("{}: {who}", names[i]);
    }
    println!("{}: {}; type 'help' for commands.\n", game.name(), control.describe());

    // Read stdin on its own thread so that clocks keep running (and a flag
    // can fall) while a person thinks.
    // A line that is not UTF-8 comes as `Err` with an excerpt of it, so the
    // session can say so and go on.
    let (tx, rx) = mpsc::channel::<Result<String, String>>();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut raw = Vec::new();
        loop {
            raw.clear();
            match stdin.read_until(b'\n', &mut raw) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let line = match std::str::from_utf8(&raw) {
                Ok(text) => Ok(text.trim_end_matches(['\n', '\r']).to_string()),
                Err(_) => Err(String::from_utf8_lossy(&raw).trim_end().to_string()),
            };
            if tx.send(line).is_err() {
                break;
            }
        }
    });

    let t0 = Instant::now();
    let now = || t0.elapsed().as_millis() as u64;
    let mut m = Match::new(state, control, now());
    let mut history: Vec<Box<dyn DynState>> = Vec::new();
    let mut show_board = true;
    loop {
        if let Some(r) = m.tick(now()) {
            println!("\n{}", m.state.render_text(color));
            println!("*** {} ***", describe_result(m.state.as_ref(), r.winner, &r.reason));
            break;
        }
        if let Some(r) = &m.result {
            println!("\n{}", m.state.render_text(color));
            println!("*** {} ***", describe_result(m.state.as_ref(), r.winner, &r.reason));
            break;
        }
        let mover = m.state.to_move();
        if show_board {
            println!("{}", m.state.render_text(color));
            println!("{}", status_line(&m, now()));
        }
        show_board = true;
        match &mut seats[mover.index()] {
            Seat::Ai(agent, spec) => {
                let ctx = m.think_context(now());
                let started = Instant::now();
                let mv = agent.choose(m.state.as_ref(), &ctx)?;
                println!("{} ({spec}) plays {mv}  [{:.1} s]\n", names[mover.index()], started.elapsed().as_secs_f64());
                history.push(m.state.clone_box());
                if let Err(e) = m.play(&mv, now()) {
                    history.pop();
                    match e {
                        MatchError::Move(e) => anyhow::bail!("the AI chose a refused move: {e}"),
                        MatchError::TimeUp(_) | MatchError::Finished(_) => continue,
                    }
                }
            }
            Seat::Human => {
                print!("{} to move> ", names[mover.index()]);
                std::io::stdout().flush()?;
                let line = loop {
                    match rx.recv_timeout(Duration::from_millis(100)) {
                        Ok(line) => break Some(line),
                        Err(mpsc::RecvTimeoutError::Timeout) => {
                            if m.clock.check(now()).is_some() {
                                break None;
                            }
                        }
                        Err(mpsc::RecvTimeoutError::Disconnected) => {
                            println!("\n(end of input: leaving the game)");
                            return Ok(ExitCode::SUCCESS);
                        }
                    }
                };
                let line = match line {
                    None => {
                        println!();
                        continue; // the flag fell; tick() reports it
                    }
                    Some(Err(lossy)) => {
                        println!(
                            "that line is not UTF-8 text ('{}'); type a move, or 'help'.",
                            tabula_core::error::excerpt(&lossy)
                        );
                        show_board = false;
                        continue;
                    }
                    Some(Ok(line)) => line,
                };
                let input = line.trim();
                match input.to_ascii_lowercase().as_str() {
                    "" => show_board = false,
                    "help" | "?" => {
                        println!("{HELP}");
                        show_board = false;
                    }
                    "moves" => {
                        println!("{}", m.state.legal_moves().join(" "));
                        show_board = false;
                    }
                    "board" => {}
                    "quit" | "exit" => return Ok(ExitCode::SUCCESS),
                    "resign" => {
                        m.resign(mover, now());
                    }
                    "undo" => {
                        if !m.clock.control.is_none() {
                            println!("undo is not available in a timed game");
                            show_board = false;
                            continue;
                        }
                        // Take back plies until it is a person's turn again.
                        let mut undone = false;
                        while let Some(prev) = history.pop() {
                            let to_move = prev.to_move();
                            m.state = prev;
                            m.result = None;
                            undone = true;
                            if matches!(seats[to_move.index()], Seat::Human) {
                                break;
                            }
                        }
                        if !undone {
                            println!("nothing to undo");
                            show_board = false;
                        }
                    }
                    _ => {
                        history.push(m.state.clone_box());
                        match m.play(input, now()) {
                            Ok(()) => {}
                            Err(MatchError::Move(e)) => {
                                history.pop();
                                println!("{e}. Type 'moves' for the legal moves or 'help'.");
                                show_board = false;
                            }
                            Err(_) => {
                                history.pop();
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn status_line(m: &Match, now: u64) -> String {
    let names = m.state.players();
    let mut parts = vec![format!("ply {}", m.state.plies()), format!("{} to move", names[m.state.to_move().index()])];
    if let Some(s) = m.state.score() {
        parts.push(format!("score {} {} : {} {}", names[0], s[0], s[1], names[1]));
    }
    match m.clock.control {
        TimeControl::None => {}
        TimeControl::MatchClock { .. } => {
            let left = m.clock.remaining(Player::First, now).unwrap_or(0);
            let ot = if m.clock.in_overtime() { " (overtime)" } else { "" };
            parts.push(format!("match clock {}{ot}", fmt_ms(left)));
        }
        _ => {
            for p in Player::BOTH {
                parts.push(format!("{} {}", names[p.index()], fmt_ms(m.clock.remaining(p, now).unwrap_or(0))));
            }
        }
    }
    parts.join(" | ")
}
