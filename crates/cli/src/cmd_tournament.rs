//! `tabula tournament`: a tournament between AIs, played locally, with the
//! standings, the crosstable and ratings fitted over all games.

use crate::brain::Brain;
use crate::selfplay::{log_game, play_game, progress_bar, MoveCost, Played};
use crate::util::{self, input_error};
use anyhow::{anyhow, Result};
use std::collections::{HashMap, VecDeque};
use std::process::ExitCode;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tabula_core::{DynGame, Player};
use tabula_games::REGISTRY;
use tabula_tournament::knockout::{KnockoutRules, Slot};
use tabula_tournament::rating::{fit_plain_or_prior, FitError, Outcome, RatedGame, RatingFit};
use tabula_tournament::{
    Config, Entrant, Event, GameId, GameResult, GameSettings, PlayerId, Side, Standing, System, Tournament,
};

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SystemArg {
    /// Everyone plays everyone, --games-per-pair times (colours alternate)
    RoundRobin,
    /// FIDE Dutch Swiss over --rounds rounds
    Swiss,
    /// Seeded single elimination, --games-per-pair games a match
    Knockout,
    /// Continuous pairing for --minutes minutes, lichess arena scoring
    Arena,
    /// Round-robin --groups, then the best --advance of each in a knockout
    Championship,
}

#[derive(clap::Args)]
pub struct Args {
    /// Game id (see `tabula games`)
    game: String,
    /// The AIs, comma-separated, strongest seed first
    #[arg(long, value_name = "AI,AI,...")]
    players: String,
    /// The tournament system
    #[arg(long, value_enum, default_value = "round-robin")]
    system: SystemArg,
    /// Games each pair plays (round-robin, championship groups), or games per knockout match
    #[arg(long, value_name = "N", value_parser = crate::util::whole::<u32>)]
    games_per_pair: Option<u32>,
    /// Rounds of a Swiss tournament [default: ceil(log2 players) + 1]
    #[arg(long, value_name = "N", value_parser = crate::util::whole::<u32>)]
    rounds: Option<u32>,
    /// Length of an arena in minutes
    #[arg(long, value_name = "MIN", default_value_t = 5.0, value_parser = crate::util::decimal)]
    minutes: f64,
    /// Groups of a championship
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = crate::util::whole::<u32>)]
    groups: u32,
    /// Players going from each group into a championship's knockout
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = crate::util::whole::<u32>)]
    advance: u32,
    /// Play a match for third place in a knockout
    #[arg(long)]
    third_place: bool,
    /// Games played at once (a round-robin starts games of later rounds
    /// early rather than leave a worker idle; results are the same)
    #[arg(long, default_value_t = 1, value_parser = crate::util::whole::<usize>)]
    jobs: usize,
    /// Seed; the same seed replays the same tournament (with iteration budgets)
    #[arg(long, default_value_t = 1, value_parser = crate::util::whole::<u64>)]
    seed: u64,
    /// A game option as key=value (repeatable)
    #[arg(long = "option", short = 'o', value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Print the results as JSON
    #[arg(long)]
    json: bool,
}

/// One game for a worker.
struct Job {
    id: GameId,
    first: Brain,
    second: Brain,
    options: Vec<(String, String)>,
    seed: u64,
}

/// Games of later rounds started early: their pairing, and the result once
/// played.
type Early = HashMap<GameId, (PlayerId, PlayerId, Option<Result<Played>>)>;

/// `tournament` with the help that only the registry knows: which games
/// have a knockout stage option, and examples with real levels.
pub fn from_registry(cmd: clap::Command) -> clap::Command {
    let games = REGISTRY.games();
    let staged: Vec<&str> = games.iter().filter(|g| offers_stage(**g, "knockout")).map(|g| g.name()).collect();
    let stage_note = if staged.is_empty() {
        String::new()
    } else {
        format!(
            "A game that has the option `stage=knockout` ({}) plays its knockout games with it where its other\n\
             options allow (a level score at the move limit then goes to extra time); group and round-robin\n\
             games keep the game's default.\n",
            staged.join(", ")
        )
    };
    // The strongest three levels first (levels run from weakest to strongest), then random play.
    let players = |g: &dyn DynGame| {
        let mut ids: Vec<String> = g.levels().iter().rev().take(3).map(|l| l.id.to_string()).collect();
        ids.push("random".into());
        ids.join(",")
    };
    let systems = ["--games-per-pair 20 --jobs 2", "--system swiss --rounds 3", "--system knockout --games-per-pair 3"];
    let examples: String = games
        .iter()
        .zip(systems)
        .map(|(g, system)| format!("\n  tabula tournament {} --players \"{}\" {system}", g.id(), players(*g)))
        .collect();
    cmd.after_help(format!(
        "Players are AI specs as in `tabula match`: a level of the game (see `tabula games`),\n\
         `random`, `uct:MS` (plain UCT, MS milliseconds per move) or `uct-iter:N` (N playouts per move),\n\
         or an external UCI engine, `uci:MS:COMMAND[;NAME=VALUE]...` (a game with a position notation,\n\
         e.g. Cumisitha: 'uci:100:/usr/games/stockfish;Skill Level=3;Threads=1').\n\
         `NAME=SPEC` names a player (`sf3=uci:...`). The same spec may appear twice.\n\
         Players are seeded in the order given.\n\n\
         {stage_note}\
         See docs/tournaments.md for the systems, tie-breaks and how a drawn knockout match is decided.\n\n\
         EXAMPLES:{examples}"
    ))
}

/// Whether the game's `stage` option accepts `stage`.
fn offers_stage(game: &dyn DynGame, stage: &str) -> bool {
    game.option_specs().iter().any(|s| s.key == "stage" && s.values.split('|').any(|v| v.trim() == stage))
}

/// Extra options a game needs in a knockout: `stage=knockout` where the
/// game offers it (the option by which a game plays extra time itself) and
/// accepts it with the other options (Dots refuses it for `format=single`,
/// which has no move limit to go beyond).
fn stage_settings(game: &dyn DynGame, options: &[(String, String)], stage: &str) -> GameSettings {
    let offers = offers_stage(game, stage);
    let settings = GameSettings::option("stage", stage);
    if offers && game.normalize_options(&merged(options, &settings)).is_ok() {
        settings
    } else {
        GameSettings::default()
    }
}

/// Base options with a game's extra ones on top.
fn merged(base: &[(String, String)], extra: &GameSettings) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> =
        base.iter().filter(|(k, _)| !extra.options.iter().any(|(e, _)| e == k)).cloned().collect();
    out.extend(extra.options.iter().cloned());
    out
}

fn build_config(
    args: &Args,
    game: &dyn DynGame,
    options: &[(String, String)],
    players: usize,
    user_stage: bool,
) -> Result<Config> {
    let knockout_rules = |games: u32| {
        let mut rules = KnockoutRules::best_of(games);
        if !user_stage {
            rules = rules.with_settings(stage_settings(game, options, "knockout"));
        }
        rules.third_place = args.third_place;
        rules
    };
    let system = match args.system {
        SystemArg::RoundRobin => System::RoundRobin { cycles: args.games_per_pair.unwrap_or(2) },
        SystemArg::Swiss => {
            let default = (players as f64).log2().ceil() as u32 + 1;
            let rounds = args.rounds.unwrap_or(default);
            if rounds as usize >= players {
                let most = players - 1;
                return Err(input_error(format!(
                    "a Swiss tournament of {players} players can have at most {most} round{}",
                    if most == 1 { "" } else { "s" }
                )));
            }
            System::Swiss { rounds }
        }
        SystemArg::Knockout => System::Knockout { rules: knockout_rules(args.games_per_pair.unwrap_or(1)) },
        SystemArg::Arena => {
            if !(args.minutes > 0.0 && args.minutes.is_finite()) {
                return Err(input_error("--minutes must be above zero"));
            }
            System::Arena { duration_ms: (args.minutes * 60_000.0) as u64 }
        }
        SystemArg::Championship => System::Championship {
            groups: args.groups,
            advance: args.advance,
            cycles: args.games_per_pair.unwrap_or(1),
            knockout: knockout_rules(1),
        },
    };
    if args.games_per_pair == Some(0) {
        return Err(input_error("--games-per-pair must be at least 1"));
    }
    let mut config = Config::new(system);
    config.seed = args.seed;
    if matches!(args.system, SystemArg::Championship) && !user_stage {
        config.settings = stage_settings(game, options, "group");
    }
    Ok(config)
}

/// A player as typed: an optional `NAME=` label, then its spec. A spec's
/// own `=` (a UCI engine's options) never makes a label, since a label has
/// no `:`, `;` or space.
fn split_label(text: &str) -> (Option<&str>, &str) {
    if let Some((label, spec)) = text.split_once('=') {
        let plain = |c: char| c.is_ascii_alphanumeric() || "_-.+".contains(c);
        if !label.is_empty() && label.chars().all(plain) && !spec.trim().is_empty() {
            return (Some(label), spec.trim());
        }
    }
    (None, text)
}

/// Unique names for the players: their label, or else their spec; the
/// second `medium` becomes `medium#2`.
fn names(players: &[(Option<&str>, &str)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &(label, spec) in players {
        let s = label.unwrap_or(spec);
        let mut name = s.to_string();
        let mut k = 1;
        while out.contains(&name) {
            k += 1;
            name = format!("{s}#{k}");
        }
        out.push(name);
    }
    out
}

fn to_result(p: &Played) -> GameResult {
    let winner = p.winner.map(|w| if w == Player::First { Side::First } else { Side::Second });
    let r = GameResult::Played { winner, margin: None };
    match p.points {
        Some([a, b]) => r.with_margin(a - b),
        None => r,
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let game = util::game(&args.game)?;
    let options = util::options(&args.options)?;
    game.new_state(&options).map_err(|e| input_error(e.to_string()))?;
    let typed: Vec<(Option<&str>, &str)> =
        args.players.split(',').map(|s| split_label(s.trim())).filter(|(_, s)| !s.is_empty()).collect();
    if typed.len() < 2 {
        return Err(input_error("--players needs at least two AIs, separated by commas"));
    }
    let mut specs: Vec<Brain> = Vec::with_capacity(typed.len());
    for &(_, spec) in &typed {
        let brain = Brain::parse(spec).map_err(|e| input_error(format!("player '{spec}': {e}")))?;
        brain.check(game, &options).map_err(|e| input_error(format!("player '{spec}': {e}")))?;
        specs.push(brain);
    }
    let user_stage = options.iter().any(|(k, _)| k == "stage");
    let config = build_config(&args, game, &options, specs.len(), user_stage)?;
    let names = names(&typed);
    let mut t = Tournament::new(config).map_err(|e| input_error(e.to_string()))?;
    for name in &names {
        t.join(Entrant::new(name.clone())).map_err(|e| input_error(e.to_string()))?;
    }
    // Every extra setting must make a valid game before anything runs.
    for extra in [&t.config().settings.clone(), &stage_settings(game, &options, "knockout")] {
        game.new_state(&merged(&options, extra)).map_err(|e| input_error(e.to_string()))?;
    }
    let jobs = args.jobs.clamp(1, 64);
    let expected = expected_games(&t, specs.len());
    let bar = progress_bar(expected, "games");
    let clock = Instant::now();
    let now = || clock.elapsed().as_millis() as u64;

    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (done_tx, done_rx) = mpsc::channel::<(GameId, Result<Played>)>();
    let mut tally = (0u32, 0u32, 0u32);
    let result: Result<()> = std::thread::scope(|s| {
        for _ in 0..jobs {
            let rx = Arc::clone(&job_rx);
            let tx = done_tx.clone();
            s.spawn(move || loop {
                let job = match rx.lock().unwrap().recv() {
                    Ok(j) => j,
                    Err(_) => break,
                };
                let label = format!("game {}", job.id + 1);
                let r = play_game(
                    game,
                    &job.options,
                    &job.first,
                    &job.second,
                    &[],
                    job.seed,
                    &label,
                    MoveCost::Measured,
                    [1, 1],
                );
                if tx.send((job.id, r)).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        // A game's seed depends only on its number, so a game started early
        // (below) plays as it would have in its round.
        let job = |id: GameId, first: PlayerId, second: PlayerId, settings: &GameSettings| Job {
            id,
            first: specs[first.index()].clone(),
            second: specs[second.index()].clone(),
            options: merged(&options, settings),
            seed: args.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(u64::from(id) * 2),
        };
        // Games the tournament created, waiting for a worker.
        let mut queue: VecDeque<Job> = VecDeque::new();
        // Games of later rounds started early, so that no worker waits for
        // a round's last game.
        let mut early: Early = HashMap::new();
        // Results of created games, to record.
        let mut ready: VecDeque<(GameId, Result<Played>)> = VecDeque::new();
        let mut running = 0usize;
        let created = |t: &Tournament,
                       events: &[Event],
                       early: &mut Early,
                       queue: &mut VecDeque<Job>,
                       ready: &mut VecDeque<(GameId, Result<Played>)>|
         -> Result<()> {
            for e in events {
                if let Event::GameCreated { game: id } = e {
                    let g = t.game(*id).expect("created game");
                    match early.remove(id) {
                        // Started early as announced: its result is the game's.
                        Some((first, second, done)) if (first, second) == (g.first, g.second) => {
                            if let Some(r) = done {
                                ready.push_back((*id, r));
                            }
                        }
                        Some(_) => return Err(anyhow!("the tournament created game {} unlike its schedule", id + 1)),
                        None => queue.push_back(job(*id, g.first, g.second, &g.settings)),
                    }
                }
            }
            Ok(())
        };
        let events = t.start(now()).map_err(|e| input_error(e.to_string()))?;
        created(&t, &events, &mut early, &mut queue, &mut ready)?;
        while !t.is_finished() {
            if let Some((id, played)) = ready.pop_front() {
                let played = played?;
                match played.winner {
                    Some(Player::First) => tally.0 += 1,
                    Some(Player::Second) => tally.2 += 1,
                    None => tally.1 += 1,
                }
                let result = to_result(&played);
                let events = t.record(id, result, now()).map_err(|e| anyhow!("{e}"))?;
                created(&t, &events, &mut early, &mut queue, &mut ready)?;
                let finished = t.games().iter().filter(|g| g.result.is_some()).count() as u64;
                log_game(&bar, || {
                    let g = t.game(id).expect("a game the tournament created");
                    let (first, second) = (&names[g.first.index()], &names[g.second.index()]);
                    let outcome = match played.winner {
                        Some(Player::First) => format!("{first} won"),
                        Some(Player::Second) => format!("{second} won"),
                        None => "draw".to_string(),
                    };
                    format!(
                        "game {finished}: {first} (first) vs {second}: {outcome}, {}, {} plies",
                        played.reason, played.plies
                    )
                });
                if finished > bar.length().unwrap_or(0) {
                    bar.set_length(finished + (running + queue.len()) as u64);
                }
                bar.set_position(finished);
                bar.set_message(format!("first +{} ={} -{}", tally.0, tally.1, tally.2));
                if matches!(t.config().system, System::Arena { .. }) {
                    let left = t.arena_ends_at().unwrap_or(0).saturating_sub(now()) / 1000;
                    bar.set_message(format!(
                        "first +{} ={} -{}  arena {}:{:02} left",
                        tally.0,
                        tally.1,
                        tally.2,
                        left / 60,
                        left % 60
                    ));
                }
                continue;
            }
            // Keep every worker busy: the created games first, then the
            // next games the schedule has already fixed.
            while running < jobs {
                let next = match queue.pop_front() {
                    Some(j) => j,
                    None => {
                        let Some(g) = t.scheduled_games().into_iter().find(|g| !early.contains_key(&g.id)) else {
                            break;
                        };
                        early.insert(g.id, (g.first, g.second, None));
                        job(g.id, g.first, g.second, &t.config().settings)
                    }
                };
                job_tx.send(next).map_err(|_| anyhow!("the game workers stopped"))?;
                running += 1;
            }
            let wake = t.next_wakeup();
            if running == 0 {
                // Nothing to play: wait for the next round or the arena's end.
                let wake = wake.ok_or_else(|| anyhow!("the tournament stalled"))?;
                std::thread::sleep(std::time::Duration::from_millis(wake.saturating_sub(now())));
            } else {
                let got = match wake {
                    Some(w) => match done_rx.recv_timeout(std::time::Duration::from_millis(w.saturating_sub(now()))) {
                        Ok(got) => Some(got),
                        Err(mpsc::RecvTimeoutError::Timeout) => None,
                        Err(mpsc::RecvTimeoutError::Disconnected) => return Err(anyhow!("the game workers stopped")),
                    },
                    None => Some(done_rx.recv().map_err(|_| anyhow!("the game workers stopped"))?),
                };
                if let Some((id, played)) = got {
                    running -= 1;
                    match early.get_mut(&id) {
                        // Its round has not started yet: keep the result.
                        Some(entry) => entry.2 = Some(played),
                        None => ready.push_back((id, played)),
                    }
                    continue;
                }
            }
            let events = t.tick(now());
            created(&t, &events, &mut early, &mut queue, &mut ready)?;
        }
        drop(job_tx);
        Ok(())
    });
    bar.finish_and_clear();
    result?;
    report(&args, game, &options, &t, &names, clock.elapsed().as_secs_f64())
}

/// Games the tournament will play, as far as known in advance.
fn expected_games(t: &Tournament, n: usize) -> u64 {
    let n = n as u64;
    match &t.config().system {
        System::RoundRobin { cycles } => n * (n - 1) / 2 * u64::from(*cycles),
        System::Swiss { rounds } => n / 2 * u64::from(*rounds),
        System::Knockout { rules } => (n - 1) * u64::from(rules.games),
        System::Championship { groups, advance, cycles, .. } => {
            let per = n / u64::from(*groups).max(1);
            per * per.saturating_sub(1) / 2 * u64::from(*groups) * u64::from(*cycles)
                + u64::from(groups * advance).saturating_sub(1)
        }
        System::Arena { .. } => 0,
    }
}

fn fit_ratings(t: &Tournament, n: usize) -> (Result<RatingFit, FitError>, f64) {
    let games: Vec<RatedGame> = t
        .games()
        .iter()
        .filter_map(|g| {
            let r = g.result?;
            if !r.was_played() {
                return None;
            }
            let outcome = match r.winner() {
                Some(Side::First) => Outcome::FirstWins,
                Some(Side::Second) => Outcome::SecondWins,
                None => Outcome::Draw,
            };
            Some(RatedGame { first: g.first.index(), second: g.second.index(), outcome })
        })
        .collect();
    fit_plain_or_prior(n, &games)
}

fn fmt_tb(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(x) if x.fract() == 0.0 => format!("{x:.0}"),
        Some(x) => format!("{x:.2}").trim_end_matches('0').to_string(),
    }
}

fn report(
    args: &Args,
    game: &dyn DynGame,
    options: &[(String, String)],
    t: &Tournament,
    names: &[String],
    secs: f64,
) -> Result<ExitCode> {
    let n = names.len();
    let standings = t.standings();
    let tiebreaks = t.config().tiebreaks();
    // Games without a score of their own have no score difference to show.
    let scored = t.games().iter().any(|g| g.result.and_then(|r| r.margin_for(Side::First)).is_some());
    let shown: Vec<usize> = (0..tiebreaks.len())
        .filter(|&k| scored || tiebreaks[k] != tabula_tournament::TieBreak::ScoreDifference)
        .collect();
    let (ratings, prior) = fit_ratings(t, n);
    let table = t.crosstable();
    let played = t.games().iter().filter(|g| g.result.is_some()).count();
    let name = |p: PlayerId| names[p.index()].as_str();
    if args.json {
        let rows: Vec<serde_json::Value> = standings
            .iter()
            .map(|s| {
                serde_json::json!({
                    "rank": s.rank, "player": name(s.player), "points": s.points.as_f64(), "games": s.played,
                    "wins": s.wins, "draws": s.draws, "losses": s.losses,
                    "tiebreaks": tiebreaks.iter().zip(&s.tiebreaks).map(|(tb, v)| (tb.label().to_string(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
                })
            })
            .collect();
        let ratings_json = match &ratings {
            Ok(f) => serde_json::json!({
                "model": "bayeselo", "prior_draws": prior, "first_move": f.first_move, "draw": f.draw,
                "players": (0..n).map(|i| serde_json::json!({"player": names[i], "rating": f.ratings[i], "error95": 1.96 * f.errors[i]})).collect::<Vec<_>>(),
            }),
            Err(e) => serde_json::json!({ "error": e.to_string() }),
        };
        let cross: Vec<serde_json::Value> = (0..n)
            .map(|i| serde_json::json!({"player": names[i], "against": (0..n).map(|j| if table[i][j].1 == 0 { serde_json::Value::Null } else { serde_json::json!({"points": table[i][j].0.as_f64(), "games": table[i][j].1}) }).collect::<Vec<_>>()}))
            .collect();
        println!(
            "{}",
            serde_json::json!({
                "game": game.id(), "system": t.config().system.name(), "options": options.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(),
                "players": names, "games": played, "seed": args.seed, "seconds": secs,
                "standings": rows, "crosstable": cross, "ratings": ratings_json,
                "ended_early": t.end_reason(),
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    let opts = if options.is_empty() {
        String::new()
    } else {
        format!(", {}", options.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "))
    };
    println!(
        "{}: {} of {n} players, {played} games in {:.0} s, seed {}{opts}",
        game.id(),
        t.config().system.name(),
        secs,
        args.seed
    );
    if let Some(reason) = t.end_reason() {
        println!("ended early: {reason}");
    }
    let width = names.iter().map(|s| s.len()).max().unwrap_or(6).max(6);
    println!(
        "\nStandings{}",
        if matches!(t.config().system, System::Championship { .. }) {
            " (points and tie-breaks from the groups)"
        } else {
            ""
        }
    );
    let mut head = format!("{:>3}  {:<width$}  {:>6}  {:>5}  {:>8}", "#", "player", "points", "games", "W-D-L");
    for &k in &shown {
        head.push_str(&format!("  {:>6}", tiebreaks[k].label()));
    }
    println!("{head}");
    for s in &standings {
        print_standing(s, name(s.player), width, &shown);
    }
    if matches!(t.config().system, System::Championship { .. }) {
        for (k, group) in t.group_standings().iter().enumerate() {
            println!("\nGroup {}", (b'A' + k as u8) as char);
            for s in group {
                print_standing(s, name(s.player), width, &shown);
            }
        }
    }
    if let Some(b) = t.bracket() {
        println!("\nBracket");
        for (r, round) in b.rounds.iter().enumerate() {
            let title = match b.rounds.len() - r {
                1 => "final".to_string(),
                2 => "semifinals".to_string(),
                3 => "quarterfinals".to_string(),
                k => format!("round of {}", 1 << k),
            };
            let lines: Vec<String> = round.iter().filter_map(|m| match_line(t, m, &name)).collect();
            if !lines.is_empty() {
                println!("  {title}: {}", lines.join("; "));
            }
        }
        if let Some(m) = &b.third_place {
            if let Some(line) = match_line(t, m, &name) {
                println!("  third place: {line}");
            }
        }
    }
    println!("\nCrosstable: points of the row player against the column player (games)");
    let width = width + 3;
    let mut head = format!("{:<width$}", "");
    for j in 0..n {
        head.push_str(&format!("  {:>7}", j + 1));
    }
    println!("{head}");
    for (i, row) in table.iter().enumerate().take(n) {
        let mut line = format!("{:<width$}", format!("{:>2} {}", i + 1, names[i]));
        for (j, &(points, games)) in row.iter().enumerate().take(n) {
            let cell = if i == j {
                "-".to_string()
            } else if games == 0 {
                ".".to_string()
            } else {
                format!("{points}/{games}")
            };
            line.push_str(&format!("  {cell:>7}"));
        }
        println!("{line}");
    }
    match ratings {
        Ok(f) => {
            let note = if prior > 0.0 {
                ", with BayesElo's prior of 2 virtual draws per pair since someone won or lost every game"
            } else {
                ""
            };
            println!("\nRatings: maximum likelihood over all {played} games (BayesElo model{note}); 95% intervals");
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| f.ratings[b].total_cmp(&f.ratings[a]));
            for i in order {
                println!("  {:<width$}  {:>+6.0}  ± {:.0}", names[i], f.ratings[i], 1.96 * f.errors[i]);
            }
            println!("  advantage of moving first: {:+.0} Elo; draw parameter: {:.0} Elo", f.first_move, f.draw);
        }
        Err(e) => println!("\nRatings: not computed: {e}"),
    }
    Ok(ExitCode::SUCCESS)
}

fn print_standing(s: &Standing, name: &str, width: usize, shown: &[usize]) {
    let mut line = format!(
        "{:>3}  {:<width$}  {:>6}  {:>5}  {:>8}",
        s.rank,
        name,
        s.points.to_string(),
        s.played,
        format!("{}-{}-{}", s.wins, s.draws, s.losses)
    );
    for &k in shown {
        line.push_str(&format!("  {:>6}", fmt_tb(s.tiebreaks.get(k).copied().flatten())));
    }
    println!("{line}");
}

/// `a 2-1 b` for a decided match (game wins, draws as halves), `a bye` for
/// a walkover.
fn match_line<'a>(
    t: &Tournament,
    m: &tabula_tournament::knockout::KnockoutMatch,
    name: &impl Fn(PlayerId) -> &'a str,
) -> Option<String> {
    let (a, b) = (m.slots[0].player(), m.slots[1].player());
    match (a, b) {
        (Some(a), Some(b)) => {
            let mut score = [0.0f64; 2];
            for (id, _) in &m.games {
                let g = t.game(*id)?;
                let r = g.result?;
                let pa = t.config().scoring.points(&r, g.side_of(a)?).as_f64();
                let pb = t.config().scoring.points(&r, g.side_of(b)?).as_f64();
                score[0] += pa;
                score[1] += pb;
            }
            let decider = m.games.iter().any(|(_, g)| g.stage == tabula_tournament::knockout::MatchStage::Decider);
            let winner = m
                .winner()
                .map(|w| format!(" ({} through{})", name(w), if decider { " on the decider" } else { "" }))
                .unwrap_or_default();
            Some(format!("{} {}-{} {}{winner}", name(a), score[0], score[1], name(b)))
        }
        (Some(a), None) if m.slots[1] == Slot::Empty => Some(format!("{} bye", name(a))),
        _ => None,
    }
}
