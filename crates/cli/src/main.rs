//! `tabula`: one command for every game. The work is done by the game
//! crates through the registry; this binary only parses arguments and
//! prints results. It names no game: the games, their players and the
//! commands they add (their tools, such as `solve` or `perft`) come from
//! `tabula_games::REGISTRY`.

mod bot_api;
mod bot_game;
mod brain;
mod cmd_analyse;
mod cmd_bench;
mod cmd_bot;
mod cmd_games;
mod cmd_match;
mod cmd_play;
mod cmd_replay;
mod cmd_serve;
mod cmd_state;
mod cmd_tournament;
mod selfplay;
mod util;

use clap::{Arg, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::ffi::OsString;
use std::process::ExitCode;
use tabula_core::tool::Tool;
use tabula_games::REGISTRY;

#[derive(Parser)]
#[command(name = "tabula", version)]
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
    /// Ask the game's engine about a position: evaluation, best line, move values
    Analyse(cmd_analyse::Args),
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
    /// Play on a server as a bot account: accept challenges and play them with an AI or a UCI engine
    Bot(cmd_bot::Args),
}

/// Every tool the registered games add, in registry order.
fn tools() -> impl Iterator<Item = &'static Tool> {
    REGISTRY.games().iter().flat_map(|g| g.tools().iter())
}

/// `a, b, c and d`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The command line: the derived commands, with what only the registry
/// knows added at run time (the games' names, their seats and records, and
/// their tools as subcommands).
fn command() -> clap::Command {
    let names: Vec<&str> = REGISTRY.games().iter().map(|g| g.name()).collect();
    let mut cmd = Cli::command()
        .about(format!("Tabula: {}, with strong AIs", and_list(&names)))
        .long_about(format!(
            "Tabula: play {} in the terminal or the browser, against people or AIs, and use the engines for \
             simulation and analysis.\n\nRun `tabula games` to see the games, their options and AI levels.",
            and_list(&names)
        ))
        .mut_subcommand("play", cmd_play::from_registry)
        .mut_subcommand("match", cmd_match::from_registry)
        .mut_subcommand("tournament", cmd_tournament::from_registry)
        .mut_subcommand("replay", cmd_replay::from_registry)
        .mut_subcommand("bot", cmd_bot::from_registry);
    for tool in tools() {
        // The tool parses its own arguments (and prints its own help).
        let args = Arg::new("args")
            .num_args(0..)
            .trailing_var_arg(true)
            .allow_hyphen_values(true)
            .value_parser(clap::value_parser!(OsString));
        cmd = cmd.subcommand(clap::Command::new(tool.name).about(tool.about).disable_help_flag(true).arg(args));
    }
    cmd
}

/// Run a game's tool when the command line names one (`tabula perft ...`,
/// or `tabula help perft`); `None` otherwise.
fn run_tool(args: &[OsString]) -> Option<ExitCode> {
    let find = |name: &OsString| tools().find(|t| name == t.name);
    let (tool, rest) = match args.get(1..)? {
        [help, name, ..] if help == "help" => (find(name)?, vec![OsString::from("--help")]),
        [name, rest @ ..] => (find(name)?, rest.to_vec()),
        [] => return None,
    };
    let bin = args
        .first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .map_or_else(|| "tabula".into(), |n| n.to_string_lossy().into_owned());
    let mut argv = vec![OsString::from(format!("{bin} {}", tool.name))];
    argv.extend(rest);
    match (tool.run)(argv) {
        Ok(()) => Some(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("error: {e}");
            Some(ExitCode::from(e.exit_status()))
        }
    }
}

fn main() -> ExitCode {
    // Die quietly when a reader such as `head` closes the pipe, as other
    // Unix tools do, instead of panicking on the failed write.
    #[cfg(unix)]
    // SAFETY: restoring the default action of a signal has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args: Vec<OsString> = std::env::args_os().collect();
    if let Some(code) = run_tool(&args) {
        return code;
    }
    let matches = command().get_matches_from(&args);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::Games(a) => cmd_games::run(a),
        Command::State(a) => cmd_state::run(a),
        Command::Analyse(a) => cmd_analyse::run(a),
        Command::Play(a) => cmd_play::run(a),
        Command::Match(a) => cmd_match::run(a),
        Command::Tournament(a) => cmd_tournament::run(a),
        Command::Bench(a) => cmd_bench::run(a),
        Command::Replay(a) => cmd_replay::run(a),
        Command::Serve(a) => cmd_serve::run(a),
        Command::Bot(a) => cmd_bot::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", tabula_core::error::shorten_quotes(format!("{e:#}")));
            ExitCode::from(util::exit_code(&e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed_and_tool_names_are_unique() {
        command().debug_assert();
        let builtin: Vec<String> = Cli::command().get_subcommands().map(|c| c.get_name().to_string()).collect();
        let mut seen = Vec::new();
        for tool in tools() {
            assert!(!builtin.iter().any(|b| b == tool.name), "tool {} shadows a command", tool.name);
            assert!(!seen.contains(&tool.name), "two games add a tool named {}", tool.name);
            seen.push(tool.name);
        }
    }
}
