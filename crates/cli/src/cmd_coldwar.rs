//! `tabula solve coldwar`: the solved value of a Cold War position. The
//! solver lives in tabula-coldwar; this only reads arguments and prints.

use crate::util::{self, input_error};
use anyhow::Result;
use serde_json::json;
use std::process::ExitCode;
use tabula_coldwar::solve::cache;
use tabula_coldwar::{reachable_census, solve_report, ColdWar};
use tabula_core::Game;

#[derive(clap::Args)]
#[command(after_help = "Prints one JSON object: `value` (win, loss or draw for the side to move), `plies` \n\
    (fewest plies to win / most plies until the loss, 0 for a draw), `best` (the best moves) and every\n\
    move's value. The table is solved once (about half a minute) and cached in the user's cache\n\
    directory, or in $TABULA_CACHE_DIR.\n\n\
    EXAMPLES:\n  tabula solve coldwar\n  tabula solve coldwar --position 'X3.O1/.X1./... O'\n  tabula solve coldwar --stats")]
pub struct Args {
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

pub fn run(args: Args) -> Result<ExitCode> {
    if args.game != ColdWar::ID {
        return Err(input_error(format!(
            "only coldwar can be solved; '{}' has no solver (try `tabula solve coldwar`)",
            args.game
        )));
    }
    // Read the input before the (possibly long) solve, so mistakes show at once.
    let mut game = match &args.position {
        Some(p) => ColdWar::from_position(p, &Default::default())
            .map_err(|e| input_error(format!("position '{p}' refused: {e}")))?,
        None => ColdWar::new(&Default::default()),
    };
    if let Some(moves) = &args.moves {
        for (i, text) in util::split_moves(moves).into_iter().enumerate() {
            let mv = game.check_move(text).map_err(|e| input_error(format!("move {} '{text}' refused: {e}", i + 1)))?;
            game.play(mv);
        }
    }
    let (table, origin) = cache::load_or_build(cache::cache_path().as_deref(), args.rebuild);
    if !matches!(origin, cache::Origin::Loaded(_)) {
        eprintln!("{origin}");
    }
    let out = if args.stats {
        let c = table.census();
        json!({
            "game": ColdWar::ID,
            "start": solve_report(&table, &ColdWar::new(&Default::default())),
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
    Ok(ExitCode::SUCCESS)
}
