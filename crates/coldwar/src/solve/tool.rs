//! `tabula solve coldwar`: the solved value of a Cold War position, a tool
//! the game adds to the `tabula` command.

use super::cache;
use super::report::{reachable_census, solve_report};
use crate::rules::ColdWar;
use clap::Parser;
use serde_json::json;
use std::ffi::OsString;
use tabula_core::record::{replay, split_moves};
use tabula_core::tool::{Tool, ToolError};
use tabula_core::{Game, NoOptions};

const ABOUT: &str = "Print the solved value and best moves of a position (Cold War only)";

/// The `solve` tool.
pub const TOOL: Tool = Tool { name: "solve", about: ABOUT, run };

#[derive(Parser)]
#[command(about = ABOUT, after_help = "Prints one JSON object: `value` (win, loss or draw for the side to move), `plies` \n\
    (fewest plies to win / most plies until the loss, 0 for a draw), `best` (the best moves) and every\n\
    move's value. The table is solved once (about half a minute) and cached in the user's cache\n\
    directory, or in $TABULA_CACHE_DIR.\n\n\
    EXAMPLES:\n  tabula solve coldwar\n  tabula solve coldwar --position 'X3.O1/.X1./... O'\n  tabula solve coldwar --stats")]
struct Args {
    /// Game id; only coldwar has a solver
    game: String,
    /// The position to solve, e.g. 'X3.O1/.X1./... O' (default: the start)
    #[arg(long)]
    position: Option<String>,
    /// Moves to play first, separated by spaces, e.g. "b2 a2 b2-b3"
    #[arg(long, allow_hyphen_values = true)]
    moves: Option<String>,
    /// Solve again and replace the cached table
    #[arg(long)]
    rebuild: bool,
    /// Print facts about the whole solution instead: counts of wins, losses and
    /// draws over every board and over the positions reachable from the start
    #[arg(long, conflicts_with_all = ["position", "moves"])]
    stats: bool,
}

fn run(args: Vec<OsString>) -> Result<(), ToolError> {
    let args = Args::parse_from(args);
    if args.game != ColdWar::ID {
        return Err(ToolError::Input(format!(
            "only coldwar can be solved; '{}' has no solver (try `tabula solve coldwar`)",
            tabula_core::error::excerpt(&args.game)
        )));
    }
    // Read the input before the (possibly long) solve, so mistakes show at once.
    let moves = args.moves.as_deref().map(split_moves).unwrap_or_default();
    let game: ColdWar =
        replay(&NoOptions, args.position.as_deref(), &moves).map_err(|e| ToolError::Input(e.to_string()))?;
    let (table, origin) = cache::load_or_build(cache::cache_path().as_deref(), args.rebuild);
    if !matches!(origin, cache::Origin::Loaded(_)) {
        eprintln!("{origin}");
    }
    let out = if args.stats {
        let c = table.census();
        json!({
            "game": ColdWar::ID,
            "start": solve_report(&table, &ColdWar::new(&NoOptions)),
            "boards_each_side_to_move": {
                "boards": c.wins + c.losses + c.draws,
                "wins": c.wins,
                "losses": c.losses,
                "draws": c.draws,
                "longest_win": c.longest_win,
                "longest_loss": c.longest_loss,
            },
            "reachable_from_start": reachable_census(&table).to_json(),
        })
    } else {
        solve_report(&table, &game)
    };
    println!("{out}");
    Ok(())
}
