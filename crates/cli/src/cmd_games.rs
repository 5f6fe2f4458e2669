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
        let levels = g.levels();
        let ids: Vec<&str> = levels.iter().map(|l| l.id.as_str()).collect();
        println!("  AI levels: {} (default {})", ids.join(", "), g.default_level());
        if let Some(line) = elo_line(&levels) {
            println!("  {line}");
        }
        println!("  records: {}", g.record_format());
        println!();
    }
    Ok(ExitCode::SUCCESS)
}

/// The levels' measured ratings, for players to see what "medium" means:
/// `Elo (random = 0, see the rules page): random 0, easy 420`. Only when
/// some are measured.
fn elo_line(levels: &[tabula_core::LevelSpec]) -> Option<String> {
    let rated: Vec<String> = levels.iter().filter_map(|l| l.elo.map(|e| format!("{} {e}", l.id))).collect();
    (!rated.is_empty()).then(|| format!("Elo (random = 0, see the rules page): {}", rated.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::LevelSpec;

    #[test]
    fn the_elo_line_lists_the_rated_levels_only() {
        let levels = [
            LevelSpec::new("random", "").with_elo(0),
            LevelSpec::new("easy", "").with_elo(420),
            LevelSpec::new("perfect", ""),
        ];
        assert_eq!(elo_line(&levels).unwrap(), "Elo (random = 0, see the rules page): random 0, easy 420");
        assert_eq!(elo_line(&[LevelSpec::new("easy", "")]), None);
    }
}
