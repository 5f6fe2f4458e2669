//! One rating fit over the games of several runs: the per-game lines that
//! `tabula tournament` and `tabula match` write on stderr when it is not a
//! terminal (a run under `nohup`). A round-robin gives every pair a few
//! games; head-to-head matches between neighbouring levels add many more
//! where the ladder's gaps are decided, and fitting them together keeps
//! one scale.
//!
//! ```text
//! cargo run --release -p tabula-tournament --example fit_logs -- [--zero NAME] LOG[=A,B]...
//! ```
//!
//! - `LOG`: a tournament's log, lines `game 7: hard (first) vs medium: hard won, checkmate, 79 plies`;
//! - `LOG=A,B`: a match's log, lines `game 2 (B first): A won, checkmate, 52 plies`, with the
//!   names of its A and B.
//!
//! Prints each player's rating with its 95% interval, shifted so that
//! `NAME` (default `random`, if it played) is 0. The fit is the plain
//! maximum likelihood where it exists, else with BayesElo's prior of two
//! virtual draws per pair, as `tabula tournament` does.

use std::collections::HashMap;
use std::process::ExitCode;
use tabula_tournament::rating::{fit_plain_or_prior, Outcome, RatedGame};

/// Players by name, numbered as they first appear.
#[derive(Default)]
struct Players {
    names: Vec<String>,
    index: HashMap<String, usize>,
}

impl Players {
    fn id(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }
}

/// `(first, second, outcome)` of a tournament line, by name.
fn tournament_line(line: &str) -> Option<(String, String, Outcome)> {
    let rest = line.strip_prefix("game ")?;
    let (_, rest) = rest.split_once(": ")?;
    let (first, rest) = rest.split_once(" (first) vs ")?;
    // Names may hold ':' (`uct:100`): try each ": " as the end of the
    // second's name, and keep the one an outcome follows.
    for (i, _) in rest.match_indices(": ") {
        let (second, outcome) = (&rest[..i], &rest[i + 2..]);
        let o = if outcome.starts_with("draw,") {
            Outcome::Draw
        } else if outcome.starts_with(&format!("{first} won,")) {
            Outcome::FirstWins
        } else if outcome.starts_with(&format!("{second} won,")) {
            Outcome::SecondWins
        } else {
            continue;
        };
        return Some((first.to_string(), second.to_string(), o));
    }
    None
}

/// `(A moved first, outcome for the first player)` of a match line.
fn match_line(line: &str) -> Option<(bool, Outcome)> {
    let rest = line.strip_prefix("game ")?;
    let (_, rest) = rest.split_once(" (")?;
    let (colour, rest) = rest.split_once(" first): ")?;
    let a_first = match colour {
        "A" => true,
        "B" => false,
        _ => return None,
    };
    let a_won = if rest.starts_with("A won,") {
        Some(true)
    } else if rest.starts_with("B won,") {
        Some(false)
    } else if rest.starts_with("draw,") {
        None
    } else {
        return None;
    };
    let outcome = match a_won {
        None => Outcome::Draw,
        Some(a) if a == a_first => Outcome::FirstWins,
        Some(_) => Outcome::SecondWins,
    };
    Some((a_first, outcome))
}

fn run(args: &[String]) -> Result<(), String> {
    let mut zero = "random".to_string();
    let mut players = Players::default();
    let mut games = Vec::new();
    let mut logs = 0;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--zero" {
            zero = it.next().ok_or("--zero needs a player's name")?.clone();
            continue;
        }
        if arg == "--help" || arg == "-h" {
            println!("usage: fit_logs [--zero NAME] LOG[=A,B]...  (see the source's header)");
            return Ok(());
        }
        logs += 1;
        let (path, pair) = match arg.split_once('=') {
            Some((path, names)) => {
                let (a, b) = names.split_once(',').ok_or_else(|| format!("'{arg}': a match log is LOG=A,B"))?;
                (path, Some((players.id(a.trim()), players.id(b.trim()))))
            }
            None => (arg.as_str(), None),
        };
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let before = games.len();
        for (n, line) in text.lines().enumerate().filter(|(_, l)| l.starts_with("game ")) {
            let game = match pair {
                Some((a, b)) => match_line(line).map(|(a_first, outcome)| {
                    let (first, second) = if a_first { (a, b) } else { (b, a) };
                    RatedGame { first, second, outcome }
                }),
                None => tournament_line(line).map(|(first, second, outcome)| RatedGame {
                    first: players.id(&first),
                    second: players.id(&second),
                    outcome,
                }),
            };
            games.push(game.ok_or_else(|| format!("{path}:{}: not a game line I can read: {line}", n + 1))?);
        }
        eprintln!("{path}: {} games", games.len() - before);
    }
    if logs == 0 {
        return Err("give at least one log (see --help)".into());
    }
    let n = players.names.len();
    let (result, prior) = fit_plain_or_prior(n, &games);
    let f = result.map_err(|e| format!("no fit: {e}"))?;
    let shift = players.index.get(&zero).map_or(0.0, |&i| f.ratings[i]);
    println!(
        "{} games, {} players; {}",
        games.len(),
        n,
        if prior > 0.0 { "with BayesElo's prior of 2 virtual draws per pair" } else { "plain maximum likelihood" }
    );
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| f.ratings[b].total_cmp(&f.ratings[a]));
    for i in order {
        let (w, d, l) = games.iter().fold((0, 0, 0), |(w, d, l), g| {
            let side = if g.first == i {
                Some(true)
            } else if g.second == i {
                Some(false)
            } else {
                None
            };
            match (side, g.outcome) {
                (None, _) => (w, d, l),
                (_, Outcome::Draw) => (w, d + 1, l),
                (Some(true), Outcome::FirstWins) | (Some(false), Outcome::SecondWins) => (w + 1, d, l),
                _ => (w, d, l + 1),
            }
        });
        println!("  {:<12} {:>+6.0} ± {:<4.0} {w}-{d}-{l}", players.names[i], f.ratings[i] - shift, 1.96 * f.errors[i]);
    }
    println!("advantage of moving first: {:+.0} Elo; draw parameter: {:.0} Elo", f.first_move, f.draw);
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fit_logs: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tournament_lines_name_both_players_and_the_winner() {
        let (a, b, o) = tournament_line("game 7: hard (first) vs medium: medium won, checkmate, 79 plies").unwrap();
        assert_eq!((a.as_str(), b.as_str(), o), ("hard", "medium", Outcome::SecondWins));
        let (a, b, o) = tournament_line("game 1: uct:100 (first) vs sf8: draw, stalemate, 90 plies").unwrap();
        assert_eq!((a.as_str(), b.as_str(), o), ("uct:100", "sf8", Outcome::Draw));
        let (_, b, o) = tournament_line("game 2: x (first) vs rave:1:2: x won, protected lead, 9 plies").unwrap();
        assert_eq!((b.as_str(), o), ("rave:1:2", Outcome::FirstWins));
        assert!(tournament_line("game 3: a (first) vs b: nobody won, 1 plies").is_none());
    }

    #[test]
    fn match_lines_give_the_first_players_result() {
        assert_eq!(
            match_line("game 2 (B first): A won, checkmate, 52 plies; 2 of 20 done"),
            Some((false, Outcome::SecondWins))
        );
        assert_eq!(match_line("game 1 (A first): A won, checkmate, 35 plies"), Some((true, Outcome::FirstWins)));
        assert_eq!(match_line("game 5 (A first): draw, level, 300 plies"), Some((true, Outcome::Draw)));
        assert_eq!(match_line("game 5 (C first): draw, level"), None);
    }
}
