use crate::util;
use anyhow::Result;
use std::process::ExitCode;
use std::time::Instant;
use tabula_core::RandomPlayout;

#[derive(clap::Args)]
pub struct Args {
    /// Game id (see `tabula games`)
    game: String,
    /// How long to run
    #[arg(long, default_value_t = 5.0, value_parser = crate::util::decimal)]
    seconds: f64,
    /// A game option as key=value (repeatable)
    #[arg(long = "option", short = 'o', value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Seed for the random moves
    #[arg(long, default_value_t = 1, value_parser = crate::util::whole::<u64>)]
    seed: u64,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

/// What a benchmark measured.
struct BenchReport {
    games: u64,
    plies: u64,
    /// Wall-clock time.
    seconds: f64,
    /// CPU time of the benchmarking thread: the fair figure on a busy
    /// machine, where other work steals wall-clock time.
    cpu_seconds: f64,
}

impl BenchReport {
    fn games_per_second(&self) -> f64 {
        self.games as f64 / self.seconds
    }
    fn plies_per_second(&self) -> f64 {
        self.plies as f64 / self.seconds
    }
    fn games_per_cpu_second(&self) -> f64 {
        self.games as f64 / self.cpu_seconds.max(1e-9)
    }
    fn plies_per_cpu_second(&self) -> f64 {
        self.plies as f64 / self.cpu_seconds.max(1e-9)
    }
}

/// Run playouts for about `seconds` of wall-clock time on this thread.
fn measure(playout: &mut RandomPlayout, seconds: f64) -> BenchReport {
    let (mut games, mut plies) = (0u64, 0u64);
    let began = Instant::now();
    let cpu = cpu_time::ThreadTime::now();
    loop {
        plies += playout();
        games += 1;
        if games.is_multiple_of(16) && began.elapsed().as_secs_f64() >= seconds {
            break;
        }
    }
    let cpu_seconds = cpu.elapsed().as_secs_f64();
    BenchReport { games, plies, seconds: began.elapsed().as_secs_f64(), cpu_seconds }
}

pub fn run(args: Args) -> Result<ExitCode> {
    if !(args.seconds > 0.0 && args.seconds <= 3600.0) {
        return Err(util::input_error("--seconds must be above 0 and at most 3600"));
    }
    let game = util::game(&args.game)?;
    let options = util::options(&args.options)?;
    let mut playout = game.random_playout(&options, args.seed).map_err(|e| util::input_error(e.to_string()))?;
    eprintln!("{}: random playouts from the start on one thread for {} s...", game.id(), args.seconds);
    let r = measure(&mut playout, args.seconds);
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
