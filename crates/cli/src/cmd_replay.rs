use crate::util::{self, input_error};
use anyhow::{Context, Result};
use std::process::ExitCode;
use tabula_games::REGISTRY;

#[derive(clap::Args)]
pub struct Args {
    /// Game id (see `tabula games`)
    game: String,
    /// The record file, in the game's record format (see `tabula games`)
    file: std::path::PathBuf,
}

/// `replay` with each game's record format in the file's help.
pub fn from_registry(cmd: clap::Command) -> clap::Command {
    let formats: Vec<String> = REGISTRY
        .games()
        .iter()
        .map(|g| {
            let format = match g.record_format() {
                "txt" => "Tabula's text".to_string(),
                other => other.to_uppercase(),
            };
            format!("{format} for {}", g.id())
        })
        .collect();
    cmd.mut_arg("file", |a| a.help(format!("The record file ({})", formats.join(", "))))
}

/// Prints one JSON object per game in the file: the state after its last
/// move, plus a `replay` object (moves applied, where our rules would have
/// ended the game, notes).
pub fn run(args: Args) -> Result<ExitCode> {
    let game = util::game(&args.game)?;
    let bytes = std::fs::read(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        input_error(format!("{} is not UTF-8 text (byte {})", args.file.display(), e.utf8_error().valid_up_to()))
    })?;
    let games = game.import(&text).map_err(|e| input_error(format!("{}: {e}", args.file.display())))?;
    for r in games {
        let mut json = r.state.state_json();
        let tags: serde_json::Map<String, serde_json::Value> =
            r.tags.iter().map(|(k, v)| (k.clone(), serde_json::Value::from(v.clone()))).collect();
        json["replay"] = serde_json::json!({
            "moves": r.moves,
            "ended_at": r.ended_at,
            "notes": r.notes,
            "tags": tags,
        });
        println!("{json}");
    }
    Ok(ExitCode::SUCCESS)
}
