//! What plays a side's moves: one of Tabula's AIs or an external UCI
//! engine, as `tabula bot` plays on a server and `tabula match` and
//! `tabula tournament` play locally.

use std::time::{Duration, Instant};
use tabula_core::uci::UciEngine;
use tabula_core::{DynAgent, DynGame, DynState, ThinkContext};

/// How long an engine may overrun its time before it counts as hung.
pub const ENGINE_GRACE: Duration = Duration::from_secs(10);

/// What plays a side's moves: in `tabula bot`, and in `tabula match` and
/// `tabula tournament` (see [`Brain::parse`]).
#[derive(Debug, Clone)]
pub enum Brain {
    /// One of Tabula's AIs at this level (`DynGame::new_agent`).
    Level(String),
    /// An external UCI engine.
    Engine {
        /// The program and its arguments.
        command: Vec<String>,
        /// `setoption` pairs.
        options: Vec<(String, String)>,
        /// Time per move when the clock sets none (untimed games), and the
        /// most it uses under a time per move.
        movetime: Duration,
    },
}

impl Brain {
    /// Read a player spec of `tabula match` and `tabula tournament`: a level
    /// or AI spec of the game (an `ai:` prefix is allowed), or an external
    /// UCI engine as `uci:MS:COMMAND[;NAME=VALUE]...`: the command (split at
    /// spaces), MS milliseconds a move in untimed games, and `setoption`
    /// pairs, e.g. `uci:100:stockfish;Skill Level=3;Threads=1`.
    pub fn parse(spec: &str) -> Result<Brain, String> {
        let spec = spec.trim();
        let Some(rest) = spec.strip_prefix("uci:") else {
            return Ok(Brain::Level(spec.strip_prefix("ai:").unwrap_or(spec).to_string()));
        };
        let form = "a UCI engine is uci:MS:COMMAND[;NAME=VALUE]... (e.g. 'uci:100:stockfish;Skill Level=3')";
        let (ms, rest) = rest.split_once(':').ok_or_else(|| format!("'{spec}': {form}"))?;
        let ms: u64 =
            ms.trim().parse().ok().filter(|&ms| (1..=3_600_000).contains(&ms)).ok_or_else(|| {
                format!("'{spec}': '{ms}' is not a time a move in milliseconds (1 to 3600000); {form}")
            })?;
        let mut parts = rest.split(';');
        let command: Vec<String> = parts.next().unwrap_or("").split_whitespace().map(str::to_string).collect();
        if command.is_empty() {
            return Err(format!("'{spec}': the engine's command is missing; {form}"));
        }
        let options = parts
            .filter(|p| !p.trim().is_empty())
            .map(|p| {
                p.split_once('=')
                    .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                    .filter(|(k, _)| !k.is_empty())
                    .ok_or_else(|| format!("'{spec}': the engine option '{p}' is not NAME=VALUE"))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Brain::Engine { command, options, movetime: Duration::from_millis(ms) })
    }

    /// Check that it can play `game` with `options`, so a wrong spec fails
    /// before any game: the level exists, or the engine starts and speaks
    /// UCI and the game has a position notation to give it.
    pub fn check(&self, game: &dyn DynGame, options: &[(String, String)]) -> Result<(), String> {
        Mover::new(self, game, options, 0).map(drop)
    }

    /// Whether it is an external program (its thinking is not this
    /// process's CPU time).
    pub fn is_external(&self) -> bool {
        matches!(self, Brain::Engine { .. })
    }
}

/// The UCI `go` command for the move on hand, and how long to wait for the
/// answer.
pub fn uci_go(ctx: &ThinkContext, movetime: Duration, now: Instant) -> (String, Duration) {
    let until_deadline = ctx.deadline.map(|d| d.saturating_duration_since(now));
    match (ctx.remaining, until_deadline) {
        (Some(left), None) => {
            let inc = ctx.increment.unwrap_or_default().as_millis();
            let ms = left.as_millis().max(1);
            // UCI has a clock per colour; the bot's own is what matters, so
            // both are given it rather than guess which colour is whose.
            (format!("go wtime {ms} btime {ms} winc {inc} binc {inc}"), left + ENGINE_GRACE)
        }
        (_, Some(d)) => {
            let t = d.min(movetime).max(Duration::from_millis(1));
            (format!("go movetime {}", t.as_millis()), t + ENGINE_GRACE)
        }
        (None, None) => (format!("go movetime {}", movetime.as_millis()), movetime + ENGINE_GRACE),
    }
}

/// A brain set up for one game.
pub enum Mover {
    Agent(Box<dyn DynAgent>),
    Engine { engine: UciEngine, start: String, movetime: Duration },
}

impl Mover {
    /// Set `brain` up for a game of `game` with `options`; an engine is
    /// started and told a new game begins.
    pub fn new(brain: &Brain, game: &dyn DynGame, options: &[(String, String)], seed: u64) -> Result<Mover, String> {
        match brain {
            Brain::Level(level) => game.new_agent(level, seed).map(Mover::Agent).map_err(|e| e.to_string()),
            Brain::Engine { command, options: uci_options, movetime } => {
                let start = game.new_state(options).map_err(|e| e.to_string())?.position().ok_or_else(|| {
                    format!("{} has no position notation, so a UCI engine cannot play it", game.name())
                })?;
                let mut engine = UciEngine::start(command).map_err(|e| e.to_string())?;
                engine.handshake(uci_options).map_err(|e| e.to_string())?;
                engine.new_game().map_err(|e| e.to_string())?;
                Ok(Mover::Engine { engine, start, movetime: *movetime })
            }
        }
    }

    /// A move for `state` (checked, in its canonical spelling); `moves` are
    /// the moves played from the start, which an engine is given.
    pub fn choose(&mut self, state: &dyn DynState, moves: &[String], ctx: &ThinkContext) -> Result<String, String> {
        let text = match self {
            Mover::Agent(agent) => agent.choose(state, ctx).map_err(|e| e.to_string())?,
            Mover::Engine { engine, start, movetime } => {
                let position = if moves.is_empty() {
                    format!("position fen {start}")
                } else {
                    format!("position fen {start} moves {}", moves.join(" "))
                };
                let (go, wait) = uci_go(ctx, *movetime, Instant::now());
                let text = engine.best_move(&position, &go, wait).map_err(|e| e.to_string())?;
                state.check(&text).map_err(|e| {
                    format!("the engine {} played '{text}', which is not a legal move: {e}", engine.name())
                })?
            }
        };
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_games::REGISTRY;

    #[test]
    fn uci_go_commands() {
        let now = Instant::now();
        let fischer = ThinkContext {
            remaining: Some(Duration::from_millis(30000)),
            increment: Some(Duration::from_millis(1000)),
            ..Default::default()
        };
        assert_eq!(uci_go(&fischer, Duration::from_secs(2), now).0, "go wtime 30000 btime 30000 winc 1000 binc 1000");
        let untimed = ThinkContext::default();
        assert_eq!(uci_go(&untimed, Duration::from_millis(1500), now).0, "go movetime 1500");
        let shot = ThinkContext { deadline: Some(now + Duration::from_millis(800)), ..Default::default() };
        assert_eq!(uci_go(&shot, Duration::from_secs(2), now).0, "go movetime 800");
    }

    #[test]
    fn specs_parse_into_levels_and_engines() {
        assert!(matches!(Brain::parse("ai:hard").unwrap(), Brain::Level(l) if l == "hard"));
        assert!(matches!(Brain::parse("uct:100").unwrap(), Brain::Level(l) if l == "uct:100"));
        match Brain::parse("uci:250:/usr/games/stockfish -x;Skill Level=3; Threads = 1;").unwrap() {
            Brain::Engine { command, options, movetime } => {
                assert_eq!(command, ["/usr/games/stockfish", "-x"]);
                assert_eq!(options, [("Skill Level".into(), "3".into()), ("Threads".into(), "1".into())]);
                assert_eq!(movetime, Duration::from_millis(250));
            }
            other => panic!("{other:?}"),
        }
        for (bad, says) in [
            ("uci:stockfish", "uci:MS:COMMAND"),
            ("uci:0:stockfish", "'0' is not a time a move"),
            ("uci:fast:stockfish", "'fast' is not a time a move"),
            ("uci:100:", "command is missing"),
            ("uci:100: ;Hash=16", "command is missing"),
            ("uci:100:stockfish;Skill Level", "'Skill Level' is not NAME=VALUE"),
        ] {
            let e = Brain::parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn check_refuses_what_cannot_play() {
        let game = REGISTRY.games().iter().copied().find(|g| g.new_state(&[]).unwrap().position().is_some()).unwrap();
        assert!(Brain::Level("random".into()).check(game, &[]).is_ok());
        assert!(Brain::Level("no-such-level".into()).check(game, &[]).is_err());
        assert!(fixed_engine("a1").check(game, &[]).is_ok());
        let e = Brain::parse("uci:100:/no/such/engine").unwrap().check(game, &[]).unwrap_err();
        assert!(e.contains("/no/such/engine"), "{e}");
        // A game without a position notation cannot be given to an engine.
        if let Some(other) = REGISTRY.games().iter().copied().find(|g| g.new_state(&[]).unwrap().position().is_none()) {
            let e = fixed_engine("a1").check(other, &[]).unwrap_err();
            assert!(e.contains("no position notation"), "{e}");
        }
    }

    /// An engine in sh that answers every `go` with `answer`.
    #[cfg(unix)]
    fn fixed_engine(answer: &str) -> Brain {
        let script = format!(
            "while read -r cmd rest; do case \"$cmd\" in uci) echo uciok;; isready) echo readyok;; \
             go) echo \"bestmove {answer}\";; quit) exit 0;; esac; done"
        );
        Brain::Engine {
            command: vec!["sh".into(), "-c".into(), script],
            options: vec![],
            movetime: Duration::from_millis(50),
        }
    }

    #[cfg(unix)]
    #[test]
    fn an_engine_move_is_checked() {
        let game = REGISTRY.games().iter().copied().find(|g| g.new_state(&[]).unwrap().position().is_some()).unwrap();
        let state = game.new_state(&[]).unwrap();
        let legal = state.legal_moves()[0].clone();
        let mut mover = Mover::new(&fixed_engine(&legal), game, &[], 1).unwrap();
        assert_eq!(mover.choose(&*state, &[], &ThinkContext::default()).unwrap(), state.check(&legal).unwrap());
        let mut mover = Mover::new(&fixed_engine("zz99"), game, &[], 1).unwrap();
        let e = mover.choose(&*state, &[], &ThinkContext::default()).unwrap_err();
        assert!(e.contains("'zz99', which is not a legal move"), "{e}");
    }

    #[test]
    fn a_level_plays_a_legal_move() {
        let game = REGISTRY.games()[0];
        let state = game.new_state(&[]).unwrap();
        let mut mover = Mover::new(&Brain::Level("random".into()), game, &[], 1).unwrap();
        let mv = mover.choose(&*state, &[], &ThinkContext::default()).unwrap();
        assert!(state.check(&mv).is_ok());
        assert!(Mover::new(&Brain::Level("no-such-level".into()), game, &[], 1).is_err());
    }
}
