use crate::util::use_color;
use anyhow::Result;
use std::process::ExitCode;
use tabula_games::REGISTRY;

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.json {
        let games: Vec<_> = REGISTRY.games().iter().map(|g| g.describe()).collect();
        println!("{}", serde_json::to_string_pretty(&games)?);
        return Ok(ExitCode::SUCCESS);
    }
    let bold = |s: &str| if use_color() { format!("\x1b[1m{s}\x1b[0m") } else { s.to_string() };
    for g in REGISTRY.games() {
        println!("{}  {}", bold(g.id()), g.name());
        println!("  {}", g.description());
        println!("  players: {} (moves first), {}", g.players()[0], g.players()[1]);
        if g.option_specs().is_empty() {
            println!("  options: none");
        } else {
            println!("  options:");
            for o in g.option_specs() {
                println!("    {}={}  (default {}) {}", o.key, o.values, o.default, o.help);
            }
        }
        let levels: Vec<String> = g.levels().into_iter().map(|l| l.id).collect();
        println!("  AI levels: {} (default {})", levels.join(", "), g.default_level());
        println!("  records: {}", g.record_format());
        println!();
    }
    Ok(ExitCode::SUCCESS)
}
