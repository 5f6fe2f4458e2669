//! Playing AIs against each other locally: one game to its end, shared by
//! `tabula match` and `tabula tournament`.

use crate::brain::{Brain, Mover};
use anyhow::{anyhow, Result};
use cpu_time::ThreadTime;
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Instant;
use tabula_core::matches::{Match, MatchError};
use tabula_core::{DynGame, Player, ThinkContext};

/// A finished AI-vs-AI game.
#[derive(Clone, Debug)]
pub struct Played {
    /// `None` is a draw.
    pub winner: Option<Player>,
    /// How it ended, e.g. `"checkmate"` or `"black ran out of time"`.
    pub reason: String,
    pub plies: u32,
    /// The game's own points (first, second), for games that keep a score.
    pub points: Option<[i32; 2]>,
}

/// What an AI's move costs on a simulated clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MoveCost {
    /// The CPU time the AI's thread spent choosing the move: the clock a
    /// real game would show, without waiting for it, and fair when other
    /// work shares the machine.
    #[default]
    Measured,
    /// A fixed number of milliseconds for every move: reproducible, and a
    /// way to see how a clock decides games between fast AIs.
    Fixed(u64),
}

/// An AI spec as typed, without an optional `ai:` prefix.
pub fn strip_ai(spec: &str) -> &str {
    spec.strip_prefix("ai:").unwrap_or(spec)
}

/// `plies` uniformly random legal moves from the start position of
/// `options` that leave the game going, drawn from `seed`: an opening for a
/// pair of games, so AIs that think alike every time do not replay one
/// game. A few thousand draws are tried before giving up.
pub fn random_opening(game: &dyn DynGame, options: &[(String, String)], plies: u32, seed: u64) -> Result<Vec<String>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    for _ in 0..4096 {
        let mut state = game.new_state(options)?;
        let mut line = Vec::with_capacity(plies as usize);
        while line.len() < plies as usize && !state.status().is_over() {
            let moves = state.legal_moves();
            let Some(mv) = moves.get(rng.random_range(0..moves.len().max(1))) else { break };
            state.play(mv).map_err(|e| anyhow!("the random opening's move {mv}: {e}"))?;
            line.push(mv.clone());
        }
        if line.len() == plies as usize && !state.status().is_over() {
            return Ok(line);
        }
    }
    Err(anyhow!("found no {plies}-ply random opening that leaves the game going; ask for fewer plies"))
}

/// Play one game between the AIs `first` and `second` with `options`,
/// from the start or after the moves of `opening`; `label` names the game
/// in errors (e.g. "game 3"). When the options call
/// for a clock (Cordots `mode=blitz|competitive`) the game runs under it on
/// simulated time: nobody waits, each move is charged `cost`, the AIs are
/// told their remaining time as in a real game, and the clock ends the game
/// as the rules say (a flag loses, a match clock's tie-breaker and
/// overtime). `threads` are the threads each side may think with (first,
/// second); a side given more than one is charged the wall time it took
/// under [`MoveCost::Measured`], as a real clock would, since its helper
/// threads' CPU time is not its calling thread's; so is an external UCI
/// engine, whose thinking is another process's.
#[allow(clippy::too_many_arguments)]
pub fn play_game(
    game: &dyn DynGame,
    options: &[(String, String)],
    first: &Brain,
    second: &Brain,
    opening: &[String],
    seed: u64,
    label: &str,
    cost: MoveCost,
    threads: [usize; 2],
) -> Result<Played> {
    let mut movers = [
        Mover::new(first, game, options, seed).map_err(|e| anyhow!("{label}: {e}"))?,
        Mover::new(second, game, options, seed.wrapping_add(1)).map_err(|e| anyhow!("{label}: {e}"))?,
    ];
    let external = [first.is_external(), second.is_external()];
    // The moves from the start, as an engine is given them.
    let mut moves: Vec<String> = opening.to_vec();
    let mut state = game.new_state(options)?;
    for mv in opening {
        state.play(mv).map_err(|e| anyhow!("{label}: the opening's move {mv}: {e}"))?;
    }
    let control = state.time_control().unwrap_or_default();
    // Simulated milliseconds since the start.
    let mut now = 0u64;
    let mut m = Match::new(state, control, now);
    let mut plies = opening.len() as u32;
    while m.result.is_none() {
        let mover = m.state.to_move();
        let threads = threads[mover.index()].max(1);
        let ctx = ThinkContext { threads, ..m.think_context(now) };
        let (cpu, wall) = (ThreadTime::now(), Instant::now());
        let mv = movers[mover.index()].choose(m.state.as_ref(), &moves, &ctx).map_err(|e| anyhow!("{label}: {e}"))?;
        now += match cost {
            MoveCost::Measured if threads > 1 || external[mover.index()] => wall.elapsed().as_millis() as u64,
            MoveCost::Measured => cpu.elapsed().as_millis() as u64,
            MoveCost::Fixed(ms) => ms,
        };
        if m.advance_to(now).is_some() {
            break;
        }
        match m.play(&mv, now) {
            Ok(()) => {
                plies += 1;
                moves.push(mv);
            }
            Err(MatchError::Move(e)) => {
                return Err(anyhow!("{label}: the AI for {} chose {e}", m.state.player_name(mover)))
            }
            Err(MatchError::TimeUp(_) | MatchError::Finished(_)) => break,
        }
    }
    let result = m.result.expect("the loop ends with a result");
    Ok(Played { winner: result.winner, reason: result.reason, plies, points: m.state.score() })
}

/// A progress bar on stderr counting `unit` up to `len`.
pub fn progress_bar(len: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    let template =
        format!("{{spinner}} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {unit}  {{msg}}  (eta {{eta}})");
    bar.set_style(ProgressStyle::with_template(&template).expect("valid template"));
    bar
}

/// Report a finished game on stderr when the bar is hidden (stderr is not
/// a terminal, e.g. a long run under `nohup`): the bar alone would leave
/// nothing until the end, and a run stopped early would leave no result.
pub fn log_game(bar: &ProgressBar, line: impl FnOnce() -> String) {
    if bar.is_hidden() {
        eprintln!("{}", line());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_games::REGISTRY;

    #[test]
    fn a_random_opening_is_legal_reproducible_and_leaves_the_game_going() {
        let dots = REGISTRY.get("dots").unwrap();
        let options = [("width".to_string(), "8".to_string()), ("height".to_string(), "8".to_string())];
        let line = random_opening(dots, &options, 6, 7).unwrap();
        assert_eq!(line.len(), 6);
        assert_eq!(random_opening(dots, &options, 6, 7).unwrap(), line, "the seed decides the opening");
        assert_ne!(random_opening(dots, &options, 6, 8).unwrap(), line, "another seed, another opening");
        let mut state = dots.new_state(&options).unwrap();
        for mv in &line {
            state.play(mv).unwrap();
        }
        assert!(!state.status().is_over());
        // A game played from it counts the opening's plies.
        let random = crate::brain::Brain::Level("random".into());
        let played = play_game(dots, &options, &random, &random, &line, 1, "game 1", MoveCost::Measured, [1, 1]);
        assert!(played.unwrap().plies >= 6);
        // Cold War never lasts 10,000 plies: a clear error, no endless search.
        let coldwar = REGISTRY.get("coldwar").unwrap();
        let err = random_opening(coldwar, &[], 10_000, 1).unwrap_err().to_string();
        assert!(err.contains("no 10000-ply random opening"), "{err}");
    }
}
