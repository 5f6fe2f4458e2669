//! Round-robin schedules from the Berger tables (FIDE Handbook C.05,
//! Annex 1).
//!
//! Seeds are numbered from 1. With an odd number of players a dummy seed
//! `n + 1` joins, and whoever meets it sits the round out. Seed `n` (the
//! last real or dummy seed) stays put while the others rotate; colours
//! follow the tables, which give every player as even a share of first
//! moves as a single cycle allows. In a double (or longer) round-robin
//! every even cycle repeats the first with colours reversed.

/// The pairings of one round: `(first, second)` seeds, from 1, board by
/// board; `bye` is the seed that sits out (odd player counts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BergerRound {
    /// `(first, second)` seeds, board by board.
    pub pairs: Vec<(u32, u32)>,
    /// The seed without a game this round, if the number of players is odd.
    pub bye: Option<u32>,
}

/// Rounds in one cycle for `players` players: `n - 1` for even `n`, `n`
/// for odd.
///
/// ```
/// use tabula_tournament::roundrobin::rounds_per_cycle;
/// assert_eq!(rounds_per_cycle(4), 3);
/// assert_eq!(rounds_per_cycle(5), 5);
/// assert_eq!(rounds_per_cycle(1), 0);
/// ```
pub fn rounds_per_cycle(players: u32) -> u32 {
    if players < 2 {
        0
    } else if players.is_multiple_of(2) {
        players - 1
    } else {
        players
    }
}

/// Round `round` (from 1, counting on through later cycles) of a
/// round-robin of `players` players.
///
/// ```
/// use tabula_tournament::roundrobin::berger_round;
/// // The FIDE table for six players, round 2: 6-4, 5-3, 1-2.
/// assert_eq!(berger_round(6, 2).pairs, vec![(6, 4), (5, 3), (1, 2)]);
/// // Second cycle: the same games with colours reversed.
/// assert_eq!(berger_round(6, 7).pairs, vec![(4, 6), (3, 5), (2, 1)]);
/// // Five players: seed 6 is the dummy, so seed 1 sits out round 1.
/// let r = berger_round(5, 1);
/// assert_eq!(r.bye, Some(1));
/// assert_eq!(r.pairs, vec![(2, 5), (3, 4)]);
/// ```
pub fn berger_round(players: u32, round: u32) -> BergerRound {
    assert!(players >= 2, "a round-robin needs two players");
    assert!(round >= 1, "rounds count from 1");
    let n = players + players % 2;
    let per_cycle = n - 1;
    let cycle = (round - 1) / per_cycle;
    let r = (round - 1) % per_cycle + 1;
    let half = n / 2;
    // The seeds 1..n-1 in table order for this round: each round starts
    // `n/2` places further round the circle.
    let start = ((r - 1) * half) % per_cycle;
    let seq: Vec<u32> = (0..per_cycle).map(|k| (start + k) % per_cycle + 1).collect();
    let mut pairs = Vec::with_capacity(half as usize);
    // Board 1: seed n against the first of the sequence, n moving first in
    // even rounds.
    pairs.push(if r % 2 == 1 { (seq[0], n) } else { (n, seq[0]) });
    for k in 1..half as usize {
        pairs.push((seq[k], seq[per_cycle as usize - k]));
    }
    if cycle % 2 == 1 {
        for p in pairs.iter_mut() {
            *p = (p.1, p.0);
        }
    }
    let mut bye = None;
    if players % 2 == 1 {
        pairs.retain(|&(a, b)| {
            if a == n || b == n {
                bye = Some(if a == n { b } else { a });
                false
            } else {
                true
            }
        });
    }
    BergerRound { pairs, bye }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn matches_the_fide_tables() {
        // FIDE C.05 Annex 1, 4 players.
        let four = [vec![(1, 4), (2, 3)], vec![(4, 3), (1, 2)], vec![(2, 4), (3, 1)]];
        for (i, want) in four.iter().enumerate() {
            assert_eq!(&berger_round(4, i as u32 + 1).pairs, want);
        }
        // 8 players.
        let eight = [
            vec![(1, 8), (2, 7), (3, 6), (4, 5)],
            vec![(8, 5), (6, 4), (7, 3), (1, 2)],
            vec![(2, 8), (3, 1), (4, 7), (5, 6)],
            vec![(8, 6), (7, 5), (1, 4), (2, 3)],
            vec![(3, 8), (4, 2), (5, 1), (6, 7)],
            vec![(8, 7), (1, 6), (2, 5), (3, 4)],
            vec![(4, 8), (5, 3), (6, 2), (7, 1)],
        ];
        for (i, want) in eight.iter().enumerate() {
            assert_eq!(&berger_round(8, i as u32 + 1).pairs, want);
        }
    }

    proptest! {
        /// In every cycle everyone meets everyone else exactly once, no one
        /// plays twice in a round, and colours stay balanced: in a cycle
        /// everyone moves first within one game of half their games, and
        /// the second cycle reverses every colour of the first.
        #[test]
        fn everyone_meets_everyone_once_per_cycle(players in 2u32..=21, cycles in 1u32..=3) {
            let per = rounds_per_cycle(players);
            let n = players as usize;
            for c in 0..cycles {
                let mut met = vec![vec![0u32; n + 1]; n + 1];
                let mut firsts = vec![0u32; n + 1];
                let mut byes = vec![0u32; n + 1];
                for r in 1..=per {
                    let round = berger_round(players, c * per + r);
                    let mut seen = vec![false; n + 1];
                    for &(a, b) in &round.pairs {
                        prop_assert!(a != b && a >= 1 && b >= 1 && a <= players && b <= players);
                        prop_assert!(!seen[a as usize] && !seen[b as usize]);
                        seen[a as usize] = true;
                        seen[b as usize] = true;
                        met[a as usize][b as usize] += 1;
                        met[b as usize][a as usize] += 1;
                        firsts[a as usize] += 1;
                    }
                    if let Some(b) = round.bye {
                        prop_assert!(!seen[b as usize]);
                        byes[b as usize] += 1;
                    }
                    prop_assert_eq!(round.pairs.len(), n / 2);
                }
                for a in 1..=n {
                    for (b, &count) in met[a].iter().enumerate().skip(1) {
                        prop_assert_eq!(count, u32::from(a != b), "seeds {} and {}", a, b);
                    }
                    let games = (n - 1) as i64;
                    prop_assert!((2 * firsts[a] as i64 - games).abs() <= 2, "seed {} moved first {} times in {} games", a, firsts[a], games);
                    prop_assert_eq!(byes[a], u32::from(players % 2 == 1));
                }
            }
            if cycles >= 2 {
                for r in 1..=per {
                    let one = berger_round(players, r);
                    let two = berger_round(players, per + r);
                    let flipped: Vec<(u32, u32)> = one.pairs.iter().map(|&(a, b)| (b, a)).collect();
                    prop_assert_eq!(two.pairs, flipped);
                }
            }
        }
    }
}
