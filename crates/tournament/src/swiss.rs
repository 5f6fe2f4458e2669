//! A Swiss tournament's history, and the Dutch-system input it gives for
//! the next round.
//!
//! The rules behind the conversion (FIDE C.04.1-C.04.3): only games played
//! over the board count as meetings and for colours; a forfeited game may
//! be paired again; a player who did not play a round (bye, forfeit,
//! absence) received a downfloat in it; a pairing-allocated bye or a
//! forfeit win makes a player ineligible for another bye; pairing numbers
//! count only players who have taken part in a pairing so far (later
//! entrants are numbered after them, as late entries).

use crate::dutch::{DutchPlayer, DutchRound, Float};
use crate::types::{GameResult, Points, Scoring, Side};
use serde::{Deserialize, Serialize};

/// One game of a Swiss round, between player indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissGame {
    /// The player who moved first.
    pub first: usize,
    /// The player who moved second.
    pub second: usize,
    /// The result.
    pub result: GameResult,
}

/// What happened in one round.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissRound {
    /// The games paired.
    pub games: Vec<SwissGame>,
    /// The player who got the pairing-allocated bye.
    pub bye: Option<usize>,
    /// Players not paired this round (absent, withdrawn, not yet entered),
    /// with the points the round gave them.
    pub absent: Vec<(usize, Points)>,
}

/// Each player's points per round, in the order of `rounds`.
fn round_points(players: usize, rounds: &[SwissRound], scoring: &Scoring) -> Vec<Vec<Points>> {
    let mut pts = vec![vec![Points::ZERO; rounds.len()]; players];
    for (r, round) in rounds.iter().enumerate() {
        for g in &round.games {
            pts[g.first][r] = scoring.points(&g.result, Side::First);
            pts[g.second][r] = scoring.points(&g.result, Side::Second);
        }
        if let Some(b) = round.bye {
            pts[b][r] = scoring.bye;
        }
        for &(p, points) in &round.absent {
            pts[p][r] = points;
        }
    }
    pts
}

/// The Dutch-system input for pairing round `rounds.len() + 1`.
///
/// `seeds` lists the player indices in initial ranking order (strongest
/// first); `to_pair` are the players taking part in this round; `total`
/// is the number of rounds of the tournament.
///
/// ```
/// use tabula_tournament::swiss::{dutch_input, SwissGame, SwissRound};
/// use tabula_tournament::{GameResult, Scoring, Side};
/// // Round 1 of four players was 0-2 (0 won) and 3-1 (draw).
/// let r1 = SwissRound {
///     games: vec![
///         SwissGame { first: 0, second: 2, result: GameResult::win(Side::First) },
///         SwissGame { first: 3, second: 1, result: GameResult::draw() },
///     ],
///     ..Default::default()
/// };
/// let input = dutch_input(&[0, 1, 2, 3], &[r1], &[0, 1, 2, 3], &Scoring::default(), 3, Side::First);
/// let p0 = input.players.iter().find(|p| p.id == 0).unwrap();
/// assert_eq!(p0.score, 2); // half points
/// assert_eq!(p0.opponents, vec![2]);
/// assert_eq!(p0.colours, vec![Side::First]);
/// ```
pub fn dutch_input(
    seeds: &[usize],
    rounds: &[SwissRound],
    to_pair: &[usize],
    scoring: &Scoring,
    total: u32,
    initial: Side,
) -> DutchRound {
    let players =
        seeds.iter().copied().max().map_or(0, |m| m + 1).max(to_pair.iter().copied().max().map_or(0, |m| m + 1));
    let pts = round_points(players, rounds, scoring);
    let score_before = |p: usize, r: usize| -> i32 { pts[p][..r].iter().map(|x| x.halves()).sum() };
    // Effective pairing numbers: players who have been in a pairing (a game
    // or the bye) or are paired now, in seeding order.
    let mut in_pairing = vec![false; players];
    for round in rounds {
        for g in &round.games {
            in_pairing[g.first] = true;
            in_pairing[g.second] = true;
        }
        if let Some(b) = round.bye {
            in_pairing[b] = true;
        }
    }
    for &p in to_pair {
        in_pairing[p] = true;
    }
    let mut number = vec![0u32; players];
    let mut next = 1;
    for &p in seeds {
        if in_pairing[p] {
            number[p] = next;
            next += 1;
        }
    }
    let mut out = Vec::with_capacity(to_pair.len());
    for &p in to_pair {
        let mut opponents = Vec::new();
        let mut colours = Vec::new();
        let mut bye_eligible = true;
        // Per round: the opponent over the board, if the player played.
        let mut played_against: Vec<Option<usize>> = vec![None; rounds.len()];
        for (r, round) in rounds.iter().enumerate() {
            for g in &round.games {
                let (me, opp, side) = if g.first == p {
                    (true, g.second, Side::First)
                } else if g.second == p {
                    (true, g.first, Side::Second)
                } else {
                    (false, 0, Side::First)
                };
                if !me {
                    continue;
                }
                if g.result.was_played() {
                    opponents.push(opp as u32);
                    colours.push(side);
                    played_against[r] = Some(opp);
                } else if g.result.winner() == Some(side) {
                    bye_eligible = false;
                }
            }
            if round.bye == Some(p) {
                bye_eligible = false;
            }
        }
        let float_in = |r: usize| -> Float {
            match played_against[r] {
                Some(opp) => match score_before(p, r).cmp(&score_before(opp, r)) {
                    std::cmp::Ordering::Greater => Float::Down,
                    std::cmp::Ordering::Less => Float::Up,
                    std::cmp::Ordering::Equal => Float::None,
                },
                None => Float::Down,
            }
        };
        let n = rounds.len();
        let floats =
            [if n >= 1 { float_in(n - 1) } else { Float::None }, if n >= 2 { float_in(n - 2) } else { Float::None }];
        out.push(DutchPlayer {
            id: p as u32,
            pairing_number: number[p],
            score: score_before(p, n),
            opponents,
            colours,
            floats,
            bye_eligible,
        });
    }
    DutchRound {
        players: out,
        win: scoring.win.halves().max(1),
        rounds_played: rounds.len() as u32,
        final_round: rounds.len() as u32 + 1 >= total,
        initial_colour: initial,
    }
}
