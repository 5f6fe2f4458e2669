//! `tabula bot`: the reference client of the server's Bot API. It signs in
//! with a bot account's token, listens on the event stream for challenges
//! and games, accepts the challenges it can play, and plays each game with
//! one of Tabula's AIs or an external UCI engine. The games, their AIs and
//! their notation come from the registry; nothing here names a game.

use crate::bot_api::{parse_server, segment, Api, ApiError};
use crate::bot_game::{options_of, play};
use crate::brain::Brain;
use crate::util::input_error;
use anyhow::Result;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::process::ExitCode;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};
use tabula_core::DynGame;
use tabula_games::REGISTRY;

/// `bot` with examples from the registry.
pub fn from_registry(cmd: clap::Command) -> clap::Command {
    let games: Vec<&str> = REGISTRY.games().iter().map(|g| g.id()).collect();
    let level = REGISTRY.games().first().map_or(String::new(), |g| {
        g.levels().into_iter().map(|l| l.id).find(|l| l == "easy").unwrap_or_else(|| g.default_level().to_string())
    });
    cmd.after_help(format!(
        "The bot account and its token: sign up, turn the account into a bot on its profile page, and make an API \
         token with the bot:play scope there (docs/api.md, \"Bot API\").\n\n\
         The bot accepts the challenges it can play (--games, --accept, --concurrency) and declines the others, \
         then plays each game to its end within the clock it is given. A lost connection is retried with backoff \
         (1 s doubling to 60 s); a refused token or a server without the Bot API stops it with an error.\n\n\
         Games: {}.\n\n\
         EXAMPLES:\n  \
         tabula bot --server http://127.0.0.1:8080 --token tba_... --level {level}\n  \
         tabula bot --server https://tabula.example.org --token tba_... --engine stockfish --games ID \\\n      \
         --engine-option 'Skill Level=5'",
        games.join(", ")
    ))
}

/// Which challenges to accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Accept {
    /// Rated and casual challenges.
    Both,
    /// Only rated challenges.
    Rated,
    /// Only casual challenges.
    Casual,
}

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("brain").required(true).args(["engine", "level"])))]
pub struct Args {
    /// The server, e.g. http://127.0.0.1:8080 or https://tabula.example.org
    #[arg(long, value_name = "URL")]
    server: String,
    /// The bot account's API token (scope bot:play); TABULA_TOKEN is read when
    /// this is left out, which keeps it out of the process list
    #[arg(long, value_name = "TOKEN", env = "TABULA_TOKEN", hide_env_values = true)]
    token: String,
    /// Play with an external UCI engine: the command that starts it, its
    /// arguments separated by spaces (e.g. "stockfish"). The engine gets
    /// `position fen START moves ...` in the game's notation
    #[arg(long, value_name = "CMD")]
    engine: Option<String>,
    /// Play with Tabula's own AI at this level (see `tabula games`)
    #[arg(long, value_name = "LEVEL")]
    level: Option<String>,
    /// A UCI option for the engine, NAME=VALUE (repeatable)
    #[arg(long = "engine-option", value_name = "NAME=VALUE", requires = "engine")]
    engine_options: Vec<String>,
    /// The engine's time per move in untimed games (and the most it takes
    /// under a time per move), in milliseconds
    #[arg(long, value_name = "MS", default_value_t = 2000, value_parser = crate::util::whole::<u64>)]
    movetime: u64,
    /// The games to accept challenges for, comma-separated ids (default:
    /// every game with the --level; required with --engine)
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    games: Vec<String>,
    /// Which challenges to accept
    #[arg(long, value_enum, default_value = "both")]
    accept: Accept,
    /// Games played at once; more challenges are declined with "later"
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::util::whole::<usize>)]
    concurrency: usize,
    /// Stop after this many games have ended (default: run until stopped)
    #[arg(long, value_name = "N", value_parser = crate::util::whole::<usize>)]
    max_games: Option<usize>,
}

/// The wait before reconnection attempt `n` (1-based): 1 s, doubling, at
/// most 60 s.
pub fn backoff(n: u32) -> Duration {
    Duration::from_secs(1u64 << n.saturating_sub(1).min(6)).min(Duration::from_secs(60))
}

/// What the bot accepts.
pub struct Policy {
    /// The games it plays.
    pub games: Vec<&'static dyn DynGame>,
    /// Rated, casual or both.
    pub accept: Accept,
    /// Games at once.
    pub concurrency: usize,
}

/// The answer to a challenge: accept, or decline with one of the Bot API's
/// reasons and a sentence for the log.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// Accept it.
    Accept,
    /// Decline it.
    Decline {
        /// The reason sent to the server (lichess's: `later`, `variant`, `rated`, ...).
        reason: &'static str,
        /// Why, for the log.
        why: String,
    },
}

impl Policy {
    /// Decide on a challenge, `busy` games being under way.
    pub fn decide(&self, challenge: &Value, busy: usize) -> Decision {
        let decline = |reason, why: String| Decision::Decline { reason, why };
        let id = challenge["game"].as_str().unwrap_or("");
        let Some(game) = self.games.iter().find(|g| g.id() == id) else {
            return decline(
                "variant",
                format!("it is for '{}', which this bot does not play", tabula_core::error::excerpt(id)),
            );
        };
        let rated = challenge["rated"].as_bool().unwrap_or(false);
        match (self.accept, rated) {
            (Accept::Rated, false) => return decline("rated", "this bot plays only rated games".into()),
            (Accept::Casual, true) => return decline("casual", "this bot plays only casual games".into()),
            _ => {}
        }
        if let Err(e) = game.new_state(&options_of(&challenge["options"])) {
            return decline("generic", format!("its options are not playable here: {e}"));
        }
        if busy >= self.concurrency {
            return decline("later", format!("already playing {busy} game(s)"));
        }
        Decision::Accept
    }
}

/// What the threads tell the main loop.
enum Msg {
    /// The event stream is open.
    Connected,
    /// A line of the event stream.
    Event(Value),
    /// The event stream ended (`None`: closed by the server).
    StreamEnded(Option<ApiError>, Instant),
    /// A game ended, how, or why it could not be played.
    GameOver(String, Result<String, String>),
}

fn say(text: String) {
    eprintln!("{text}");
}

/// The games a level can play, or an error naming the level's absence.
fn games_for(args: &Args) -> Result<Vec<&'static dyn DynGame>> {
    let listed: Vec<&'static dyn DynGame> = if args.games.is_empty() {
        if args.engine.is_some() {
            return Err(input_error(format!(
                "--engine needs --games: the games the engine plays (ids: {})",
                REGISTRY.games().iter().map(|g| g.id()).collect::<Vec<_>>().join(", ")
            )));
        }
        REGISTRY.games().to_vec()
    } else {
        args.games.iter().map(|g| crate::util::game(g.trim())).collect::<Result<_>>()?
    };
    let Some(level) = &args.level else { return Ok(listed) };
    let (able, unable): (Vec<_>, Vec<_>) = listed.into_iter().partition(|g| g.new_agent(level, 0).is_ok());
    if able.is_empty() || (!args.games.is_empty() && !unable.is_empty()) {
        let names: Vec<String> = unable
            .iter()
            .map(|g| format!("{} ({})", g.id(), g.levels().iter().map(|l| l.id.clone()).collect::<Vec<_>>().join(", ")))
            .collect();
        return Err(input_error(format!(
            "no AI level '{level}' in {}; the levels are listed in brackets",
            names.join(", ")
        )));
    }
    Ok(able)
}

pub fn run(args: Args) -> Result<ExitCode> {
    let server = parse_server(&args.server).map_err(input_error)?;
    if args.token.trim().is_empty() {
        return Err(input_error("--token is empty: pass the bot account's API token (or set TABULA_TOKEN)"));
    }
    if args.concurrency == 0 {
        return Err(input_error("--concurrency must be at least 1"));
    }
    let games = games_for(&args)?;
    let brain = match (&args.level, &args.engine) {
        (Some(level), _) => Brain::Level(level.clone()),
        (None, Some(cmd)) => {
            let command: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
            let options = args
                .engine_options
                .iter()
                .map(|o| {
                    o.split_once('=')
                        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                        .ok_or_else(|| input_error(format!("--engine-option '{o}' is not NAME=VALUE")))
                })
                .collect::<Result<Vec<_>>>()?;
            // Start it once now, so a wrong command fails at once, not at the first game.
            let mut engine = tabula_core::uci::UciEngine::start(&command).map_err(|e| input_error(e.to_string()))?;
            engine.handshake(&options).map_err(|e| input_error(format!("the engine does not speak UCI: {e}")))?;
            drop(engine);
            Brain::Engine { command, options, movetime: Duration::from_millis(args.movetime.max(1)) }
        }
        (None, None) => unreachable!("clap requires --engine or --level"),
    };
    let policy = Policy { games, accept: args.accept, concurrency: args.concurrency };
    let api = Api::new(server, &args.token);

    let me = api.get("/api/account", "check the token").map_err(anyhow::Error::new)?;
    let name = me["user"]["username"].as_str().unwrap_or("?").to_string();
    if me["user"]["kind"].as_str() != Some("bot") {
        say(format!(
            "warning: {name} is not a bot account; the server may refuse it the Bot API (make it a bot on its profile page)"
        ));
    }
    let ids: Vec<&str> = policy.games.iter().map(|g| g.id()).collect();
    let brain_text = match &brain {
        Brain::Level(l) => format!("Tabula's AI at level {l}"),
        Brain::Engine { command, .. } => format!("the UCI engine {}", command.join(" ")),
    };
    say(format!(
        "tabula bot: signed in to {} as {name}; playing {} with {brain_text}, accepting {} challenges",
        api.server(),
        ids.join(", "),
        match policy.accept {
            Accept::Both => "rated and casual",
            Accept::Rated => "rated",
            Accept::Casual => "casual",
        }
    ));

    let (tx, rx) = mpsc::channel::<Msg>();
    let open_stream = |api: &Api, tx: mpsc::Sender<Msg>| {
        let api = api.clone();
        std::thread::spawn(move || {
            let opened = Instant::now();
            let mut stream = match api.stream("/api/stream/event", "open the event stream") {
                Ok(s) => s,
                Err(e) => return drop(tx.send(Msg::StreamEnded(Some(e), opened))),
            };
            if tx.send(Msg::Connected).is_err() {
                return;
            }
            loop {
                match stream.next() {
                    Ok(Some(v)) => {
                        if tx.send(Msg::Event(v)).is_err() {
                            return;
                        }
                    }
                    Ok(None) => return drop(tx.send(Msg::StreamEnded(None, opened))),
                    Err(e) => return drop(tx.send(Msg::StreamEnded(Some(e), opened))),
                }
            }
        });
    };
    open_stream(&api, tx.clone());

    let mut playing: HashSet<String> = HashSet::new();
    let mut answered: HashSet<String> = HashSet::new();
    let mut started = 0usize;
    let mut accepted = 0usize;
    let mut ended = 0usize;
    let mut failures = 0u32;
    let mut reconnect_at: Option<Instant> = None;
    loop {
        if args.max_games.is_some_and(|m| ended >= m) && playing.is_empty() {
            say(format!("tabula bot: {ended} game(s) played; stopping (--max-games)"));
            return Ok(ExitCode::SUCCESS);
        }
        let msg = match reconnect_at {
            Some(at) => match rx.recv_timeout(at.saturating_duration_since(Instant::now())) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    reconnect_at = None;
                    open_stream(&api, tx.clone());
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => unreachable!("the loop holds a sender"),
            },
            None => rx.recv().expect("the loop holds a sender"),
        };
        match msg {
            Msg::Connected if failures > 0 => say("reconnected".into()),
            Msg::Connected => {}
            Msg::StreamEnded(error, opened) => {
                if let Some(e) = &error {
                    if e.is_fatal() {
                        return Err(anyhow::Error::new(error.expect("checked")));
                    }
                }
                // A connection that held a while starts the backoff afresh.
                failures = if opened.elapsed() > Duration::from_secs(60) { 1 } else { failures + 1 };
                let wait = backoff(failures);
                let why = error.map_or("the server closed the event stream".to_string(), |e| e.to_string());
                say(format!("lost the connection: {why}; reconnecting in {} s", wait.as_secs()));
                reconnect_at = Some(Instant::now() + wait);
            }
            Msg::Event(event) => match event["type"].as_str() {
                Some("challenge") => {
                    let ch = &event["challenge"];
                    let id = ch["id"].as_str().unwrap_or("").to_string();
                    let from = ch["from"]["user"].as_str().unwrap_or("?");
                    if id.is_empty() || from == name || ch["status"].as_str().is_some_and(|s| s != "pending") {
                        continue;
                    }
                    if !answered.insert(id.clone()) {
                        continue; // sent again after a reconnection
                    }
                    // Games accepted but not started yet count too.
                    let full = args.max_games.is_some_and(|m| started.max(accepted) >= m);
                    // Accepted challenges whose game has not started yet are busy too.
                    let decision = match policy.decide(ch, playing.len() + accepted.saturating_sub(started)) {
                        Decision::Accept if full => {
                            Decision::Decline { reason: "later", why: "the bot is about to stop (--max-games)".into() }
                        }
                        decision => decision,
                    };
                    let what = format!(
                        "challenge {id} from {from} ({} {}, {})",
                        ch["rated"].as_bool().map_or("", |r| if r { "rated" } else { "casual" }),
                        ch["game"].as_str().unwrap_or("?"),
                        ch["category"].as_str().unwrap_or("?")
                    );
                    let answer = match &decision {
                        Decision::Accept => {
                            api.post(&format!("/api/challenges/{}/accept", segment(&id)), &json!({}), "accept")
                        }
                        Decision::Decline { reason, .. } => api.post(
                            &format!("/api/challenges/{}/decline", segment(&id)),
                            &json!({ "reason": reason }),
                            "decline",
                        ),
                    };
                    match (&decision, answer) {
                        (Decision::Accept, Ok(_)) => {
                            accepted += 1;
                            say(format!("{what}: accepted"));
                        }
                        (Decision::Decline { reason, why }, Ok(_)) => {
                            say(format!("{what}: declined ({reason}: {why})"))
                        }
                        (_, Err(e)) if e.is_fatal() => return Err(anyhow::Error::new(e)),
                        (_, Err(e)) => say(format!("{what}: could not answer: {e}")),
                    }
                }
                Some("challengeCanceled") | Some("challengeDeclined") => {
                    let id = event["challenge"]["id"].as_str().unwrap_or("?");
                    say(format!("challenge {id} was withdrawn"));
                }
                Some("gameStart") => {
                    let game = &event["game"];
                    let Some(id) = game["id"].as_str().map(str::to_string) else { continue };
                    if !playing.insert(id.clone()) {
                        continue; // already playing it (sent again after a reconnection)
                    }
                    started += 1;
                    say(format!("game {id} started: {}/game/{id}", api.server()));
                    let (api, brain, tx) = (api.clone(), brain.clone(), tx.clone());
                    std::thread::spawn(move || {
                        let result = play(&api, &id, &brain, &say).map_err(|e| e.to_string());
                        let _ = tx.send(Msg::GameOver(id, result));
                    });
                }
                Some("gameFinish") => {} // the game's own thread reports the end
                _ => {}                  // a kind of event this client does not know
            },
            Msg::GameOver(id, result) => {
                playing.remove(&id);
                ended += 1;
                match result {
                    Ok(how) => say(format!("game {id} over: {how}")),
                    Err(e) => say(format!("game {id} stopped: {e}")),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(accept: Accept) -> Policy {
        Policy { games: vec![REGISTRY.games()[0]], accept, concurrency: 1 }
    }

    fn challenge(game: &str, rated: bool) -> Value {
        json!({"id": "c1", "from": {"user": "ann"}, "game": game, "options": {}, "rated": rated, "status": "pending"})
    }

    #[test]
    fn the_backoff_doubles_to_a_minute() {
        let waits: Vec<u64> = (1..=9).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(backoff(0).as_secs(), 1);
    }

    #[test]
    fn challenges_are_accepted_only_when_playable() {
        let id = REGISTRY.games()[0].id();
        assert_eq!(policy(Accept::Both).decide(&challenge(id, true), 0), Decision::Accept);
        assert_eq!(policy(Accept::Rated).decide(&challenge(id, true), 0), Decision::Accept);
        let reason = |d: Decision| match d {
            Decision::Decline { reason, .. } => reason,
            Decision::Accept => "accepted",
        };
        assert_eq!(reason(policy(Accept::Rated).decide(&challenge(id, false), 0)), "rated");
        assert_eq!(reason(policy(Accept::Casual).decide(&challenge(id, true), 0)), "casual");
        assert_eq!(reason(policy(Accept::Both).decide(&challenge("no-such-game", false), 0)), "variant");
        assert_eq!(reason(policy(Accept::Both).decide(&challenge(id, false), 1)), "later");
        let mut bad = challenge(id, false);
        bad["options"] = json!({"no_such_option": "1"});
        assert_eq!(reason(policy(Accept::Both).decide(&bad, 0)), "generic");
    }
}
