//! Standings: points, then the tie-breaks a tournament chooses.
//!
//! Every system ranks by points first. The tie-breaks (FIDE C.07 names in
//! brackets) are computed from each player's record of rounds:
//!
//! - [`TieBreak::DirectEncounter`] (DE): among players still tied, the
//!   points they scored against each other, if every pair of them has
//!   played; otherwise it leaves them tied.
//! - [`TieBreak::SonnebornBerger`] (SB): the sum, over games, of each
//!   opponent's final points times the share of a win earned against them
//!   (1 for a win, ½ for a draw).
//! - [`TieBreak::Buchholz`] (BH): the sum of the opponents' final points.
//! - [`TieBreak::BuchholzCut1`] (BH-C1): Buchholz without its lowest entry.
//! - [`TieBreak::Wins`] (WON): games won over the board.
//! - [`TieBreak::ScoreDifference`]: for games that keep a score (Dots), the
//!   sum of own game points minus the opponent's over all games played.
//!
//! Rounds without a game (a bye, a forfeit either way, an absence) count
//! for Buchholz and Sonneborn–Berger as a game against a *dummy opponent*
//! whose points equal the player's own final points, as the FIDE tie-break
//! regulations of 2023 (C.07, article 16) do.

use crate::types::{PlayerId, Points, Side};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// A tie-break criterion, applied in the order the tournament lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TieBreak {
    /// Points among the tied players, when all of them have met.
    DirectEncounter,
    /// Opponents' points weighted by the result against them.
    SonnebornBerger,
    /// Opponents' points.
    Buchholz,
    /// Opponents' points without the lowest.
    BuchholzCut1,
    /// Games won over the board.
    Wins,
    /// Own game points minus the opponents' (Dots).
    ScoreDifference,
}

impl TieBreak {
    /// A short column label: `DE`, `SB`, `BH`, `BH-C1`, `W`, `SD`.
    ///
    /// ```
    /// use tabula_tournament::TieBreak;
    /// assert_eq!(TieBreak::BuchholzCut1.label(), "BH-C1");
    /// ```
    pub fn label(self) -> &'static str {
        match self {
            TieBreak::DirectEncounter => "DE",
            TieBreak::SonnebornBerger => "SB",
            TieBreak::Buchholz => "BH",
            TieBreak::BuchholzCut1 => "BH-C1",
            TieBreak::Wins => "W",
            TieBreak::ScoreDifference => "SD",
        }
    }
}

/// One round of one player's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundRecord {
    /// The opponent, if a game was paired.
    pub opponent: Option<PlayerId>,
    /// The player's side, if a game was paired.
    pub side: Option<Side>,
    /// Points earned in this round.
    pub points: Points,
    /// Whether the game was played over the board.
    pub played: bool,
    /// Whether the player won over the board.
    pub won: bool,
    /// Whether the game was drawn over the board.
    pub drawn: bool,
    /// Own game points minus the opponent's, for scored games.
    pub margin: Option<i32>,
}

impl RoundRecord {
    /// A round without a game (bye, absence), worth `points`.
    ///
    /// ```
    /// use tabula_tournament::{standings::RoundRecord, Points};
    /// let bye = RoundRecord::unplayed(Points::ONE);
    /// assert!(!bye.played && bye.opponent.is_none());
    /// ```
    pub fn unplayed(points: Points) -> RoundRecord {
        RoundRecord { opponent: None, side: None, points, played: false, won: false, drawn: false, margin: None }
    }
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// Place, from 1; players still tied after every tie-break share it.
    pub rank: u32,
    /// The player.
    pub player: PlayerId,
    /// Total points.
    pub points: Points,
    /// Games played over the board.
    pub played: u32,
    /// Wins over the board.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses over the board.
    pub losses: u32,
    /// The tie-break values, in the tournament's order (`None` where a
    /// direct encounter could not be applied).
    pub tiebreaks: Vec<Option<f64>>,
}

/// Rank `players` (by their records, indexed by [`PlayerId`]) by points
/// and then `tiebreaks`. Ties left after all of them keep the given order
/// of `players` (seeding) and share a rank.
///
/// ```
/// use tabula_tournament::standings::{rank, RoundRecord};
/// use tabula_tournament::{PlayerId, Points, Side, TieBreak};
/// let game = |opp: u32, points: i32, side: Side| RoundRecord {
///     opponent: Some(PlayerId(opp)), side: Some(side), points: Points::from_halves(points),
///     played: true, won: points == 2, drawn: points == 1, margin: None,
/// };
/// // Three players; 0 beat 1, 1 beat 2, 2 beat 0: all on 1 point.
/// let records = vec![
///     vec![game(1, 2, Side::First), game(2, 0, Side::Second)],
///     vec![game(0, 0, Side::Second), game(2, 2, Side::First)],
///     vec![game(1, 0, Side::Second), game(0, 2, Side::First)],
/// ];
/// let table = rank(&records, &[PlayerId(0), PlayerId(1), PlayerId(2)], &[TieBreak::SonnebornBerger]);
/// assert!(table.iter().all(|s| s.rank == 1 && s.points == Points::ONE));
/// ```
pub fn rank(records: &[Vec<RoundRecord>], players: &[PlayerId], tiebreaks: &[TieBreak]) -> Vec<Standing> {
    let total: Vec<Points> = records.iter().map(|r| r.iter().map(|x| x.points).sum()).collect();
    let points_of = |p: PlayerId| total[p.index()];
    // Groups of players tied so far, best first; within a group, seeding
    // order.
    let mut order: Vec<PlayerId> = players.to_vec();
    order.sort_by_key(|&p| std::cmp::Reverse(points_of(p)));
    let mut groups: Vec<Vec<PlayerId>> = Vec::new();
    for p in order {
        match groups.last_mut() {
            Some(g) if points_of(g[0]) == points_of(p) => g.push(p),
            _ => groups.push(vec![p]),
        }
    }
    let mut values: Vec<Vec<Option<f64>>> = vec![Vec::new(); records.len()];
    for &tb in tiebreaks {
        let mut next_groups = Vec::new();
        for group in groups {
            let vals: Vec<Option<f64>> = match tb {
                TieBreak::DirectEncounter => direct_encounter(records, &group),
                _ => group.iter().map(|&p| Some(value(records, &total, p, tb))).collect(),
            };
            let mut tagged: Vec<(PlayerId, Option<f64>)> = group.iter().copied().zip(vals).collect();
            for &(p, v) in &tagged {
                values[p.index()].push(v);
            }
            // Stable: equal values keep seeding order.
            tagged.sort_by(|a, b| cmp_value(b.1, a.1));
            let mut sub: Vec<PlayerId> = Vec::new();
            let mut last: Option<Option<f64>> = None;
            for (p, v) in tagged {
                if last.is_some() && last != Some(v) {
                    next_groups.push(std::mem::take(&mut sub));
                }
                last = Some(v);
                sub.push(p);
            }
            next_groups.push(sub);
        }
        groups = next_groups;
    }
    // Players decided before a tie-break still get its value shown.
    for &p in players {
        while values[p.index()].len() < tiebreaks.len() {
            let tb = tiebreaks[values[p.index()].len()];
            let v = match tb {
                TieBreak::DirectEncounter => None,
                _ => Some(value(records, &total, p, tb)),
            };
            values[p.index()].push(v);
        }
    }
    let mut out = Vec::with_capacity(players.len());
    let mut place = 1;
    for group in groups {
        for &p in &group {
            let rec = &records[p.index()];
            let played = rec.iter().filter(|r| r.played).count() as u32;
            let wins = rec.iter().filter(|r| r.played && r.won).count() as u32;
            let draws = rec.iter().filter(|r| r.played && r.drawn).count() as u32;
            out.push(Standing {
                rank: place,
                player: p,
                points: total[p.index()],
                played,
                wins,
                draws,
                losses: played - wins - draws,
                tiebreaks: values[p.index()].clone(),
            });
        }
        place += group.len() as u32;
    }
    out
}

fn cmp_value(a: Option<f64>, b: Option<f64>) -> Ordering {
    match (a, b) {
        (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => Ordering::Equal,
    }
}

/// The opponent's points for Buchholz-type sums: the real opponent's final
/// points, or the player's own for a round without a game.
fn opponent_points(total: &[Points], p: PlayerId, r: &RoundRecord) -> f64 {
    match (r.played, r.opponent) {
        (true, Some(o)) => total[o.index()].as_f64(),
        _ => total[p.index()].as_f64(),
    }
}

fn value(records: &[Vec<RoundRecord>], total: &[Points], p: PlayerId, tb: TieBreak) -> f64 {
    let rec = &records[p.index()];
    match tb {
        TieBreak::Buchholz | TieBreak::BuchholzCut1 => {
            let mut list: Vec<f64> = rec.iter().map(|r| opponent_points(total, p, r)).collect();
            if tb == TieBreak::BuchholzCut1 && !list.is_empty() {
                list.sort_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
                list.remove(0);
            }
            list.iter().sum()
        }
        TieBreak::SonnebornBerger => {
            // A round's weight is its points as a share of the best result
            // anyone earned in a round (a win), so custom scoring works.
            let unit = records
                .iter()
                .flat_map(|r| r.iter().filter(|x| x.played && x.won).map(|x| x.points))
                .max()
                .unwrap_or(Points::ONE)
                .as_f64()
                .max(0.5);
            rec.iter().map(|r| r.points.as_f64() / unit * opponent_points(total, p, r)).sum()
        }
        TieBreak::Wins => rec.iter().filter(|r| r.played && r.won).count() as f64,
        // `+ 0.0` turns the empty sum's -0.0 into 0.
        TieBreak::ScoreDifference => rec.iter().filter_map(|r| r.margin).map(f64::from).sum::<f64>() + 0.0,
        TieBreak::DirectEncounter => 0.0,
    }
}

/// Points scored against each other by a tied group, if every pair of them
/// has met; `None` for everyone otherwise (or for a group of one).
fn direct_encounter(records: &[Vec<RoundRecord>], group: &[PlayerId]) -> Vec<Option<f64>> {
    if group.len() < 2 {
        return vec![None; group.len()];
    }
    for (i, &a) in group.iter().enumerate() {
        for &b in &group[i + 1..] {
            if !records[a.index()].iter().any(|r| r.played && r.opponent == Some(b)) {
                return vec![None; group.len()];
            }
        }
    }
    group
        .iter()
        .map(|&a| {
            Some(
                records[a.index()]
                    .iter()
                    .filter(|r| r.played && r.opponent.is_some_and(|o| group.contains(&o)))
                    .map(|r| r.points.as_f64())
                    .sum(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(opp: u32, halves: i32, side: Side) -> RoundRecord {
        RoundRecord {
            opponent: Some(PlayerId(opp)),
            side: Some(side),
            points: Points::from_halves(halves),
            played: true,
            won: halves == 2,
            drawn: halves == 1,
            margin: None,
        }
    }

    /// A four-player round robin by hand: A beats B and C, draws D;
    /// B beats C and D; C beats D; so A 2.5, B 2, C 1, D 0.5.
    fn four() -> Vec<Vec<RoundRecord>> {
        use Side::{First as F, Second as S};
        vec![
            vec![g(1, 2, F), g(2, 2, S), g(3, 1, F)],
            vec![g(0, 0, S), g(2, 2, F), g(3, 2, S)],
            vec![g(0, 0, F), g(1, 0, S), g(3, 2, F)],
            vec![g(0, 1, S), g(1, 0, F), g(2, 0, S)],
        ]
    }

    #[test]
    fn values_by_hand() {
        let r = four();
        let ids: Vec<PlayerId> = (0..4).map(PlayerId).collect();
        let t =
            rank(&r, &ids, &[TieBreak::SonnebornBerger, TieBreak::Buchholz, TieBreak::BuchholzCut1, TieBreak::Wins]);
        let order: Vec<u32> = t.iter().map(|s| s.player.0).collect();
        assert_eq!(order, vec![0, 1, 2, 3]);
        // A: SB = B(2) + C(1) + ½·D(0.5) = 3.25; BH = 2 + 1 + 0.5 = 3.5; cut-1 drops 0.5.
        assert_eq!(t[0].tiebreaks, vec![Some(3.25), Some(3.5), Some(3.0), Some(2.0)]);
        // D: SB = ½·A(2.5) = 1.25; BH = 2.5 + 2 + 1 = 5.5.
        assert_eq!(t[3].tiebreaks, vec![Some(1.25), Some(5.5), Some(4.5), Some(0.0)]);
        assert_eq!((t[0].wins, t[0].draws, t[0].losses), (2, 1, 0));
        assert_eq!((t[3].wins, t[3].draws, t[3].losses), (0, 1, 2));
    }

    #[test]
    fn direct_encounter_breaks_a_two_way_tie_only_if_they_met() {
        use Side::{First as F, Second as S};
        // 0 and 1 both on 1 point; 0 beat 1.
        let met = [vec![g(1, 2, F), g(2, 0, S)], vec![g(0, 0, S), g(2, 2, F)], vec![g(1, 0, S), g(0, 2, F)]];
        let ids: Vec<PlayerId> = (0..3).map(PlayerId).collect();
        let t = rank(
            &met[..2].iter().cloned().chain([vec![]]).collect::<Vec<_>>(),
            &ids[..2],
            &[TieBreak::DirectEncounter],
        );
        assert_eq!(t[0].player, PlayerId(0));
        assert_eq!(t[0].rank, 1);
        assert_eq!(t[1].rank, 2);
        // Two players tied who never met: direct encounter does not apply.
        let apart = vec![vec![g(2, 2, F)], vec![g(3, 2, F)], vec![g(0, 0, S)], vec![g(1, 0, S)]];
        let ids: Vec<PlayerId> = (0..4).map(PlayerId).collect();
        let t = rank(&apart, &ids, &[TieBreak::DirectEncounter]);
        assert_eq!((t[0].rank, t[1].rank), (1, 1));
        assert_eq!(t[0].tiebreaks, vec![None]);
    }

    #[test]
    fn unplayed_rounds_count_as_a_dummy_with_own_points() {
        // Player 0: a bye (1 point) and a win over 1, who lost both.
        let r = vec![
            vec![RoundRecord::unplayed(Points::ONE), g(1, 2, Side::First)],
            vec![RoundRecord::unplayed(Points::ZERO), g(0, 0, Side::Second)],
        ];
        let t = rank(&r, &[PlayerId(0), PlayerId(1)], &[TieBreak::Buchholz, TieBreak::SonnebornBerger]);
        // Buchholz of 0: dummy (own 2) + opponent 0 = 2; SB: bye 1×2 + win×0 = 2.
        assert_eq!(t[0].tiebreaks, vec![Some(2.0), Some(2.0)]);
        // Player 1: dummy (own 0) + opponent 2 = 2; SB 0.
        assert_eq!(t[1].tiebreaks, vec![Some(2.0), Some(0.0)]);
    }

    #[test]
    fn score_difference_sums_margins() {
        let mut r = four();
        r[0][0].margin = Some(5);
        r[0][2].margin = Some(-2);
        let ids: Vec<PlayerId> = (0..4).map(PlayerId).collect();
        let t = rank(&r, &ids, &[TieBreak::ScoreDifference]);
        assert_eq!(t[0].tiebreaks, vec![Some(3.0)]);
    }
}
