use crate::util::{self, input_error};
use anyhow::Result;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Game id (see `tabula games`)
    game: String,
    /// Start from this position, in the game's notation
    #[arg(long)]
    position: Option<String>,
    /// Moves to play first, separated by spaces, e.g. "b2 a2 b2-b3"
    #[arg(long, allow_hyphen_values = true)]
    moves: Option<String>,
    /// A game option as key=value (repeatable), e.g. --option width=20
    #[arg(long = "option", short = 'o', value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Also print the game-specific board view
    #[arg(long)]
    view: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let game = util::game(&args.game)?;
    let options = util::options(&args.options)?;
    let moves = args.moves.as_deref().map(tabula_core::record::split_moves).unwrap_or_default();
    let state = game.replay(&options, args.position.as_deref(), &moves).map_err(|e| input_error(e.to_string()))?;
    let mut json = state.state_json();
    if args.view {
        json["view"] = state.view();
    }
    println!("{json}");
    Ok(ExitCode::SUCCESS)
}
