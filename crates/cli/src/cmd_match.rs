use crate::brain::Brain;
use crate::selfplay::{log_game, play_game, progress_bar, random_opening, strip_ai, MoveCost};
use crate::util::{self, input_error};
use anyhow::Result;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use tabula_core::{DynGame, Player};
use tabula_games::REGISTRY;
use tabula_ratings::match_stats::{format_elo, trinomial_interval, Interval};

/// `match` with an example from the registry.
pub fn from_registry(cmd: clap::Command) -> clap::Command {
    let example = REGISTRY.games().last().map_or(String::new(), |g| {
        format!("\n\nEXAMPLE:\n  tabula match {} --a {} --b uct:200 --games 100 --jobs 2", g.id(), g.default_level())
    });
    // The games' own search specs, as the games list them, less the
    // baselines every game takes (listed once below).
    let games = REGISTRY.games();
    let everyones = |f: &&str| games.iter().all(|g| g.level_forms().contains(f));
    let own: String = games
        .iter()
        .filter_map(|g| {
            let forms: Vec<&str> = g.level_forms().iter().copied().filter(|f| !everyones(f)).collect();
            (!forms.is_empty()).then(|| format!("\n  {}: {}", g.id(), forms.join(", ")))
        })
        .collect();
    cmd.after_help(format!(
        "AI specs: a level of the game (see `tabula games`), `random`, or the plain-UCT\n\
         baselines `uct:MS` (random playouts, MS milliseconds per move) and `uct-iter:N` (N playouts).\n\
         Some games take more, to measure their AI at equal time (see docs/cli.md):{own}\n\n\
         An external UCI engine plays as `uci:MS:COMMAND[;NAME=VALUE]...` in a game with a position\n\
         notation (Cumisitha): MS milliseconds a move in untimed games, then `setoption` pairs, e.g.\n\
         --b 'uci:100:/usr/games/stockfish;Skill Level=3;Threads=1'{example}"
    ))
}

#[derive(clap::Args)]
pub struct Args {
    /// Game id (see `tabula games`)
    game: String,
    /// The first AI (its results are reported)
    #[arg(long, value_name = "AI")]
    a: String,
    /// The second AI
    #[arg(long, value_name = "AI")]
    b: String,
    /// Number of games; colours alternate, A moves first in the odd games
    #[arg(long, default_value_t = 10, value_parser = crate::util::whole::<usize>)]
    games: usize,
    /// Seed; the same seed replays the same match
    #[arg(long, default_value_t = 1, value_parser = crate::util::whole::<u64>)]
    seed: u64,
    /// Games played at once
    #[arg(long, default_value_t = 1, value_parser = crate::util::whole::<usize>)]
    jobs: usize,
    /// A game option as key=value (repeatable)
    #[arg(long = "option", short = 'o', value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Threads A thinks with (B keeps --threads-b): `--threads 2` against
    /// the same AI measures what a second core is worth. AIs that cannot
    /// use more threads ignore it. Give each game its cores: keep --jobs
    /// times the threads within the machine's cores
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=tabula_core::MAX_THREADS as i64))]
    threads: u16,
    /// Threads B thinks with
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=tabula_core::MAX_THREADS as i64))]
    threads_b: u16,
    /// Print the summary as JSON
    #[arg(long)]
    json: bool,
    /// Under a clock (Cordots -o mode=blitz|competitive), charge every move
    /// MS milliseconds of simulated time instead of the CPU time the AI
    /// spent on it: reproducible, and shows how the clock judges fast AIs
    #[arg(long, value_name = "MS", value_parser = crate::util::whole::<u64>)]
    move_ms: Option<u64>,
    /// Start each pair of games (A first, then B first) from the same
    /// PLIES uniformly random moves, drawn from the seed: without them, AIs
    /// that think alike every time replay the same two games
    #[arg(long, value_name = "PLIES", default_value_t = 0, value_parser = crate::util::whole::<u32>)]
    openings: u32,
}

/// One finished game: A's score (1, 0.5, 0), whether A moved first, plies,
/// how it ended, and the game's own points (A's, B's) for games that keep
/// a score.
#[derive(Clone)]
struct GameResult {
    a_score: f64,
    a_first: bool,
    plies: u32,
    reason: String,
    points: Option<[i32; 2]>,
}

impl GameResult {
    fn a_won(&self) -> bool {
        self.a_score > 0.75
    }
    fn a_lost(&self) -> bool {
        self.a_score < 0.25
    }
}

/// The random opening of the `pair`th pair of games (none for 0 plies).
fn pair_opening(
    game: &dyn DynGame,
    options: &[(String, String)],
    plies: u32,
    seed: u64,
    pair: usize,
) -> Result<Vec<String>> {
    match plies {
        0 => Ok(Vec::new()),
        plies => random_opening(game, options, plies, seed ^ (pair as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)),
    }
}

#[allow(clippy::too_many_arguments)]
fn play_one(
    game: &dyn DynGame,
    options: &[(String, String)],
    a: &Brain,
    b: &Brain,
    index: usize,
    seed: u64,
    cost: MoveCost,
    threads: [usize; 2],
    opening_plies: u32,
) -> Result<GameResult> {
    let a_first = index.is_multiple_of(2);
    let game_seed = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(index as u64 * 2);
    let (first, second) = if a_first { (a, b) } else { (b, a) };
    let threads = if a_first { threads } else { [threads[1], threads[0]] };
    let label = format!("game {}", index + 1);
    let opening = pair_opening(game, options, opening_plies, seed, index / 2)?;
    let played = play_game(game, options, first, second, &opening, game_seed, &label, cost, threads)?;
    let a_player = if a_first { Player::First } else { Player::Second };
    let a_score = match played.winner {
        Some(w) if w == a_player => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    };
    let points = played.points.map(|p| [p[a_player.index()], p[a_player.other().index()]]);
    Ok(GameResult { a_score, a_first, plies: played.plies, reason: played.reason, points })
}

pub fn run(args: Args) -> Result<ExitCode> {
    let game = util::game(&args.game)?;
    let options = util::options(&args.options)?;
    game.new_state(&options).map_err(|e| input_error(e.to_string()))?;
    if args.games == 0 {
        return Err(input_error("--games must be at least 1"));
    }
    let jobs = args.jobs.clamp(1, 64);
    let cost = args.move_ms.map_or(MoveCost::Measured, MoveCost::Fixed);
    let (a, b) = (strip_ai(&args.a), strip_ai(&args.b));
    let threads = [usize::from(args.threads), usize::from(args.threads_b)];
    let brains = [a, b].map(Brain::parse);
    let [brain_a, brain_b] = match brains {
        [Ok(x), Ok(y)] => [x, y],
        [Err(e), _] | [_, Err(e)] => return Err(input_error(e)),
    };
    for brain in [&brain_a, &brain_b] {
        brain.check(game, &options).map_err(input_error)?;
    }
    // The first pair's opening, drawn once before any game, so an opening
    // length no game survives is an input error, not a failed game.
    pair_opening(game, &options, args.openings, args.seed, 0).map_err(|e| input_error(e.to_string()))?;
    let bar = progress_bar(args.games as u64, "games");
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<GameResult>>> = Mutex::new(vec![None; args.games]);
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let tally = Mutex::new((0u32, 0u32, 0u32));
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= args.games || failure.lock().unwrap().is_some() {
                    break;
                }
                match play_one(game, &options, &brain_a, &brain_b, i, args.seed, cost, threads, args.openings) {
                    Ok(r) => {
                        results.lock().unwrap()[i] = Some(r.clone());
                        let mut t = tally.lock().unwrap();
                        if r.a_won() {
                            t.0 += 1;
                        } else if r.a_lost() {
                            t.2 += 1;
                        } else {
                            t.1 += 1;
                        }
                        bar.set_message(format!("A +{} ={} -{}", t.0, t.1, t.2));
                        bar.inc(1);
                        log_game(&bar, || {
                            let outcome = if r.a_won() {
                                "A won"
                            } else if r.a_lost() {
                                "B won"
                            } else {
                                "draw"
                            };
                            let colour = if r.a_first { "A first" } else { "B first" };
                            format!(
                                "game {} ({colour}): {outcome}, {}, {} plies; {} of {} done, A +{} ={} -{}",
                                i + 1,
                                r.reason,
                                r.plies,
                                bar.position(),
                                args.games,
                                t.0,
                                t.1,
                                t.2
                            )
                        });
                    }
                    Err(e) => {
                        *failure.lock().unwrap() = Some(e);
                        break;
                    }
                }
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = failure.into_inner().unwrap() {
        return Err(e);
    }
    let results: Vec<GameResult> = results.into_inner().unwrap().into_iter().flatten().collect();
    let n = results.len() as f64;
    let wins = results.iter().filter(|r| r.a_won()).count();
    let losses = results.iter().filter(|r| r.a_lost()).count();
    let draws = results.len() - wins - losses;
    let Interval { value: mean, low: lo, high: hi } = trinomial_interval(wins, draws, losses);
    let first_score = results.iter().filter(|r| r.a_first).map(|r| r.a_score).sum::<f64>();
    let first_games = results.iter().filter(|r| r.a_first).count();
    let avg_plies = results.iter().map(|r| r.plies as f64).sum::<f64>() / n;
    // How the games ended, commonest first.
    let mut endings: Vec<(&str, usize)> = Vec::new();
    for r in &results {
        match endings.iter_mut().find(|(reason, _)| *reason == r.reason) {
            Some(e) => e.1 += 1,
            None => endings.push((r.reason.as_str(), 1)),
        }
    }
    endings.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
    let scored: Vec<[i32; 2]> = results.iter().filter_map(|r| r.points).collect();
    let avg_points = (!scored.is_empty()).then(|| {
        let k = scored.len() as f64;
        [scored.iter().map(|p| p[0] as f64).sum::<f64>() / k, scored.iter().map(|p| p[1] as f64).sum::<f64>() / k]
    });
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "game": game.id(), "a": a, "b": b, "games": results.len(),
                "wins": wins, "draws": draws, "losses": losses,
                "score": mean, "score_ci95": [lo, hi],
                "elo": format_elo(mean), "elo_ci95": [format_elo(lo), format_elo(hi)],
                "a_score_moving_first": if first_games > 0 { first_score / first_games as f64 } else { f64::NAN },
                "average_plies": avg_plies, "seed": args.seed, "opening_plies": args.openings,
                "threads": {"a": args.threads, "b": args.threads_b},
                "endings": endings.iter().map(|(r, k)| serde_json::json!({"reason": r, "games": k})).collect::<Vec<_>>(),
                "average_points": avg_points.map(|[pa, pb]| serde_json::json!({"a": pa, "b": pb})),
            })
        );
    } else {
        let with_threads = |spec: &str, n: u16| if n > 1 { format!("{spec} ({n} threads)") } else { spec.to_string() };
        println!(
            "{}: A = {}, B = {}, {} games, seed {}{}",
            game.id(),
            with_threads(a, args.threads),
            with_threads(b, args.threads_b),
            results.len(),
            args.seed,
            if args.openings > 0 { format!(", {}-ply random openings", args.openings) } else { String::new() }
        );
        println!("A: {wins} wins, {draws} draws, {losses} losses");
        println!("A's score: {:.1}% (95% CI {:.1}% to {:.1}%)", mean * 100.0, lo * 100.0, hi * 100.0);
        println!("Elo difference A - B: {} (95% CI {} to {})", format_elo(mean), format_elo(lo), format_elo(hi));
        if first_games > 0 && first_games < results.len() {
            let second = results.len() - first_games;
            println!(
                "A's score moving first: {:.1}%, moving second: {:.1}%",
                first_score / first_games as f64 * 100.0,
                (mean * n - first_score) / second as f64 * 100.0
            );
        }
        println!("average length: {avg_plies:.1} plies");
        let list: Vec<String> = endings.iter().map(|(r, k)| format!("{r} {k}")).collect();
        println!("endings: {}", list.join(", "));
        if let Some([pa, pb]) = avg_points {
            println!("average points: A {pa:.1}, B {pb:.1}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
