//! `tabula`: one command for every game. The work is done by the game
//! crates through the registry; this binary only parses arguments and
//! prints results.

mod cmd_bench;
mod cmd_coldwar;
mod cmd_cumisitha;
mod cmd_games;
mod cmd_match;
mod cmd_play;
mod cmd_replay;
mod cmd_serve;
mod cmd_state;
mod cmd_tournament;
mod selfplay;
mod util;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "tabula",
    version,
    about = "Tabula: Cordots, Cumisitha, Dots and Cold War, with strong AIs",
    long_about = "Tabula: play Cordots, Cumisitha, Dots and Cold War in the terminal or the browser, \
                  against people or AIs, and use the engines for simulation and analysis.\n\n\
                  Run `tabula games` to see the games, their options and AI levels."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the games, their options and AI levels
    Games(cmd_games::Args),
    /// Print a position as JSON (after optional moves)
    State(cmd_state::Args),
    /// Play in the terminal, against a person or an AI
    Play(cmd_play::Args),
    /// Play AIs against each other and report the score and Elo difference
    Match(cmd_match::Args),
    /// Run a tournament between AIs: standings, crosstable and fitted ratings
    Tournament(cmd_tournament::Args),
    /// Measure random playouts per second on one thread
    Bench(cmd_bench::Args),
    /// Replay a game record (PGN, SGF or Tabula's text) and print the final state
    Replay(cmd_replay::Args),
    /// Run the game server: play in the browser, API and WebSocket (see docs/api.md)
    Serve(cmd_serve::Args),
    /// Print the solved value and best moves of a position (Cold War only)
    Solve(cmd_coldwar::Args),
    /// Count the legal move tree of a Cumisitha position (perft)
    Perft(cmd_cumisitha::PerftArgs),
    /// Speak UCI on stdin/stdout: the Cumisitha engine for chess GUIs and match runners
    Uci(cmd_cumisitha::UciArgs),
    /// Play the Cumisitha engine against an external UCI engine (e.g. stockfish)
    UciMatch(cmd_cumisitha::MatchArgs),
}

fn main() -> ExitCode {
    // Die quietly when a reader such as `head` closes the pipe, as other
    // Unix tools do, instead of panicking on the failed write.
    #[cfg(unix)]
    // SAFETY: restoring the default action of a signal has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Games(a) => cmd_games::run(a),
        Command::State(a) => cmd_state::run(a),
        Command::Play(a) => cmd_play::run(a),
        Command::Match(a) => cmd_match::run(a),
        Command::Tournament(a) => cmd_tournament::run(a),
        Command::Bench(a) => cmd_bench::run(a),
        Command::Replay(a) => cmd_replay::run(a),
        Command::Serve(a) => cmd_serve::run(a),
        Command::Solve(a) => cmd_coldwar::run(a),
        Command::Perft(a) => cmd_cumisitha::perft(a),
        Command::Uci(a) => cmd_cumisitha::uci(a),
        Command::UciMatch(a) => cmd_cumisitha::uci_match(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", tabula_core::error::shorten_quotes(format!("{e:#}")));
            ExitCode::from(util::exit_code(&e))
        }
    }
}
