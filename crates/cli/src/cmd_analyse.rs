//! `tabula analyse`: what the game's engine says about a position (see
//! `tabula_core::analysis`), as text or as the JSON the server returns.

use crate::util::{self, input_error};
use anyhow::Result;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tabula_core::analysis::{Analysis, EvalUnit, GameResult, Territory};
use tabula_core::ThinkContext;

#[derive(clap::Args)]
pub struct Args {
    /// Game id (see `tabula games`)
    game: String,
    /// Start from this position, in the game's notation
    #[arg(long)]
    position: Option<String>,
    /// Moves to play first (from the start or --position), separated by spaces, e.g. "b2 a2 b2-b3"
    #[arg(long, allow_hyphen_values = true)]
    moves: Option<String>,
    /// A game option as key=value (repeatable), e.g. --option width=20
    #[arg(long = "option", short = 'o', visible_alias = "options", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Thinking time in milliseconds (Cold War answers from its solution at once)
    #[arg(long, value_name = "MS", default_value = "1000", value_parser = util::whole::<u64>)]
    time: u64,
    /// Print the analysis as JSON (the `analysis` object of `POST /api/analysis`)
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let game = util::game(&args.game)?;
    let options = util::options(&args.options)?;
    let moves = args.moves.as_deref().map(tabula_core::record::split_moves).unwrap_or_default();
    let state = game.replay(&options, args.position.as_deref(), &moves).map_err(|e| input_error(e.to_string()))?;
    let think = || {
        let ctx = ThinkContext {
            deadline: Some(Instant::now() + Duration::from_millis(args.time)),
            ..ThinkContext::default()
        };
        state.analyse(&ctx)
    };
    let mut analysis = think()?;
    if analysis.retry {
        // The engine is getting ready (Cold War reads or solves its
        // solution once): a command line waits for it.
        eprintln!("{}: waiting for the engine to get ready", state.game_id());
        while analysis.retry {
            std::thread::sleep(Duration::from_millis(50));
            analysis = think()?;
        }
    }
    if args.json {
        println!("{}", serde_json::to_string(&analysis)?);
    } else {
        print!("{}", text(&analysis, state.players()));
    }
    Ok(ExitCode::SUCCESS)
}

/// The evaluation in words, for the first player (`players[0]`).
pub fn evaluation_text(a: &Analysis, players: [&str; 2]) -> String {
    let e = &a.evaluation;
    if let Some(s) = e.solved {
        let plies = |n: u32| if n == 1 { "1 ply".to_string() } else { format!("{n} plies") };
        return match s.result {
            GameResult::Draw => "a draw with best play".into(),
            GameResult::Win => format!("{} wins in {}", players[0], plies(s.plies)),
            GameResult::Loss => format!("{} wins in {}", players[1], plies(s.plies)),
        };
    }
    match e.unit {
        EvalUnit::Centipawns => format!("{:+.2} pawns for {}", e.value / 100.0, players[0]),
        EvalUnit::Centipieces => format!("{:+.2} pieces for {}", e.value / 100.0, players[0]),
        EvalUnit::WinProbability | EvalUnit::Solved => {
            format!("{} wins {:.0}% of the time", players[0], e.expected * 100.0)
        }
    }
}

/// The territory as a map, top row first: upper case for a point held in
/// most playouts, lower case for a lean, `.` for nobody's.
fn territory_map(t: &Territory, players: [&str; 2]) -> String {
    let letter = |i: usize| players[i].chars().next().unwrap_or('?');
    let mut out = String::new();
    for y in (1..=t.height).rev() {
        out.push_str("  ");
        for x in 1..=t.width {
            let v = t.owner[(y - 1) * t.width + (x - 1)];
            let c = match v {
                v if v >= 0.6 => letter(0).to_ascii_uppercase(),
                v if v >= 0.2 => letter(0).to_ascii_lowercase(),
                v if v <= -0.6 => letter(1).to_ascii_uppercase(),
                v if v <= -0.2 => letter(1).to_ascii_lowercase(),
                _ => '.',
            };
            out.push(c);
        }
        out.push('\n');
    }
    out
}

/// The analysis for a person.
fn text(a: &Analysis, players: [&str; 2]) -> String {
    let mut out = String::new();
    if let Some(over) = &a.over {
        let who = over.winner.as_deref().map_or("a draw".to_string(), |w| format!("{w} won"));
        out.push_str(&format!("game over: {who} ({})\n", over.reason));
    } else {
        out.push_str(&format!("{} to move\n", a.to_move));
    }
    out.push_str(&format!("evaluation: {} [{}]\n", evaluation_text(a, players), a.engine));
    if let Some(best) = &a.best_move {
        let shown = a.pv_display.first().unwrap_or(best);
        out.push_str(&format!("best move: {shown}\n"));
    }
    if !a.pv_display.is_empty() {
        out.push_str(&format!("line: {}\n", a.pv_display.join(" ")));
    }
    if !a.moves.is_empty() {
        out.push_str(&format!("moves (for {}):\n", a.to_move));
        for m in &a.moves {
            let value = match (m.solved, m.expected, m.visits) {
                (Some(s), ..) => match s.result {
                    GameResult::Draw => "draw".to_string(),
                    GameResult::Win => format!("win in {}", s.plies),
                    GameResult::Loss => format!("loss in {}", s.plies),
                },
                (None, Some(e), Some(v)) => format!("{:.0}% ({v} playouts)", e * 100.0),
                (None, Some(e), None) => format!("{:.0}%", e * 100.0),
                (None, None, _) => String::new(),
            };
            out.push_str(&format!("  {:<10} {value}\n", m.display));
        }
    }
    if let Some(t) = &a.territory {
        out.push_str(&format!("likely territory ({}, {} samples):\n", t.method, t.samples));
        out.push_str(&territory_map(t, players));
    }
    let s = &a.search;
    let mut searched = Vec::new();
    if let Some(d) = s.depth {
        searched.push(format!("depth {d}"));
    }
    if let Some(n) = s.nodes {
        searched.push(format!("{n} nodes"));
    }
    if let Some(i) = s.iterations {
        searched.push(format!("{i} playouts"));
    }
    searched.push(format!("{} ms", s.time_ms));
    out.push_str(&format!("searched: {}\n", searched.join(", ")));
    if let Some(note) = &a.note {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::analysis::{Evaluation, Solved};

    #[test]
    fn evaluations_read_for_the_first_player() {
        let players = ["white", "black"];
        let mut a = Analysis::new("x", "e", "white", Evaluation::estimate(EvalUnit::Centipawns, -135.0, 0.3));
        assert_eq!(evaluation_text(&a, players), "-1.35 pawns for white");
        a.evaluation = Evaluation::exact(EvalUnit::Centipawns, Solved { result: GameResult::Loss, plies: 3 });
        assert_eq!(evaluation_text(&a, players), "black wins in 3 plies");
        a.evaluation = Evaluation::estimate(EvalUnit::WinProbability, 0.62, 0.62);
        assert_eq!(evaluation_text(&a, ["blue", "red"]), "blue wins 62% of the time");
    }

    #[test]
    fn the_territory_map_puts_the_top_row_first() {
        let t = Territory { width: 2, height: 2, owner: vec![1.0, -0.3, 0.0, -0.9], samples: 5, method: "m".into() };
        assert_eq!(territory_map(&t, ["blue", "red"]), "  .R\n  Br\n");
    }
}
