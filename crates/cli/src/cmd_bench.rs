use crate::util;
use anyhow::Result;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Game id (see `tabula games`)
    game: String,
    /// How long to run
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// A game option as key=value (repeatable)
    #[arg(long = "option", short = 'o', value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Seed for the random moves
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if !(args.seconds > 0.0 && args.seconds <= 3600.0) {
        return Err(util::input_error("--seconds must be above 0 and at most 3600"));
    }
    let game = util::game(&args.game)?;
    let options = util::options(&args.options)?;
    eprintln!("{}: random playouts from the start on one thread for {} s...", game.id(), args.seconds);
    let r = game.bench(&options, args.seconds, args.seed).map_err(|e| util::input_error(e.to_string()))?;
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "game": game.id(), "games": r.games, "plies": r.plies, "seconds": r.seconds,
                "cpu_seconds": r.cpu_seconds,
                "playouts_per_second": r.games_per_second(), "plies_per_second": r.plies_per_second(),
                "playouts_per_cpu_second": r.games_per_cpu_second(),
                "plies_per_cpu_second": r.plies_per_cpu_second(),
            })
        );
    } else {
        println!("game:               {}", game.id());
        println!("playouts:           {} in {:.2} s ({:.2} s of CPU)", r.games, r.seconds, r.cpu_seconds);
        println!("playouts / second:  {:.0} ({:.0} per CPU second)", r.games_per_second(), r.games_per_cpu_second());
        println!("plies / second:     {:.0} ({:.0} per CPU second)", r.plies_per_second(), r.plies_per_cpu_second());
        println!("plies / playout:    {:.1}", r.plies as f64 / r.games as f64);
    }
    Ok(ExitCode::SUCCESS)
}
