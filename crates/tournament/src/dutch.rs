//! The FIDE Dutch system (FIDE Handbook C.04.3, the text approved at the 87th
//! FIDE Congress, Baku 2016, with the definitions added at Goynuk 2017).
//!
//! The rules define the pairing of a round bracket by bracket, from the top
//! scoregroup down. In each bracket they generate candidates in a fixed
//! order (transpositions of S2, then exchanges between S1 and S2, D.1-D.3)
//! and take the first candidate that is *perfect*, or else the best one by
//! the quality criteria C.5-C.19 in priority order, the earliest generated
//! among equals (B.8). We generate exactly that sequence, depth first, and
//! cut branches that can no longer beat the best candidate found so far:
//! every criterion only grows as pairs are added, so a partial candidate
//! that already compares worse or equal cannot end up better or earlier.
//! The search stops at the first candidate that meets lower bounds computed
//! in advance (a perfect one). The completion criterion C.4, the collapsed
//! last bracket and the pairing-allocated bye follow A.9 and C.2.
//!
//! Scores are in half points; a point is `win` half points.

use crate::matching::Matching;
use crate::types::Side;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::HashMap;

/// A float a player received in an earlier round (A.4).
///
/// A player who played a lower-scored opponent received a downfloat, the
/// opponent an upfloat; a player who did not play (bye, forfeit, absence)
/// received a downfloat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Float {
    /// Paired within the own scoregroup.
    #[default]
    None,
    /// Paired with a lower score, or did not play.
    Down,
    /// Paired with a higher score.
    Up,
}

/// One player as the Dutch system sees them before a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DutchPlayer {
    /// The caller's identifier, returned in the pairing.
    pub id: u32,
    /// Pairing number from the initial ranking list (A.1), from 1.
    pub pairing_number: u32,
    /// Score before the round, in half points.
    pub score: i32,
    /// Ids of the opponents met over the board (forfeited games do not
    /// count: those players may meet again).
    pub opponents: Vec<u32>,
    /// Colours of the games played, oldest first (unplayed rounds left out,
    /// C.04.2.D.5).
    pub colours: Vec<Side>,
    /// Floats received: `[previous round, the round before]`.
    pub floats: [Float; 2],
    /// `false` once the player has had a pairing-allocated bye or a forfeit
    /// win (C.2).
    pub bye_eligible: bool,
}

/// The input for pairing one round.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DutchRound {
    /// The players to pair (absent and withdrawn players left out).
    pub players: Vec<DutchPlayer>,
    /// Half points for a win: the "point" of the score differences (A.8).
    pub win: i32,
    /// Rounds already played; with `final_round` it defines topscorers.
    pub rounds_played: u32,
    /// Whether this is the last round (topscorers, A.7).
    pub final_round: bool,
    /// The colour drawn by lot for the first player (E.5).
    pub initial_colour: Side,
}

/// One round's pairing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DutchPairing {
    /// `(first, second)` by id, in board order (C.04.2.D.9: the higher
    /// player's score, the sum of scores, the higher player's rank).
    pub pairs: Vec<(u32, u32)>,
    /// The player who gets the pairing-allocated bye.
    pub bye: Option<u32>,
    /// `false` if a bracket's search hit its work limit and took the best
    /// candidate found so far instead of proving it optimal.
    pub exhaustive: bool,
}

/// Why a round could not be paired.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DutchError {
    /// Two players share an id or a pairing number.
    #[error("players must have distinct ids and pairing numbers (duplicate {0})")]
    Duplicate(u32),
    /// No pairing complies with the absolute criteria (everyone has met
    /// everyone, or the bye cannot go to anyone eligible).
    #[error("no pairing of this round satisfies the absolute criteria (no rematches, at most one bye per player)")]
    Impossible,
    /// The search ran out of its work limit before finding any candidate.
    #[error("the pairing search gave up in a bracket of {0} players")]
    TooHard(usize),
}

/// Pair one round by the Dutch system.
///
/// ```
/// use tabula_tournament::dutch::{pair, DutchPlayer, DutchRound, Float};
/// use tabula_tournament::Side;
/// // Round 1 of four players: 1-3 and 4-2 (1 takes the initial colour).
/// let players = (1..=4)
///     .map(|n| DutchPlayer {
///         id: n, pairing_number: n, score: 0, opponents: vec![], colours: vec![],
///         floats: [Float::None; 2], bye_eligible: true,
///     })
///     .collect();
/// let round = DutchRound { players, win: 2, rounds_played: 0, final_round: false, initial_colour: Side::First };
/// let p = pair(&round).unwrap();
/// assert_eq!(p.pairs, vec![(1, 3), (4, 2)]);
/// assert_eq!(p.bye, None);
/// ```
pub fn pair(round: &DutchRound) -> Result<DutchPairing, DutchError> {
    let mut ctx = Ctx::new(round)?;
    let (pairs, bye) = ctx.pair_round()?;
    let mut out: Vec<(usize, usize)> = pairs
        .into_iter()
        .map(|(a, b)| {
            let (hi, lo) = if a < b { (a, b) } else { (b, a) };
            if ctx.colour_of_higher(hi, lo) == Side::First {
                (hi, lo)
            } else {
                (lo, hi)
            }
        })
        .collect();
    // Board order: higher player's score, then the sum, then the higher
    // player's rank (indices are ranks).
    out.sort_by_key(|&(a, b)| {
        let (hi, lo) = (a.min(b), a.max(b));
        (std::cmp::Reverse(ctx.score[hi]), std::cmp::Reverse(ctx.score[hi] + ctx.score[lo]), hi)
    });
    Ok(DutchPairing {
        pairs: out.into_iter().map(|(a, b)| (ctx.id[a], ctx.id[b])).collect(),
        bye: bye.map(|b| ctx.id[b]),
        exhaustive: ctx.exhaustive,
    })
}

/// Pairs of players by rank.
type Pairs = Vec<(usize, usize)>;
/// C.7's measure of the next bracket: pairs short of the maximum, and PSD.
type NextValue = (u32, Vec<i32>);

/// A colour preference (A.6): the colour and its strength.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pref {
    colour: Option<Side>,
    /// 0 none, 1 mild, 2 strong, 3 absolute.
    strength: u8,
}

const MILD: u8 = 1;
const STRONG: u8 = 2;
const ABSOLUTE: u8 = 3;

fn preference(colours: &[Side]) -> (Pref, i32) {
    let cd: i32 = colours.iter().map(|&c| if c == Side::First { 1 } else { -1 }).sum();
    let Some(&last) = colours.last() else {
        return (Pref { colour: None, strength: 0 }, 0);
    };
    let two_same = colours.len() >= 2 && colours[colours.len() - 2] == last;
    let pref = if cd > 1 {
        Pref { colour: Some(Side::Second), strength: ABSOLUTE }
    } else if cd < -1 {
        Pref { colour: Some(Side::First), strength: ABSOLUTE }
    } else if two_same {
        Pref { colour: Some(last.other()), strength: ABSOLUTE }
    } else if cd == 1 {
        Pref { colour: Some(Side::Second), strength: STRONG }
    } else if cd == -1 {
        Pref { colour: Some(Side::First), strength: STRONG }
    } else {
        Pref { colour: Some(last.other()), strength: MILD }
    };
    (pref, cd)
}

/// The quality of a candidate: one entry per criterion C.5-C.19, each
/// smaller-is-better. Lists of score differences are sorted from the
/// highest and compared as A.8 compares PSDs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Quality {
    /// C.5: pairs short of the maximum.
    c5: u32,
    /// C.6: the bracket's PSD.
    c6: Vec<i32>,
    /// C.7: pairs short of the maximum in the next bracket, and its PSD.
    c7: (u32, Vec<i32>),
    /// C.8-C.15 counts.
    counts: [u32; 8],
    /// C.16-C.19 score differences.
    lists: [Vec<i32>; 4],
}

/// Compare two lists sorted from the highest, as PSDs: the one with more
/// entries of the highest value where they differ is worse. For lists of
/// equal length this is the lexicographic order; for a list and a longer
/// list containing it, the shorter is smaller, so adding entries never
/// makes a list better (what the search's cut-offs rely on).
fn cmp_sd(a: &[i32], b: &[i32]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.get(i), b.get(j)) {
            (None, None) => return Ordering::Equal,
            (Some(_), None) => return Ordering::Greater,
            (None, Some(_)) => return Ordering::Less,
            (Some(x), Some(y)) => match x.cmp(y) {
                Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
                other => return other,
            },
        }
    }
}

impl Quality {
    fn cmp(&self, other: &Quality) -> Ordering {
        self.c5
            .cmp(&other.c5)
            .then_with(|| cmp_sd(&self.c6, &other.c6))
            .then_with(|| self.c7.0.cmp(&other.c7.0))
            .then_with(|| cmp_sd(&self.c7.1, &other.c7.1))
            .then_with(|| self.counts.cmp(&other.counts))
            .then_with(|| cmp_sd(&self.lists[0], &other.lists[0]))
            .then_with(|| cmp_sd(&self.lists[1], &other.lists[1]))
            .then_with(|| cmp_sd(&self.lists[2], &other.lists[2]))
            .then_with(|| cmp_sd(&self.lists[3], &other.lists[3]))
    }
}

fn insert_desc(list: &mut Vec<i32>, v: i32) {
    let pos = list.partition_point(|&x| x > v);
    list.insert(pos, v);
}

fn remove_desc(list: &mut Vec<i32>, v: i32) {
    let pos = list.partition_point(|&x| x > v);
    debug_assert_eq!(list.get(pos), Some(&v));
    list.remove(pos);
}

/// Indices into `Quality::counts`.
const C8: usize = 0;
const C9: usize = 1;
const C10: usize = 2;
const C11: usize = 3;
const C12: usize = 4;
const C13: usize = 5;
const C14: usize = 6;
const C15: usize = 7;

/// Work limit per bracket (search nodes). Far above what real brackets
/// need; it only guards against pathological inputs.
const BUDGET: u64 = 1_000_000;
/// Largest number of floater sets enumerated for the lower bounds.
const FLOATER_SETS: u64 = 4_000;

struct Ctx {
    n: usize,
    id: Vec<u32>,
    pn: Vec<u32>,
    score: Vec<i32>,
    win: i32,
    pref: Vec<Pref>,
    cd: Vec<i32>,
    colours: Vec<Vec<Side>>,
    floats: Vec<[Float; 2]>,
    bye_ok: Vec<bool>,
    top: Vec<bool>,
    compat: Vec<bool>,
    initial: Side,
    exhaustive: bool,
}

/// How a bracket is paired (A.9).
#[derive(Clone)]
enum Mode {
    /// An ordinary bracket; C.7 looks at the next scoregroup.
    Normal { next: Vec<usize> },
    /// The penultimate pairing bracket: its floaters must let `rest` be
    /// paired completely (C.4).
    Ppb { rest: Vec<usize> },
    /// The last bracket (or the collapsed last bracket): everyone is paired
    /// but at most one player, who gets the bye.
    Last,
}

/// A bracket's mode inside the search.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Normal,
    Ppb,
    Last,
}

/// The chosen pairing of a bracket.
struct Outcome {
    pairs: Vec<(usize, usize)>,
    floaters: Vec<usize>,
}

impl Ctx {
    fn new(round: &DutchRound) -> Result<Ctx, DutchError> {
        let mut order: Vec<&DutchPlayer> = round.players.iter().collect();
        order.sort_by_key(|p| (std::cmp::Reverse(p.score), p.pairing_number));
        let mut numbers = std::collections::HashSet::new();
        for p in &order {
            if !numbers.insert(p.pairing_number) {
                return Err(DutchError::Duplicate(p.pairing_number));
            }
        }
        let n = order.len();
        let mut index = HashMap::new();
        for (i, p) in order.iter().enumerate() {
            if index.insert(p.id, i).is_some() {
                return Err(DutchError::Duplicate(p.id));
            }
        }
        let max_score = round.rounds_played as i32 * round.win;
        let (pref, cd): (Vec<Pref>, Vec<i32>) = order.iter().map(|p| preference(&p.colours)).unzip();
        let top: Vec<bool> = order.iter().map(|p| round.final_round && 2 * p.score > max_score).collect();
        let mut compat = vec![false; n * n];
        for a in 0..n {
            for b in 0..n {
                if a == b {
                    continue;
                }
                let met = order[a].opponents.contains(&order[b].id) || order[b].opponents.contains(&order[a].id);
                // C.3: two non-topscorers with the same absolute preference.
                let clash = pref[a].strength == ABSOLUTE
                    && pref[b].strength == ABSOLUTE
                    && pref[a].colour == pref[b].colour
                    && !top[a]
                    && !top[b];
                compat[a * n + b] = !met && !clash;
            }
        }
        Ok(Ctx {
            n,
            id: order.iter().map(|p| p.id).collect(),
            pn: order.iter().map(|p| p.pairing_number).collect(),
            score: order.iter().map(|p| p.score).collect(),
            win: round.win.max(1),
            pref,
            cd,
            colours: order.iter().map(|p| p.colours.clone()).collect(),
            floats: order.iter().map(|p| p.floats).collect(),
            bye_ok: order.iter().map(|p| p.bye_eligible).collect(),
            top,
            compat,
            initial: round.initial_colour,
            exhaustive: true,
        })
    }

    fn ok(&self, a: usize, b: usize) -> bool {
        self.compat[a * self.n + b]
    }

    /// Whether pairing `a` with `b` costs a colour preference (C.10), and
    /// whether the one who loses it has a strong or absolute one (C.11).
    fn conflict(&self, a: usize, b: usize) -> (bool, bool) {
        if a >= self.n || b >= self.n {
            return (false, false);
        }
        let (pa, pb) = (self.pref[a], self.pref[b]);
        if pa.colour.is_none() || pa.colour != pb.colour {
            return (false, false);
        }
        (true, pa.strength >= STRONG && pb.strength >= STRONG)
    }

    /// The colour of `hi` (the higher ranked, `hi < lo`) against `lo`, by
    /// the allocation rules E.1-E.5.
    fn colour_of_higher(&self, hi: usize, lo: usize) -> Side {
        let (pa, pb) = (self.pref[hi], self.pref[lo]);
        // E.1: grant both preferences.
        match (pa.colour, pb.colour) {
            (Some(a), Some(b)) if a != b => return a,
            (Some(a), None) => return a,
            (None, Some(b)) => return b.other(),
            _ => {}
        }
        if let (Some(a), Some(_)) = (pa.colour, pb.colour) {
            // E.2: the stronger preference; two absolutes: the wider
            // colour difference.
            if pa.strength != pb.strength {
                return if pa.strength > pb.strength { a } else { a.other() };
            }
            if pa.strength == ABSOLUTE && self.cd[hi].abs() != self.cd[lo].abs() {
                return if self.cd[hi].abs() > self.cd[lo].abs() { a } else { a.other() };
            }
        }
        // E.3: alternate from the latest round in which they differed,
        // counting played games only, aligned from the most recent.
        let (ca, cb) = (&self.colours[hi], &self.colours[lo]);
        for (x, y) in ca.iter().rev().zip(cb.iter().rev()) {
            if x != y {
                return x.other();
            }
        }
        // E.4: the higher ranked player's preference.
        if let Some(a) = pa.colour {
            return a;
        }
        // E.5: by pairing number parity and the initial colour.
        if self.pn[hi] % 2 == 1 {
            self.initial
        } else {
            self.initial.other()
        }
    }

    /// Add (sign 1) or remove (sign -1) a pair's contribution to `q`.
    fn apply_pair(&self, q: &mut Quality, a: usize, b: usize, add: bool) {
        let (hi, lo) = if a < b { (a, b) } else { (b, a) };
        let sd = self.score[hi] - self.score[lo];
        let edit = |list: &mut Vec<i32>, v: i32| if add { insert_desc(list, v) } else { remove_desc(list, v) };
        let step = |c: &mut u32, on: bool| {
            if on {
                if add {
                    *c += 1
                } else {
                    *c -= 1
                }
            }
        };
        edit(&mut q.c6, sd);
        let (pa, pb) = (self.pref[hi], self.pref[lo]);
        let hi_colour = self.colour_of_higher(hi, lo);
        if pa.colour.is_some() && pa.colour == pb.colour {
            // Exactly one of them misses the preference (C.10); C.11 if that
            // one's preference is strong or absolute.
            let loser = if Some(hi_colour) == pa.colour { pb } else { pa };
            step(&mut q.counts[C10], true);
            step(&mut q.counts[C11], loser.strength >= STRONG);
        }
        if self.top[hi] || self.top[lo] {
            for (p, c) in [(hi, hi_colour), (lo, hi_colour.other())] {
                let cd = self.cd[p] + if c == Side::First { 1 } else { -1 };
                step(&mut q.counts[C8], cd.abs() > 2);
                let h = &self.colours[p];
                step(&mut q.counts[C9], h.len() >= 2 && h[h.len() - 1] == c && h[h.len() - 2] == c);
            }
        }
        if sd > 0 {
            let (fh, fl) = (self.floats[hi], self.floats[lo]);
            step(&mut q.counts[C12], fh[0] == Float::Down);
            step(&mut q.counts[C14], fh[1] == Float::Down);
            step(&mut q.counts[C13], fl[0] == Float::Up);
            step(&mut q.counts[C15], fl[1] == Float::Up);
            if fh[0] == Float::Down {
                edit(&mut q.lists[0], sd);
            }
            if fl[0] == Float::Up {
                edit(&mut q.lists[1], sd);
            }
            if fh[1] == Float::Down {
                edit(&mut q.lists[2], sd);
            }
            if fl[1] == Float::Up {
                edit(&mut q.lists[3], sd);
            }
        }
    }

    /// Add or remove a downfloater's contribution; `low` is the bracket's
    /// lowest score.
    fn apply_floater(&self, q: &mut Quality, f: usize, low: i32, add: bool) {
        let sd = self.score[f] - (low - self.win);
        let edit = |list: &mut Vec<i32>, v: i32| if add { insert_desc(list, v) } else { remove_desc(list, v) };
        let delta: i32 = if add { 1 } else { -1 };
        edit(&mut q.c6, sd);
        let fl = self.floats[f];
        if fl[0] == Float::Down {
            q.counts[C12] = (q.counts[C12] as i32 + delta) as u32;
            edit(&mut q.lists[0], sd);
        }
        if fl[1] == Float::Down {
            q.counts[C14] = (q.counts[C14] as i32 + delta) as u32;
            edit(&mut q.lists[2], sd);
        }
    }

    /// Whether `floaters` (which will all be moved-down players together,
    /// so never paired with each other) and `rest` can all be paired, with
    /// at most one eligible player left for the bye.
    fn completable(&self, floaters: &[usize], rest: &[usize]) -> bool {
        let all: Vec<usize> = floaters.iter().chain(rest).copied().collect();
        let nf = floaters.len();
        let odd = all.len() % 2 == 1;
        let size = all.len() + usize::from(odd);
        let mut m = Matching::new(size, |u, v| {
            if v == all.len() {
                return self.bye_ok[all[u]];
            }
            !(u < nf && v < nf) && self.ok(all[u], all[v])
        });
        m.maximize() * 2 == size
    }

    /// The most pairs in a bracket whose first `mdps` players are moved
    /// down (they pair only with residents), and the most moved-down
    /// players that can be paired (B.1: MaxPairs and M1).
    fn bracket_limits(&self, players: &[usize], mdps: usize) -> (usize, usize) {
        let max_pairs =
            Matching::new(players.len(), |u, v| !(u < mdps && v < mdps) && self.ok(players[u], players[v])).maximize();
        let m1 =
            Matching::new(players.len(), |u, v| u < mdps && v >= mdps && self.ok(players[u], players[v])).maximize();
        (max_pairs, m1.min(max_pairs))
    }

    /// C.7's view of the next bracket when `floaters` move down into the
    /// scoregroup `next`: the pairs it falls short of the maximum, and the
    /// smallest PSD it allows with the most pairs (the highest moved-down
    /// players paired first: coverable sets of them form a matroid, so the
    /// greedy choice is optimal).
    fn next_bracket_value(&self, floaters: &[usize], next: &[usize]) -> (u32, Vec<i32>) {
        let mut players: Vec<usize> = floaters.to_vec();
        players.sort_unstable();
        let nf = players.len();
        players.extend_from_slice(next);
        let (max_pairs, _) = self.bracket_limits(&players, nf);
        // Greedy: try to pair each moved-down player, highest first.
        let mut m = Matching::new(players.len(), |u, v| u < nf && v >= nf && self.ok(players[u], players[v]));
        let mut paired = 0;
        let resident_score = next.first().map(|&r| self.score[r]).unwrap_or(0);
        let mut psd = Vec::with_capacity(players.len());
        for (f, &player) in players.iter().enumerate().take(nf) {
            if m.augment_from(f) {
                paired += 1;
                psd.push(self.score[player] - resident_score);
            } else {
                psd.push(self.score[player] - (resident_score - self.win));
            }
        }
        let unpaired_residents = players.len() - 2 * max_pairs - (nf - paired);
        psd.extend(std::iter::repeat_n(self.win, unpaired_residents));
        psd.extend(std::iter::repeat_n(0, max_pairs - paired));
        psd.sort_unstable_by(|a, b| b.cmp(a));
        ((players.len() / 2 - max_pairs) as u32, psd)
    }

    /// Pair the whole round (A.9): bracket by bracket, collapsing the rest
    /// into one last bracket when the round could not be completed.
    fn pair_round(&mut self) -> Result<(Pairs, Option<usize>), DutchError> {
        if !self.completable(&[], &(0..self.n).collect::<Vec<_>>()) {
            return Err(DutchError::Impossible);
        }
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for i in 0..self.n {
            match groups.last_mut() {
                Some(g) if self.score[g[0]] == self.score[i] => g.push(i),
                _ => groups.push(vec![i]),
            }
        }
        // Each committed bracket: its moved-down players and its outcome.
        let mut done: Vec<(Vec<usize>, Outcome)> = Vec::new();
        let mut mdps: Vec<usize> = Vec::new();
        let mut g = 0;
        loop {
            let bracket: Vec<usize> = mdps.iter().chain(&groups[g]).copied().collect();
            if g + 1 == groups.len() {
                let out = self.pair_bracket(&bracket, mdps.len(), Mode::Last)?.ok_or(DutchError::Impossible)?;
                done.push((mdps, out));
                break;
            }
            let next = groups[g + 1].clone();
            let out = self.pair_bracket(&bracket, mdps.len(), Mode::Normal { next })?.ok_or(DutchError::Impossible)?;
            let rest: Vec<usize> = groups[g + 1..].concat();
            if self.completable(&out.floaters, &rest) {
                let floaters = out.floaters.clone();
                // Keep the bracket's own moved-down players for backtracking.
                done.push((std::mem::replace(&mut mdps, floaters), out));
                g += 1;
                continue;
            }
            // This bracket is the penultimate one: re-pair it so that its
            // floaters and everyone below form a complete last bracket;
            // if it cannot, the bracket above takes that role.
            let mut ppb_mdps = bracket[..bracket.len() - groups[g].len()].to_vec();
            loop {
                let ppb: Vec<usize> = ppb_mdps.iter().chain(&groups[g]).copied().collect();
                let rest: Vec<usize> = groups[g + 1..].concat();
                if let Some(out) = self.pair_bracket(&ppb, ppb_mdps.len(), Mode::Ppb { rest: rest.clone() })? {
                    let clb: Vec<usize> = out.floaters.iter().chain(&rest).copied().collect();
                    let nf = out.floaters.len();
                    let last = self.pair_bracket(&clb, nf, Mode::Last)?.ok_or(DutchError::Impossible)?;
                    done.push((ppb_mdps, out));
                    done.push((Vec::new(), last));
                    break;
                }
                let (prev_mdps, _) = done.pop().ok_or(DutchError::Impossible)?;
                ppb_mdps = prev_mdps;
                g -= 1;
            }
            break;
        }
        let mut pairs = Vec::new();
        let mut bye = None;
        let total = done.len();
        for (k, (_, out)) in done.into_iter().enumerate() {
            pairs.extend(out.pairs);
            if k + 1 == total {
                debug_assert!(out.floaters.len() <= 1);
                bye = out.floaters.first().copied();
            }
        }
        Ok((pairs, bye))
    }

    /// Pair one bracket; `None` if no candidate meets the absolute criteria
    /// of its mode.
    fn pair_bracket(&mut self, players: &[usize], mdps: usize, mode: Mode) -> Result<Option<Outcome>, DutchError> {
        let (max_pairs, m1) = self.bracket_limits(players, mdps);
        let tries: Vec<(usize, usize)> = match mode {
            // With C.4 in force the usual maxima may be out of reach: take
            // the largest that a compliant candidate reaches (C.5, C.6).
            Mode::Ppb { .. } => {
                (0..=max_pairs).rev().flat_map(|p| (0..=m1.min(p)).rev().map(move |m| (p, m))).collect()
            }
            // The bye may have to go to a moved-down player (C.2 before C.6).
            Mode::Last => (0..=m1).rev().map(|m| (max_pairs, m)).collect(),
            _ => vec![(max_pairs, m1)],
        };
        for (target, m1) in tries {
            let mut search = Search::new(self, players, mdps, target, m1, mode.clone());
            search.run();
            let (best, out_of_budget) = (search.best.take(), search.out_of_budget);
            if out_of_budget {
                self.exhaustive = false;
            }
            match best {
                Some((_, pairs, floaters)) => return Ok(Some(Outcome { pairs, floaters })),
                None if out_of_budget => return Err(DutchError::TooHard(players.len())),
                None => {}
            }
        }
        Ok(None)
    }
}

/// The candidate search in one bracket.
struct Search<'c> {
    ctx: &'c Ctx,
    /// The bracket in A.2 order; the first `mdps` are moved-down players.
    players: Vec<usize>,
    mdps: usize,
    /// Pairs wanted (MaxPairs) and moved-down players to pair (M1).
    target: usize,
    m1: usize,
    kind: Kind,
    /// The next scoregroup (normal brackets) or everyone below (the PPB).
    others: Vec<usize>,
    /// The bracket's lowest score (A.8's floater score difference).
    low: i32,
    acc: Quality,
    pairs: Vec<(usize, usize)>,
    /// Which players (by rank) are in `pairs`.
    paired: Vec<bool>,
    best: Option<(Quality, Pairs, Vec<usize>)>,
    /// A candidate equal to this is perfect: stop.
    bound: Quality,
    /// The best C.6 over all candidates, when known (then every partial
    /// candidate is measured against it: only candidates reaching it can
    /// be the answer).
    c6_floor: Option<Vec<i32>>,
    /// A C.7 lower bound used while pairs are still being added.
    c7_bound: (u32, Vec<i32>),
    nodes: u64,
    stop: bool,
    out_of_budget: bool,
    next_cache: HashMap<Vec<usize>, (u32, Vec<i32>)>,
    completion_cache: HashMap<Vec<usize>, bool>,
}

impl<'c> Search<'c> {
    fn new(ctx: &'c Ctx, players: &[usize], mdps: usize, target: usize, m1: usize, mode: Mode) -> Search<'c> {
        let low = players.iter().map(|&p| ctx.score[p]).min().unwrap_or(0);
        let (kind, others) = match mode {
            Mode::Normal { next } => (Kind::Normal, next),
            Mode::Ppb { rest } => (Kind::Ppb, rest),
            Mode::Last => (Kind::Last, Vec::new()),
        };
        Search {
            ctx,
            players: players.to_vec(),
            mdps,
            target,
            m1,
            kind,
            others,
            low,
            acc: Quality::default(),
            pairs: Vec::new(),
            paired: vec![false; ctx.n],
            best: None,
            bound: Quality::default(),
            c6_floor: None,
            c7_bound: (0, Vec::new()),
            nodes: 0,
            stop: false,
            out_of_budget: false,
            next_cache: HashMap::new(),
            completion_cache: HashMap::new(),
        }
    }

    fn run(&mut self) {
        self.compute_bounds();
        if self.mdps == 0 {
            let all = self.players.clone();
            self.homogeneous(&all, self.target, &[]);
            return;
        }
        let mdp_list: Vec<usize> = self.players[..self.mdps].to_vec();
        let residents: Vec<usize> = self.players[self.mdps..].to_vec();
        for s1 in mdp_exchanges(self.ctx, &mdp_list, self.m1) {
            let limbo: Vec<usize> = mdp_list.iter().filter(|p| !s1.contains(p)).copied().collect();
            let mut used = vec![false; residents.len()];
            self.mdp_pairing(&s1, &residents, 0, &mut used, &limbo);
            if self.stop {
                return;
            }
        }
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > BUDGET {
            self.stop = true;
            self.out_of_budget = true;
        }
        self.stop
    }

    /// Whether the partial candidate can still beat the best one.
    /// Whether the partial candidate, plus what its unpaired players must
    /// still cost in colours, can beat the best candidate so far.
    fn promising(&self) -> bool {
        if self.best.is_none() {
            return true;
        }
        let left = self.target.saturating_sub(self.pairs.len());
        let mut rest: Vec<usize> = self.players.iter().copied().filter(|&p| !self.paired[p]).collect();
        let floaters = rest.len() as i64 - 2 * left as i64;
        let counted = colour_bound(self.ctx, rest.iter().copied(), floaters.max(0));
        let ctx = self.ctx;
        let matched = if self.kind == Kind::Last && floaters == 1 {
            // The one left over takes the bye: only an eligible player can.
            let n = rest.len();
            rest.push(usize::MAX);
            matching_colour_bound(ctx, &rest, left + 1, |u, v| {
                if v == n {
                    ctx.bye_ok[rest[u]]
                } else {
                    ctx.ok(rest[u], rest[v])
                }
            })
        } else {
            matching_colour_bound(ctx, &rest, left, |u, v| ctx.ok(rest[u], rest[v]))
        };
        self.promising_with((counted.0.max(matched.0), counted.1.max(matched.1)))
    }

    fn promising_with(&self, (c10, c11): (u32, u32)) -> bool {
        let Some((best, _, _)) = &self.best else {
            return true;
        };
        // A lower bound of every completion, criterion by criterion: the
        // pairs still to make score 0 and the floaters one point at least
        // in C.6 (or the known optimum), C.7 its bound, the colours what
        // the unpaired players must cost.
        let c6 = match &self.c6_floor {
            Some(floor) => cmp_sd(floor, &best.c6),
            None => {
                let left = self.target.saturating_sub(self.pairs.len());
                let floaters = self.players.len() - 2 * self.target;
                let mut list = self.acc.c6.clone();
                list.extend(std::iter::repeat_n(self.ctx.win, floaters));
                list.extend(std::iter::repeat_n(0, left));
                list.sort_unstable_by(|a, b| b.cmp(a));
                cmp_sd(&list, &best.c6)
            }
        };
        let mut counts = self.acc.counts;
        counts[C10] += c10;
        counts[C11] += c11;
        let order = self
            .acc
            .c5
            .cmp(&best.c5)
            .then(c6)
            .then_with(|| self.c7_bound.0.cmp(&best.c7.0))
            .then_with(|| cmp_sd(&self.c7_bound.1, &best.c7.1))
            .then_with(|| counts.cmp(&best.counts))
            .then_with(|| {
                (0..4)
                    .map(|k| cmp_sd(&self.acc.lists[k], &best.lists[k]))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            });
        order == Ordering::Less
    }

    fn push_pair(&mut self, a: usize, b: usize) {
        self.pairs.push((a, b));
        self.paired[a] = true;
        self.paired[b] = true;
    }

    fn pop_pair(&mut self) {
        if let Some((a, b)) = self.pairs.pop() {
            self.paired[a] = false;
            self.paired[b] = false;
        }
    }

    /// Pair the moved-down players of S1 with residents (transpositions of
    /// S2, D.1), then pair the remainder.
    fn mdp_pairing(&mut self, s1: &[usize], residents: &[usize], i: usize, used: &mut [bool], limbo: &[usize]) {
        if self.tick() {
            return;
        }
        if i == s1.len() {
            let remainder: Vec<usize> =
                residents.iter().zip(used.iter()).filter(|(_, &u)| !u).map(|(&r, _)| r).collect();
            let want = self.target - self.m1;
            self.homogeneous(&remainder, want, limbo);
            return;
        }
        for j in 0..residents.len() {
            if used[j] || !self.ctx.ok(s1[i], residents[j]) {
                continue;
            }
            self.ctx.apply_pair(&mut self.acc, s1[i], residents[j], true);
            self.push_pair(s1[i], residents[j]);
            used[j] = true;
            if self.promising() {
                self.mdp_pairing(s1, residents, i + 1, used, limbo);
            }
            used[j] = false;
            self.pop_pair();
            self.ctx.apply_pair(&mut self.acc, s1[i], residents[j], false);
            if self.stop {
                return;
            }
        }
    }

    /// Pair a homogeneous bracket or remainder `r` (A.2 order) with at most
    /// `want` pairs: transpositions, then exchanges (B.6, D.1, D.2).
    /// `extra` are players already bound to float (the Limbo).
    fn homogeneous(&mut self, r: &[usize], want: usize, extra: &[usize]) {
        let possible = Matching::new(r.len(), |u, v| self.ctx.ok(r[u], r[v])).maximize();
        let p = want.min(possible);
        // The PPB tries each number of pairs in turn, so a remainder that
        // falls short belongs to a later try.
        if self.kind != Kind::Normal && p < want {
            return;
        }
        let shortfall = (self.target - self.pairs.len() - p) as u32;
        self.acc.c5 += shortfall;
        if self.promising() {
            let s1: Vec<usize> = (0..p).collect();
            let s2: Vec<usize> = (p..r.len()).collect();
            let visit = |search: &mut Search, a: &[usize], b: &[usize]| {
                if search.tick() {
                    return false;
                }
                let mut s1x: Vec<usize> = s1.iter().filter(|x| !a.contains(x)).chain(b).copied().collect();
                let mut s2x: Vec<usize> = s2.iter().filter(|x| !b.contains(x)).chain(a).copied().collect();
                s1x.sort_unstable();
                s2x.sort_unstable();
                let mut used = vec![false; r.len()];
                if search.feasible(r, &s1x, &s2x)
                    && (search.best.is_none()
                        || search.promising_with(search.transposition_bound(r, &s1x, &s2x, &used)))
                {
                    search.transpositions(r, &s1x, &s2x, 0, &mut used, extra);
                }
                !search.stop
            };
            exchanges(&s1, &s2, &mut |a, b| visit(self, a, b));
        }
        self.acc.c5 -= shortfall;
    }

    /// Whether S1 can be matched into S2 at all, each S1 player with a
    /// later (higher-numbered) S2 player.
    fn feasible(&self, r: &[usize], s1: &[usize], s2: &[usize]) -> bool {
        let k = s1.len();
        let mut m = Matching::new(k + s2.len(), |u, v| {
            u < k && v >= k && s2[v - k] > s1[u] && self.ctx.ok(r[s1[u]], r[s2[v - k]])
        });
        m.maximize() == k
    }

    /// C.10 and C.11 lower bounds when each of `s1` must still take a
    /// later-numbered unused player of `s2`.
    fn transposition_bound(&self, r: &[usize], s1: &[usize], s2: &[usize], used: &[bool]) -> (u32, u32) {
        let free: Vec<usize> = s2.iter().enumerate().filter(|(k, _)| !used[*k]).map(|(_, &y)| y).collect();
        let nodes: Vec<usize> = s1.iter().chain(&free).map(|&x| r[x]).collect();
        let k = s1.len();
        let order: Vec<usize> = s1.iter().chain(&free).copied().collect();
        matching_colour_bound(self.ctx, &nodes, k, |u, v| {
            u < k && v >= k && order[v] > order[u] && self.ctx.ok(nodes[u], nodes[v])
        })
    }

    fn transpositions(
        &mut self,
        r: &[usize],
        s1: &[usize],
        s2: &[usize],
        i: usize,
        used: &mut [bool],
        extra: &[usize],
    ) {
        if self.tick() {
            return;
        }
        if i == s1.len() {
            let mut floaters: Vec<usize> = extra.to_vec();
            floaters.extend(s2.iter().enumerate().filter(|(j, _)| !used[*j]).map(|(_, &x)| r[x]));
            self.leaf(floaters);
            return;
        }
        // Cheap dead-end test: every later S1 player still has a partner.
        for &x in &s1[i + 1..] {
            if !s2.iter().enumerate().any(|(j, &y)| !used[j] && y > x && self.ctx.ok(r[x], r[y])) {
                return;
            }
        }
        let a = r[s1[i]];
        for j in 0..s2.len() {
            // A partner ranked above the S1 player repeats a candidate of
            // an earlier exchange.
            if used[j] || s2[j] < s1[i] || !self.ctx.ok(a, r[s2[j]]) {
                continue;
            }
            let b = r[s2[j]];
            self.ctx.apply_pair(&mut self.acc, a, b, true);
            self.push_pair(a, b);
            used[j] = true;
            // Every later S1 player must take an S2 player: count the
            // preferences that cannot all be met.
            if self.best.is_none() || self.promising_with(self.transposition_bound(r, &s1[i + 1..], s2, used)) {
                self.transpositions(r, s1, s2, i + 1, used, extra);
            }
            used[j] = false;
            self.pop_pair();
            self.ctx.apply_pair(&mut self.acc, a, b, false);
            if self.stop {
                return;
            }
        }
    }

    /// A complete candidate: check the mode's absolute criteria, score it
    /// and keep it if it is the best so far.
    fn leaf(&mut self, mut floaters: Vec<usize>) {
        floaters.sort_unstable();
        let c7 = match self.kind {
            Kind::Last => {
                if floaters.len() > 1 || floaters.iter().any(|&f| !self.ctx.bye_ok[f]) {
                    return;
                }
                (0, Vec::new())
            }
            Kind::Ppb => {
                if !self.completion(&floaters) {
                    return;
                }
                (0, Vec::new())
            }
            Kind::Normal => self.next_value(&floaters),
        };
        for &f in &floaters {
            self.ctx.apply_floater(&mut self.acc, f, self.low, true);
        }
        self.acc.c7 = c7;
        let better = match &self.best {
            None => true,
            Some((q, _, _)) => self.acc.cmp(q) == Ordering::Less,
        };
        if better {
            self.best = Some((self.acc.clone(), self.pairs.clone(), floaters.clone()));
            if self.acc == self.bound {
                self.stop = true;
            }
        }
        for &f in &floaters {
            self.ctx.apply_floater(&mut self.acc, f, self.low, false);
        }
    }

    fn next_value(&mut self, floaters: &[usize]) -> (u32, Vec<i32>) {
        if let Some(v) = self.next_cache.get(floaters) {
            return v.clone();
        }
        let v = self.ctx.next_bracket_value(floaters, &self.others);
        self.next_cache.insert(floaters.to_vec(), v.clone());
        v
    }

    fn completion(&mut self, floaters: &[usize]) -> bool {
        if let Some(&v) = self.completion_cache.get(floaters) {
            return v;
        }
        let v = self.ctx.completable(floaters, &self.others);
        self.completion_cache.insert(floaters.to_vec(), v);
        v
    }

    /// Lower bounds that a perfect candidate meets: C.5-C.7 from every
    /// admissible set of floaters (when there are few), C.10 and C.11 from
    /// counting colour preferences, zero for the rest.
    fn compute_bounds(&mut self) {
        let ctx = self.ctx;
        let n = self.players.len();
        let f = n - 2 * self.target;
        let (c10, c11) = colour_bound(ctx, self.players.iter().copied(), f as i64);
        self.bound.counts[C10] = c10;
        self.bound.counts[C11] = c11;

        // Without enumerating floater sets, C.7 is at best: every floater
        // (the lowest scores possible) paired into the next scoregroup,
        // which pairs up completely.
        if self.kind == Kind::Normal && !self.others.is_empty() {
            let r = ctx.score[self.others[0]];
            let mut scores: Vec<i32> = self.players.iter().map(|&p| ctx.score[p]).collect();
            scores.sort_unstable();
            let next = self.others.len();
            let paired = f.min(next);
            let mut psd: Vec<i32> = scores[..paired].iter().map(|s| s - r).collect();
            psd.extend(scores[paired..f].iter().map(|s| s - r + ctx.win));
            let residents_left = next - paired;
            psd.extend(std::iter::repeat_n(0, residents_left / 2));
            if residents_left % 2 == 1 {
                psd.push(ctx.win);
            }
            psd.sort_unstable_by(|a, b| b.cmp(a));
            self.c7_bound = (0, psd);
        }
        let residents_level =
            self.players[self.mdps..].windows(2).all(|w| ctx.score[w[0]] == ctx.score[w[1]]) && n > self.mdps;
        if !residents_level || binomial(n as u64, f as u64) > FLOATER_SETS {
            return;
        }
        let mut best: Option<(Vec<i32>, NextValue)> = None;
        let players = self.players.clone();
        let resident_score = ctx.score[players[self.mdps]];
        let mut set = Vec::with_capacity(f);
        for_each_subset(n, f, &mut set, &mut |idx: &[usize]| {
            let floaters: Vec<usize> = idx.iter().map(|&i| players[i]).collect();
            if idx.iter().filter(|&&i| i < self.mdps).count() != self.mdps - self.m1 {
                return;
            }
            let stay: Vec<usize> = (0..n).filter(|i| !idx.contains(i)).collect();
            let mdps = self.mdps;
            let perfect = Matching::new(stay.len(), |u, v| {
                !(stay[u] < mdps && stay[v] < mdps) && ctx.ok(players[stay[u]], players[stay[v]])
            })
            .maximize()
                * 2
                == stay.len();
            if !perfect {
                return;
            }
            let c7 = match self.kind {
                Kind::Last => {
                    if f > 1 || floaters.iter().any(|&x| !ctx.bye_ok[x]) {
                        return;
                    }
                    (0, Vec::new())
                }
                Kind::Ppb => {
                    if !ctx.completable(&floaters, &self.others) {
                        return;
                    }
                    (0, Vec::new())
                }
                Kind::Normal => {
                    let mut sorted = floaters.clone();
                    sorted.sort_unstable();
                    ctx.next_bracket_value(&sorted, &self.others)
                }
            };
            let mut c6: Vec<i32> =
                stay.iter().filter(|&&i| i < mdps).map(|&i| ctx.score[players[i]] - resident_score).collect();
            c6.extend(std::iter::repeat_n(0, self.target - self.m1));
            c6.extend(floaters.iter().map(|&x| ctx.score[x] - (self.low - ctx.win)));
            c6.sort_unstable_by(|a, b| b.cmp(a));
            let better = match &best {
                None => true,
                Some((b6, b7)) => {
                    cmp_sd(&c6, b6).then_with(|| c7.0.cmp(&b7.0)).then_with(|| cmp_sd(&c7.1, &b7.1)) == Ordering::Less
                }
            };
            if better {
                best = Some((c6, c7));
            }
        });
        if let Some((c6, c7)) = best {
            self.bound.c6 = c6.clone();
            self.bound.c7 = c7.clone();
            self.c6_floor = Some(c6);
            self.c7_bound = c7;
        }
    }
}

/// Lower bounds of C.10 and C.11 among `players` when `floaters` of them
/// stay unpaired: players preferring the majority colour beyond what the
/// others and the floaters can absorb must meet each other, and each such
/// pair costs one preference (a strong one when both are strong).
fn colour_bound(ctx: &Ctx, players: impl Iterator<Item = usize>, floaters: i64) -> (u32, u32) {
    let mut count = [[0i64; 4]; 2];
    let mut none = 0i64;
    for p in players {
        match ctx.pref[p].colour {
            Some(c) => count[c as usize][ctx.pref[p].strength as usize] += 1,
            None => none += 1,
        }
    }
    let total = |c: usize| count[c].iter().sum::<i64>();
    let major = if total(0) >= total(1) { 0 } else { 1 };
    let (m, k) = (total(major), total(1 - major));
    let strong = count[major][STRONG as usize] + count[major][ABSOLUTE as usize];
    let mild = count[major][MILD as usize];
    let excess = m - floaters - k - none;
    let excess_strong = strong - floaters - k - none - mild;
    (((excess.max(0) + 1) / 2) as u32, ((excess_strong.max(0) + 1) / 2) as u32)
}

/// Lower bounds of C.10 and C.11 when `need` pairs are still to be made
/// among `players`: pairs that cost no preference (or no strong one) form
/// a matching, so at least `need` minus its maximum size must cost one.
/// `edge` restricts which pairs are possible at all.
fn matching_colour_bound(ctx: &Ctx, players: &[usize], need: usize, edge: impl Fn(usize, usize) -> bool) -> (u32, u32) {
    if need == 0 {
        return (0, 0);
    }
    let free = Matching::new(players.len(), |u, v| edge(u, v) && !ctx.conflict(players[u], players[v]).0).maximize();
    let soft = Matching::new(players.len(), |u, v| edge(u, v) && !ctx.conflict(players[u], players[v]).1).maximize();
    (need.saturating_sub(free) as u32, need.saturating_sub(soft) as u32)
}

fn binomial(n: u64, k: u64) -> u64 {
    let mut r: u64 = 1;
    for i in 0..k.min(n - k.min(n)) {
        r = r.saturating_mul(n - i) / (i + 1);
        if r > u64::MAX / 1024 {
            return u64::MAX;
        }
    }
    r
}

/// Call `f` with every `k`-subset of `0..n` in increasing order.
fn for_each_subset(n: usize, k: usize, set: &mut Vec<usize>, f: &mut dyn FnMut(&[usize])) {
    if set.len() == k {
        f(set);
        return;
    }
    let start = set.last().map_or(0, |&x| x + 1);
    for i in start..n {
        if n - i < k - set.len() {
            break;
        }
        set.push(i);
        for_each_subset(n, k, set, f);
        set.pop();
    }
}

/// The S1 choices of a heterogeneous bracket in D.3 order: every set of
/// `m1` moved-down players, the one with the highest scores first, then the
/// lowest bracket sequence numbers. `mdps` is in A.2 order.
fn mdp_exchanges(ctx: &Ctx, mdps: &[usize], m1: usize) -> Vec<Vec<usize>> {
    let mut sets = Vec::new();
    let mut set = Vec::new();
    for_each_subset(mdps.len(), m1, &mut set, &mut |idx| sets.push(idx.to_vec()));
    sets.sort_by(|a, b| {
        let sa: Vec<i32> = a.iter().map(|&i| ctx.score[mdps[i]]).collect();
        let sb: Vec<i32> = b.iter().map(|&i| ctx.score[mdps[i]]).collect();
        // Both lists are in descending score order (A.2).
        sb.cmp(&sa).then_with(|| a.cmp(b))
    });
    sets.into_iter().map(|idx| idx.into_iter().map(|i| mdps[i]).collect()).collect()
}

/// Visit the resident exchanges of D.2 in order, the empty exchange first:
/// fewest players swapped, then the smallest difference of the sums of
/// sequence numbers moved, then the highest number moved from S1, then the
/// lowest number moved from S2. `s1` and `s2` hold sequence numbers (any
/// increasing numbering works: only order and sums matter). `visit(a, b)`
/// swaps `a` out of S1 and `b` out of S2; it returns `false` to stop.
fn exchanges(s1: &[usize], s2: &[usize], visit: &mut dyn FnMut(&[usize], &[usize]) -> bool) {
    if !visit(&[], &[]) {
        return;
    }
    let bsn = |x: usize| x as i64 + 1;
    for k in 1..=s1.len().min(s2.len()) {
        let min_b: i64 = s2[..k].iter().map(|&x| bsn(x)).sum();
        let max_b: i64 = s2[s2.len() - k..].iter().map(|&x| bsn(x)).sum();
        let min_a: i64 = s1[..k].iter().map(|&x| bsn(x)).sum();
        let max_a: i64 = s1[s1.len() - k..].iter().map(|&x| bsn(x)).sum();
        for diff in (min_b - max_a)..=(max_b - min_a) {
            let mut stop = false;
            // A: from S1, highest numbers first (descending lexicographic).
            let mut a = Vec::with_capacity(k);
            subsets_desc(s1, k, &mut a, &mut |a: &[usize]| {
                let need = diff + a.iter().map(|&x| bsn(x)).sum::<i64>();
                let mut b = Vec::with_capacity(k);
                subsets_with_sum(s2, 0, k, need, &mut b, &mut |b: &[usize]| {
                    let mut a_sorted = a.to_vec();
                    a_sorted.sort_unstable();
                    if !visit(&a_sorted, b) {
                        stop = true;
                    }
                    !stop
                })
            });
            if stop {
                return;
            }
        }
    }
}

/// `k`-subsets of `s` (ascending) in descending lexicographic order of
/// their elements taken from the highest; `f` returns `false` to stop.
fn subsets_desc(s: &[usize], k: usize, cur: &mut Vec<usize>, f: &mut dyn FnMut(&[usize]) -> bool) -> bool {
    if cur.len() == k {
        return f(cur);
    }
    let upper = match cur.last() {
        Some(&last) => s.iter().position(|&x| x == last).unwrap(),
        None => s.len(),
    };
    let need = k - cur.len();
    for i in (0..upper).rev() {
        if i + 1 < need {
            break;
        }
        cur.push(s[i]);
        let go_on = subsets_desc(s, k, cur, f);
        cur.pop();
        if !go_on {
            return false;
        }
    }
    true
}

/// `k`-subsets of `s[from..]` whose sequence numbers sum to `sum`, in
/// ascending lexicographic order; `f` returns `false` to stop.
fn subsets_with_sum(
    s: &[usize],
    from: usize,
    k: usize,
    sum: i64,
    cur: &mut Vec<usize>,
    f: &mut dyn FnMut(&[usize]) -> bool,
) -> bool {
    let bsn = |x: usize| x as i64 + 1;
    if k == 0 {
        return if sum == 0 { f(cur) } else { true };
    }
    for i in from..s.len() {
        if s.len() - i < k {
            break;
        }
        let lo: i64 = s[i..i + k].iter().map(|&x| bsn(x)).sum();
        let hi: i64 = bsn(s[i]) + s[s.len() - (k - 1)..].iter().map(|&x| bsn(x)).sum::<i64>();
        if lo > sum {
            break;
        }
        if hi < sum {
            continue;
        }
        cur.push(s[i]);
        let go_on = subsets_with_sum(s, i + 1, k - 1, sum - bsn(s[i]), cur, f);
        cur.pop();
        if !go_on {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(s1: &[usize], s2: &[usize]) -> Vec<(Vec<usize>, Vec<usize>)> {
        let mut out = Vec::new();
        exchanges(s1, s2, &mut |a, b| {
            out.push((a.to_vec(), b.to_vec()));
            true
        });
        out
    }

    #[test]
    fn exchange_order_follows_d2() {
        // Eleven players: S1 = 1..5, S2 = 6..11 (sequence numbers 0-based).
        let s1: Vec<usize> = (0..5).collect();
        let s2: Vec<usize> = (5..11).collect();
        let all = order(&s1, &s2);
        let one = |bsn: usize| bsn - 1;
        assert_eq!(all[0], (vec![], vec![]));
        // Exchanging 5 with 6 (difference 1) comes first.
        assert_eq!(all[1], (vec![one(5)], vec![one(6)]));
        // Difference 2: moving 5 out of S1 beats moving 4 (rule 3).
        assert_eq!(all[2], (vec![one(5)], vec![one(7)]));
        assert_eq!(all[3], (vec![one(4)], vec![one(6)]));
        // "exchanging 6 with 4 is better than exchanging 8 with 5".
        let pos = |a: Vec<usize>, b: Vec<usize>| {
            let key = (a, b);
            all.iter().position(|e| *e == key).unwrap()
        };
        assert!(pos(vec![one(4)], vec![one(6)]) < pos(vec![one(5)], vec![one(8)]));
        // Singles before pairs; "8+6 with 4+3 is better than 9+8 with 4+2".
        let last_single = all.iter().rposition(|e| e.0.len() == 1).unwrap();
        let first_pair = all.iter().position(|e| e.0.len() == 2).unwrap();
        assert!(last_single < first_pair);
        assert!(pos(vec![one(3), one(4)], vec![one(6), one(8)]) < pos(vec![one(2), one(4)], vec![one(8), one(9)]));
        // "5-2 is better than 4-3" (same difference with the same S2 set).
        assert!(pos(vec![one(2), one(5)], vec![one(6), one(7)]) < pos(vec![one(3), one(4)], vec![one(6), one(7)]));
        // Every exchange appears once: sum over k of C(5,k)·C(6,k) = C(11,5).
        assert_eq!(all.len(), 462);
    }

    #[test]
    fn psd_comparison() {
        assert_eq!(cmp_sd(&[2, 1, 1], &[2, 2, 0]), Ordering::Less);
        assert_eq!(cmp_sd(&[3], &[2, 2, 2]), Ordering::Greater);
        assert_eq!(cmp_sd(&[2], &[2, 0]), Ordering::Less);
        assert_eq!(cmp_sd(&[], &[]), Ordering::Equal);
    }

    #[test]
    fn colour_preferences_follow_a6() {
        use Side::{First as W, Second as B};
        assert_eq!(preference(&[]).0.strength, 0);
        assert_eq!(preference(&[W]).0, Pref { colour: Some(B), strength: STRONG });
        assert_eq!(preference(&[W, B]).0, Pref { colour: Some(W), strength: MILD });
        assert_eq!(preference(&[B, W, W]).0, Pref { colour: Some(B), strength: ABSOLUTE });
        assert_eq!(preference(&[W, W, B, W]).0, Pref { colour: Some(B), strength: ABSOLUTE });
        assert_eq!(preference(&[W, B, B, W]).0, Pref { colour: Some(B), strength: MILD });
    }
}
