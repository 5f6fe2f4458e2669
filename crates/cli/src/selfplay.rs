//! Playing AIs against each other locally: one game to its end, shared by
//! `tabula match` and `tabula tournament`.

use anyhow::{anyhow, Result};
use indicatif::{ProgressBar, ProgressStyle};
use tabula_core::{DynGame, Player, Status};

/// A finished AI-vs-AI game.
#[derive(Clone, Copy, Debug)]
pub struct Played {
    /// `None` is a draw.
    pub winner: Option<Player>,
    /// How it ended, e.g. `"checkmate"`.
    pub reason: &'static str,
    pub plies: u32,
    /// The game's own points (first, second), for games that keep a score.
    pub points: Option<[i32; 2]>,
}

/// An AI spec as typed, without an optional `ai:` prefix.
pub fn strip_ai(spec: &str) -> &str {
    spec.strip_prefix("ai:").unwrap_or(spec)
}

/// Play one game between the AIs `first` and `second` with `options`;
/// `label` names the game in errors (e.g. "game 3").
pub fn play_game(
    game: &dyn DynGame,
    options: &[(String, String)],
    first: &str,
    second: &str,
    seed: u64,
    label: &str,
) -> Result<Played> {
    let mut agents = [game.new_agent(first, seed)?, game.new_agent(second, seed.wrapping_add(1))?];
    let mut state = game.new_state(options)?;
    let mut plies = 0;
    while state.status() == Status::Ongoing {
        let mover = state.to_move();
        let mv = agents[mover.index()].choose(state.as_ref(), &Default::default())?;
        state.play(&mv).map_err(|e| anyhow!("{label}: the AI for {} chose {e}", state.player_name(mover)))?;
        plies += 1;
    }
    let outcome = state.status().outcome().expect("the game is over");
    Ok(Played { winner: outcome.winner, reason: outcome.reason, plies, points: state.score() })
}

/// A progress bar on stderr counting `unit` up to `len`.
pub fn progress_bar(len: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    let template =
        format!("{{spinner}} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {unit}  {{msg}}  (eta {{eta}})");
    bar.set_style(ProgressStyle::with_template(&template).expect("valid template"));
    bar
}
