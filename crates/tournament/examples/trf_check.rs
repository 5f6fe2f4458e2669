//! Re-pair every round of finished Swiss tournaments given as FIDE TRF
//! files and compare with the pairings in the file.
//!
//! This is how the Dutch implementation was checked against an independent
//! engine: generate random tournaments with a FIDE-endorsed pairing program
//! (its random tournament generator writes TRF), then run
//!
//! ```text
//! cargo run --release -p tabula-tournament --example trf_check -- FILE.trf...
//! ```
//!
//! Each round is re-paired from the results of the rounds before it; a
//! round counts as a match when the pairs (with colours) and the bye are
//! the same. Standard scoring (1, ½, 0; a pairing-allocated bye is worth a
//! win) is assumed. Players marked absent in a round (zero-point or
//! half-point byes) are left out of that round's pairing, as the arbiter
//! would.

use std::collections::BTreeSet;
use tabula_tournament::dutch::{pair, DutchPlayer, DutchRound, Float};
use tabula_tournament::Side;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cell {
    /// Paired against `opp` with a colour; `played` false for forfeits.
    Game { opp: u32, colour: Side, halves: i32, played: bool },
    /// Pairing-allocated bye.
    Pab,
    /// Not paired this round (absent, requested bye), with its points.
    Out { halves: i32, full_point_bye: bool },
}

struct Tournament {
    players: Vec<(u32, Vec<Cell>)>,
    rounds: usize,
    total_rounds: u32,
}

fn parse(text: &str) -> Result<Tournament, String> {
    let text = text.replace('\r', "\n");
    let mut players = Vec::new();
    let mut total_rounds = 0;
    for line in text.lines() {
        if let Some(r) = line.strip_prefix("XXR") {
            total_rounds = r.trim().parse().map_err(|_| format!("bad XXR line: {line}"))?;
        }
        if !line.starts_with("001") || line.len() < 91 {
            continue;
        }
        let pn: u32 = line[4..8].trim().parse().map_err(|_| format!("bad pairing number: {line}"))?;
        let mut cells = Vec::new();
        let mut at = 91;
        while at + 8 <= line.len() + 1 {
            let chunk =
                |a: usize, b: usize| line.get(at + a..(at + b).min(line.len())).unwrap_or("").trim().to_string();
            let opp = chunk(0, 4);
            let colour = chunk(5, 6);
            let result = chunk(7, 8);
            if opp.is_empty() && result.is_empty() {
                break;
            }
            let opp: u32 = opp.parse().unwrap_or(0);
            let halves = match result.as_str() {
                "1" | "+" | "W" | "F" | "U" => 2,
                "=" | "D" | "H" => 1,
                _ => 0,
            };
            let cell = if opp == 0 {
                if result == "U" {
                    Cell::Pab
                } else {
                    Cell::Out { halves, full_point_bye: result == "F" }
                }
            } else {
                let colour = if colour == "w" { Side::First } else { Side::Second };
                Cell::Game { opp, colour, halves, played: !matches!(result.as_str(), "+" | "-") }
            };
            cells.push(cell);
            at += 10;
        }
        players.push((pn, cells));
    }
    let rounds = players.iter().map(|(_, c)| c.len()).max().unwrap_or(0);
    for (_, c) in players.iter_mut() {
        c.resize(rounds, Cell::Out { halves: 0, full_point_bye: false });
    }
    players.sort_by_key(|p| p.0);
    Ok(Tournament { players, rounds, total_rounds: total_rounds.max(rounds as u32) })
}

fn halves(c: &Cell) -> i32 {
    match *c {
        Cell::Game { halves, .. } | Cell::Out { halves, .. } => halves,
        Cell::Pab => 2,
    }
}

/// The Dutch input for round `r` (0-based) from the rounds before it.
fn round_input(t: &Tournament, r: usize, initial: Side) -> DutchRound {
    let score_before = |pn: u32, upto: usize| -> i32 {
        let cells = &t.players.iter().find(|p| p.0 == pn).unwrap().1;
        cells[..upto].iter().map(halves).sum()
    };
    // Pairing numbers count only players who have taken part in a pairing
    // (this round's included): an entrant absent so far is a late entry.
    let in_pairing = |c: &Cell| matches!(c, Cell::Game { .. } | Cell::Pab);
    let mut effective = std::collections::HashMap::new();
    for (pn, cells) in &t.players {
        if cells[..r].iter().any(in_pairing) || !matches!(cells[r], Cell::Out { .. }) {
            let next = effective.len() as u32 + 1;
            effective.insert(*pn, next);
        }
    }
    let mut players = Vec::new();
    for (pn, cells) in &t.players {
        if matches!(cells[r], Cell::Out { .. }) {
            continue;
        }
        let past = &cells[..r];
        let mut opponents = Vec::new();
        let mut colours = Vec::new();
        let mut bye_eligible = true;
        for c in past {
            match *c {
                Cell::Game { opp, colour, played: true, .. } => {
                    opponents.push(opp);
                    colours.push(colour);
                }
                Cell::Game { played: false, halves: 2, .. } | Cell::Pab | Cell::Out { full_point_bye: true, .. } => {
                    bye_eligible = false
                }
                _ => {}
            }
        }
        let float_at = |k: usize| -> Float {
            match past.get(k) {
                Some(&Cell::Game { opp, played: true, .. }) => {
                    let (me, them) = (score_before(*pn, k), score_before(opp, k));
                    if me > them {
                        Float::Down
                    } else if me < them {
                        Float::Up
                    } else {
                        Float::None
                    }
                }
                Some(_) => Float::Down,
                None => Float::None,
            }
        };
        let floats =
            [if r >= 1 { float_at(r - 1) } else { Float::None }, if r >= 2 { float_at(r - 2) } else { Float::None }];
        players.push(DutchPlayer {
            id: *pn,
            pairing_number: effective[pn],
            score: past.iter().map(halves).sum(),
            opponents,
            colours,
            floats,
            bye_eligible,
        });
    }
    DutchRound {
        players,
        win: 2,
        rounds_played: r as u32,
        final_round: r as u32 + 1 == t.total_rounds,
        initial_colour: initial,
    }
}

/// The round's pairs (first, second) and bye as recorded in the file.
fn recorded(t: &Tournament, r: usize) -> (BTreeSet<(u32, u32)>, Option<u32>) {
    let mut pairs = BTreeSet::new();
    let mut bye = None;
    for (pn, cells) in &t.players {
        match cells[r] {
            Cell::Game { opp, colour: Side::First, .. } => {
                pairs.insert((*pn, opp));
            }
            Cell::Pab => bye = Some(*pn),
            _ => {}
        }
    }
    (pairs, bye)
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: trf_check FILE.trf...");
        std::process::exit(2);
    }
    let (mut rounds, mut same, mut slow) = (0, 0, 0);
    let start = std::time::Instant::now();
    for file in &files {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{file}: {e}");
                std::process::exit(1);
            }
        };
        let t = match parse(&text) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{file}: {e}");
                std::process::exit(1);
            }
        };
        // The initial colour: the top-ranked player's round-1 colour, as
        // if the player had an odd pairing number.
        let mut initial = Side::First;
        for (pn, cells) in &t.players {
            if let Some(Cell::Game { colour, .. }) = cells.first() {
                initial = if pn % 2 == 1 { *colour } else { colour.other() };
                break;
            }
        }
        for r in 0..t.rounds {
            let input = round_input(&t, r, initial);
            let t0 = std::time::Instant::now();
            let ours = pair(&input);
            if t0.elapsed().as_secs_f64() > 1.0 {
                slow += 1;
                println!("{file} round {}: {:.1} s", r + 1, t0.elapsed().as_secs_f64());
            }
            rounds += 1;
            let (want_pairs, want_bye) = recorded(&t, r);
            match ours {
                Ok(p) => {
                    if !p.exhaustive {
                        println!("{file} round {}: search not exhaustive", r + 1);
                    }
                    let got: BTreeSet<(u32, u32)> = p.pairs.iter().copied().collect();
                    if got == want_pairs && p.bye == want_bye {
                        same += 1;
                    } else {
                        let only_ours: Vec<_> = got.difference(&want_pairs).collect();
                        let only_file: Vec<_> = want_pairs.difference(&got).collect();
                        println!(
                            "{file} round {}: differs: ours {:?} bye {:?}; file {:?} bye {:?}",
                            r + 1,
                            only_ours,
                            p.bye,
                            only_file,
                            want_bye
                        );
                    }
                }
                Err(e) => {
                    println!("{file} round {}: error: {e}", r + 1);
                    if std::env::var_os("DUMP").is_some() {
                        println!("{}", serde_json::to_string(&input).unwrap());
                    }
                }
            }
        }
    }
    println!(
        "{same} of {rounds} rounds paired identically ({} files, {:.1} s, {slow} rounds over 1 s)",
        files.len(),
        start.elapsed().as_secs_f64()
    );
}
