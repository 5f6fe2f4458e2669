//! The Dutch system against a published example, checked by hand.
//!
//! Source: the worked 14-player, 5-round example tournament of the FIDE
//! Arbiters' Manual (2014 edition, pp. 65-92), taken from FA Mario Held's
//! "Mastering the Dutch" and worked through again in Kenneth Ballou's "An
//! In-Depth Comparison of US Chess Swiss Pairings and FIDE Dutch System
//! Swiss Pairings" (2015). Players, by pairing number: 1 Alice, 2 Bruno,
//! 3 Carla, 4 David, 5 Eloise, 6 Finn, 7 Giorgia, 8 Kevin, 9 Louise,
//! 10 Marco, 11 Nancy, 12 Oskar, 13 Patricia, 14 Robert. Alice had white
//! in round 1. Oskar is absent in round 2; in round 3 Finn wins by forfeit
//! against Nancy.
//!
//! The published pairings (white first) and results:
//!
//! | round | pairings and results |
//! |---|---|
//! | 1 | 1-8 1-0, 9-2 0-1, 3-10 1-0, 11-4 ½, 5-12 1-0, 13-6 0-1, 7-14 1-0 |
//! | 2 | 5-1 1-0, 2-7 1-0, 6-3 ½, 4-9 1-0, 8-11 0-1, 10-13 1-0, 14 bye (12 absent) |
//! | 3 | 14-1 0-1, 2-5 ½, 3-4 ½, 11-6 forfeit (6 wins), 7-10 1-0, 9-13 1-0, 12-8 ½ |
//! | 4 | 1-3 1-0, 6-2 0-1, 4-5 ½, 11-7 1-0, 8-9 ½, 10-14 ½, 13-12 1-0 |
//! | 5 | 2-1, 3-7, 4-6, 5-11, 9-10, 13-8, 14-12 |
//!
//! Each round below is re-paired from the results before it, and every
//! pairing is compared. The reasoning for rounds 2-4 by the rules of
//! C.04.3 (2017 text) is written out at each round (W/B = the colour a
//! player prefers; "strong" after one game, CD = colour difference).

use tabula_tournament::dutch::pair;
use tabula_tournament::swiss::{dutch_input, SwissGame, SwissRound};
use tabula_tournament::{GameResult, Points, Scoring, Side};

/// Player index from pairing number.
fn p(n: usize) -> usize {
    n - 1
}

fn game(first: usize, second: usize, result: &str) -> SwissGame {
    let result = match result {
        "1-0" => GameResult::win(Side::First),
        "0-1" => GameResult::win(Side::Second),
        "=" => GameResult::draw(),
        "+-" => GameResult::Forfeit { winner: Some(Side::First) },
        "-+" => GameResult::Forfeit { winner: Some(Side::Second) },
        other => panic!("bad result {other}"),
    };
    SwissGame { first: p(first), second: p(second), result }
}

fn history() -> Vec<SwissRound> {
    vec![
        SwissRound {
            games: vec![
                game(1, 8, "1-0"),
                game(9, 2, "0-1"),
                game(3, 10, "1-0"),
                game(11, 4, "="),
                game(5, 12, "1-0"),
                game(13, 6, "0-1"),
                game(7, 14, "1-0"),
            ],
            ..Default::default()
        },
        SwissRound {
            games: vec![
                game(5, 1, "1-0"),
                game(2, 7, "1-0"),
                game(6, 3, "="),
                game(4, 9, "1-0"),
                game(8, 11, "0-1"),
                game(10, 13, "1-0"),
            ],
            bye: Some(p(14)),
            absent: vec![(p(12), Points::ZERO)],
        },
        SwissRound {
            games: vec![
                game(14, 1, "0-1"),
                game(2, 5, "="),
                game(3, 4, "="),
                game(11, 6, "-+"),
                game(7, 10, "1-0"),
                game(9, 13, "1-0"),
                game(12, 8, "="),
            ],
            ..Default::default()
        },
        SwissRound {
            games: vec![
                game(1, 3, "1-0"),
                game(6, 2, "0-1"),
                game(4, 5, "="),
                game(11, 7, "1-0"),
                game(8, 9, "="),
                game(10, 14, "="),
                game(13, 12, "1-0"),
            ],
            ..Default::default()
        },
    ]
}

/// Pair round `round` (from 1) and return `(white, black)` by pairing
/// number, and the bye.
fn pair_round(round: usize, absent: &[usize]) -> (Vec<(usize, usize)>, Option<usize>) {
    let seeds: Vec<usize> = (0..14).collect();
    let to_pair: Vec<usize> = (0..14).filter(|i| !absent.contains(&(i + 1))).collect();
    let input = dutch_input(&seeds, &history()[..round - 1], &to_pair, &Scoring::default(), 5, Side::First);
    let out = pair(&input).expect("the round pairs");
    assert!(out.exhaustive);
    let mut pairs: Vec<(usize, usize)> = out.pairs.iter().map(|&(w, b)| (w as usize + 1, b as usize + 1)).collect();
    pairs.sort_by_key(|&(w, b)| w.min(b));
    (pairs, out.bye.map(|b| b as usize + 1))
}

fn sorted(mut v: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    v.sort_by_key(|&(w, b)| w.min(b));
    v
}

#[test]
fn round_1() {
    // One scoregroup: S1 = 1..7, S2 = 8..14, paired in order. Nobody has a
    // colour preference, so E.5 gives the odd pairing numbers of S1 the
    // initial colour (white) and the even ones black.
    let (pairs, bye) = pair_round(1, &[]);
    assert_eq!(pairs, sorted(vec![(1, 8), (9, 2), (3, 10), (11, 4), (5, 12), (13, 6), (7, 14)]));
    assert_eq!(bye, None);
}

#[test]
fn round_2() {
    // Oskar (12) is absent: 13 players, so a bye.
    // Scoregroup 1: {1,2,3,5,6,7}; S1 = 1,2,3, S2 = 5,6,7. Preferences
    // (strong, one game each): 1,3,5,7 want B, 2,6 want W, so at least one
    // pair must disappoint someone (C.10). 1-5 2-6 3-7 costs three; the
    // first transposition, S2 = 5,7,6, gives 1-5 (both B), 2-7, 3-6: one,
    // the minimum, and no float criterion applies: accepted. 1-5: both
    // strong, E.3 finds no round where they differ, E.4 gives Alice (the
    // higher) black: 5-1.
    // Scoregroup ½: {4,11} met in round 1: both move down.
    // Scoregroup 0: {4,11 | 8,9,10,13,14}: S1 = 4,11; 4-8 and 11-9 would
    // both clash (4,8 want W; 11,9 want B); S2 = 9,8,... gives 4-9 and
    // 11-8 with every preference met. The remainder {10,13,14}: 10-13
    // (10 wants W, 13 B), and 14, the lowest, gets the bye.
    let (pairs, bye) = pair_round(2, &[12]);
    assert_eq!(pairs, sorted(vec![(5, 1), (2, 7), (6, 3), (4, 9), (8, 11), (10, 13)]));
    assert_eq!(bye, Some(14));
}

#[test]
fn round_3() {
    // Scoregroup 2: 2-5; 5 has CD +2 (absolute B), so 2 takes white.
    // Scoregroup 1½: {3,4,6,11}; 3-6 and 4-11 have met, 3-11/4-6 would
    // cost two preferences; the first exchange (4 with 6) gives S1 = 3,6,
    // S2 = 4,11: 3-4 and 6-11 meet every preference: 3-4, 11-6.
    // Scoregroup 1: {1,7,10,14}; 7-14 met; 1-14 and 7-10 cost one
    // preference (three players want W), the minimum: 14 (strong W) beats
    // 1 (mild W) to white: 14-1, 7-10.
    // Scoregroup 0: {8,9,12,13}: 8-12 (12 strong W) and 9-13 (both mild W:
    // E.3 finds no difference, E.4 gives the higher, 9, white).
    let (pairs, bye) = pair_round(3, &[]);
    assert_eq!(pairs, sorted(vec![(14, 1), (2, 5), (3, 4), (11, 6), (7, 10), (9, 13), (12, 8)]));
    assert_eq!(bye, None);
}

#[test]
fn round_4() {
    // Scoregroup 2½: {2,5,6}; 2-5 met. Candidates 2-6 (5 floats) and 5-6
    // (2 floats) both cost one preference and lead to the same next
    // bracket (C.7): the first generated, 2-6, stands; 2 has absolute B:
    // 6-2. (6's forfeit win in round 3 was not a game: 6 and 11 could meet
    // again, and 6's colours are B, W.)
    // Scoregroup 2: {5 | 1,3,4,7}; 5-1 met; 5-3 costs a preference (both
    // want B) whatever the remainder does; 5-4 with the remainder 1-3 (7
    // floats, and can meet 11 next) meets every preference: 4-5, 1-3.
    // Scoregroup 1½: {7 | 11}: 11-7.
    // Scoregroup 1: {9,10,14}; 9-10 would float 14, who floated down
    // (bye) two rounds before (C.14); 9-14 costs a preference (C.10); the
    // exchange 9 <-> 10 gives 10-14 floating 9, perfect: 10-14.
    // Scoregroup ½: {9 | 8,12}: 8-9 meets both preferences (9-12 would
    // not); 12 floats down to {13}: 13-12 (13 has absolute W).
    let (pairs, bye) = pair_round(4, &[]);
    assert_eq!(pairs, sorted(vec![(1, 3), (6, 2), (4, 5), (11, 7), (8, 9), (10, 14), (13, 12)]));
    assert_eq!(bye, None);
}

#[test]
fn round_5() {
    // The final round; topscorers have more than 2 points of 4.
    // 3½: {2} moves down. 3: {2 | 1,5}; 2-5 met, so 2-1 (2 wants W, 1 B)
    // and 5 moves down. 2½: {5 | 4,6,11}; 5-4 met; 5-6 would leave 4-11,
    // who met, so 5-11 (5 has absolute W) and 4-6 (6 has absolute B, 4
    // only a mild one). 2: 3-7, both mild W, same colour history: the
    // higher, 3, gets white. 1½: {9,10,14}: 9-10 meets both preferences;
    // 14 floats. 1: {14 | 8,13}; whatever pairs here, the last bracket
    // {12} could not be completed, because 12 has met 8 and 13: this is
    // the penultimate bracket (A.9). Its floater must be able to meet 12:
    // only 14 can, so 8-13 is paired (E.3: in round 2 Kevin had W and
    // Patricia B, so now 13-8) and the collapsed last bracket is 14-12
    // (both strong W, same history: the higher, 14, gets white).
    let (pairs, bye) = pair_round(5, &[]);
    assert_eq!(pairs, sorted(vec![(2, 1), (3, 7), (4, 6), (5, 11), (9, 10), (13, 8), (14, 12)]));
    assert_eq!(bye, None);
}
