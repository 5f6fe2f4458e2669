//! Rule tests on hand-made positions, and a naive reference engine to check
//! the bitboards against.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tabula_cordots::bitboard::*;
use tabula_cordots::{Cordots, CordotsOptions, Mode, Move, CAPTURER, VICTIM};
use tabula_core::dynamic::StateBox;
use tabula_core::matches::{Match, MatchError};
use tabula_core::{Game, MoveErrorKind, Player, Status, TimeControl};

/// A position from piece lists like `"Ca1 Vb2"` (kind letter, square).
fn setup_with(white: &str, black: &str, stm: char, reserves: [u8; 2], options: &CordotsOptions) -> Cordots {
    let mut pieces = [[0u64; 2]; 2];
    for (side, list) in [white, black].iter().enumerate() {
        for token in list.split_whitespace() {
            let kind = match &token[..1] {
                "C" => CAPTURER,
                "V" => VICTIM,
                k => panic!("bad kind {k}"),
            };
            pieces[side][kind] |= bit(parse_square(&token[1..]).expect("square"));
        }
    }
    let to_move = if stm == 'w' { Player::First } else { Player::Second };
    Cordots::from_parts(pieces, reserves, to_move, options).expect("test position is valid")
}

fn setup(white: &str, black: &str, stm: char, reserves: [u8; 2]) -> Cordots {
    setup_with(white, black, stm, reserves, &CordotsOptions::default())
}

fn sq(name: &str) -> u8 {
    parse_square(name).unwrap()
}

fn has(g: &Cordots, side: Player, kind: usize, square: &str) -> bool {
    g.pieces(side, kind) & bit(sq(square)) != 0
}

fn empty_at(g: &Cordots, square: &str) -> bool {
    g.piece_at(sq(square)).is_none()
}

/// Play a move given in notation, checking it is legal.
fn play(g: &mut Cordots, text: &str) {
    let m = g.check_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    g.play(m);
    assert_eq!(g.hash(), g.hash_from_scratch(), "hash after {text}");
}

fn legal(g: &Cordots) -> Vec<String> {
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    moves.iter().map(|&m| g.format_move(m)).collect()
}

const W: Player = Player::First;
const B: Player = Player::Second;

#[test]
fn start_position_and_first_moves() {
    let g = Cordots::new(&CordotsOptions::default());
    assert_eq!(g.position().unwrap(), tabula_cordots::START_POSITION);
    assert_eq!(g.to_move(), W);
    assert_eq!(g.counts(CAPTURER), [8, 8]);
    assert_eq!(g.counts(VICTIM), [8, 8]);
    // Only the eight Victims on rank 2 can step forward.
    let moves = legal(&g);
    assert_eq!(moves.len(), 8);
    assert!(moves.contains(&"a2-a3".to_string()));
    let back = Cordots::from_position(tabula_cordots::START_POSITION, &CordotsOptions::default()).unwrap();
    assert_eq!(back.hash(), g.hash());
}

#[test]
fn a_single_capture() {
    let mut g = setup("Cc4 Ve3 Ch1", "Vd4 Ca8 Ch8", 'w', [0, 0]);
    play(&mut g, "e3-e4");
    assert!(empty_at(&g, "d4"), "d4 is bracketed by c4 and e4");
    assert!(has(&g, W, VICTIM, "e4"));
    assert_eq!(g.reserve(B), 0, "a captured Victim is gone, not reserved");
    assert_eq!(g.last_removed(), bit(sq("d4")));
    assert_eq!(g.status(), Status::Ongoing);
}

#[test]
fn a_captured_capturer_goes_to_its_owners_reserve() {
    let mut g = setup("Cc4 Ve3 Ch1", "Cd4 Ca8 Ch8", 'w', [0, 0]);
    play(&mut g, "e3-e4");
    assert!(empty_at(&g, "d4"));
    assert_eq!(g.reserve(B), 1);
    assert_eq!(g.reserve(W), 0);
    assert!(g.position().unwrap().ends_with(" b 0 1"));
}

#[test]
fn a_double_capture_on_two_axes() {
    // e3-e4 brackets d4 (with c4) along the rank and e5 (with e6) along the file.
    let mut g = setup("Cc4 Ce6 Ve3 Ch1", "Cd4 Ve5 Ca8 Ch8", 'w', [0, 0]);
    play(&mut g, "e3-e4");
    assert!(empty_at(&g, "d4"));
    assert!(empty_at(&g, "e5"));
    assert_eq!(g.reserve(B), 1, "only the Capturer goes to the reserve");
    assert_eq!(g.occupied_by(B).count_ones(), 2);
    assert_eq!(g.last_removed(), bit(sq("d4")) | bit(sq("e5")));
}

#[test]
fn the_board_edge_does_not_bracket() {
    let mut g = setup("Vb3 Ch1 Cc1", "Va4 Ca1 Ch8", 'w', [0, 0]);
    play(&mut g, "b3-b4");
    assert!(has(&g, B, VICTIM, "a4"), "a4 against the edge is not bracketed by b4");
    // Nor is a corner piece with one neighbour.
    let mut g = setup("Cc2 Ch1 Cc1", "Ca1 Cb1 Ch8", 'w', [0, 0]);
    assert!(has(&g, B, CAPTURER, "b1"));
    play(&mut g, "c2-b2");
    assert!(has(&g, B, CAPTURER, "b1"));
    assert!(has(&g, B, CAPTURER, "a1"));
}

#[test]
fn a_row_of_two_is_not_captured() {
    let mut g = setup("Cc4 Vf3 Ch1", "Vd4 Ve4 Ca8", 'w', [0, 0]);
    play(&mut g, "f3-f4");
    assert!(has(&g, B, VICTIM, "d4"));
    assert!(has(&g, B, VICTIM, "e4"));
    assert_eq!(g.last_removed(), 0);
}

#[test]
fn step_in_death() {
    // d4 lies between black d5 and d3: a white piece stepping in dies.
    let mut g = setup("Cc4 Ch1 Cg1", "Vd5 Vd3 Ca8", 'w', [0, 0]);
    let r = g.resolve(sq("c4"), sq("d4"));
    assert!(r.dies && r.captured == 0);
    play(&mut g, "c4-d4");
    assert!(empty_at(&g, "d4"));
    assert_eq!(g.reserve(W), 1, "the dead Capturer goes to White's reserve");
    assert!(has(&g, B, VICTIM, "d5") && has(&g, B, VICTIM, "d3"));
    // A Victim that dies is simply gone.
    let mut g = setup("Vc4 Ch1 Cg1", "Vd5 Vd3 Ca8", 'w', [0, 0]);
    play(&mut g, "c4-d4");
    assert!(empty_at(&g, "d4"));
    assert_eq!(g.reserve(W), 0);
}

#[test]
fn step_in_survives_when_its_capture_breaks_the_sandwich() {
    // d4 is between d5 and d3, but arriving there captures d5 (with d6).
    let mut g = setup("Vc4 Cd6 Ch1", "Vd5 Vd3 Ca8", 'w', [0, 0]);
    play(&mut g, "c4-d4");
    assert!(empty_at(&g, "d5"), "the capture resolves first");
    assert!(has(&g, W, VICTIM, "d4"), "so the mover survives");
    assert!(has(&g, B, VICTIM, "d3"));
}

#[test]
fn step_in_still_dies_when_its_capture_is_elsewhere() {
    // Arriving on d4 captures e4 (with f4), but d5 and d3 still sandwich d4.
    let mut g = setup("Vc4 Cf4 Ch1", "Vd5 Vd3 Ve4 Ca8", 'w', [0, 0]);
    play(&mut g, "c4-d4");
    assert!(empty_at(&g, "e4"), "the capture elsewhere still counts");
    assert!(empty_at(&g, "d4"), "but the mover dies");
    assert_eq!(g.last_removed(), bit(sq("e4")) | bit(sq("d4")));
}

#[test]
fn sacrifice_with_a_choice_of_victim() {
    let mut g = setup("Vc7 Vf2 Vg2 Ch1", "Ca5 Ch5 Ch4", 'w', [1, 0]);
    let moves = legal(&g);
    assert!(moves.contains(&"c7-c8=f2".to_string()));
    assert!(moves.contains(&"c7-c8=g2".to_string()));
    assert!(!moves.contains(&"c7-c8".to_string()), "the sacrifice is forced");
    play(&mut g, "c7-c8=f2");
    assert!(empty_at(&g, "c8"), "the arriving Victim is sacrificed");
    assert!(has(&g, W, CAPTURER, "f2"), "f2 is replaced by a restored Capturer");
    assert!(has(&g, W, VICTIM, "g2"));
    assert_eq!(g.reserve(W), 0);
    assert_eq!(g.last_move().unwrap().restore(), Some(sq("f2")));
}

#[test]
fn no_sacrifice_without_a_reserve_capturer() {
    let mut g = setup("Vc7 Vf2 Ch1", "Ca5 Ch5 Ch4", 'w', [0, 0]);
    assert!(legal(&g).contains(&"c7-c8".to_string()));
    let e = g.check_move("c7-c8=f2").unwrap_err();
    assert!(e.reason.contains("no Capturer in reserve"), "{e}");
    play(&mut g, "c7-c8");
    assert!(has(&g, W, VICTIM, "c8"), "the Victim stays on the row");
    assert!(has(&g, W, VICTIM, "f2"));
}

#[test]
fn no_sacrifice_without_a_capturer_on_the_board() {
    let mut g = setup("Vc7 Vf2 Vh1", "Ca5 Ch5 Ch4", 'w', [1, 0]);
    let e = g.check_move("c7-c8=f2").unwrap_err();
    assert!(e.reason.contains("no Capturer on the board"), "{e}");
    play(&mut g, "c7-c8");
    assert!(has(&g, W, VICTIM, "c8"));
    assert_eq!(g.reserve(W), 1);
}

#[test]
fn no_sacrifice_without_another_victim() {
    let mut g = setup("Vc7 Cf2 Ch1", "Ca5 Ch5 Ch4", 'w', [1, 0]);
    let e = g.check_move("c7-c8=f2").unwrap_err();
    assert!(e.reason.contains("no other Victim"), "{e}");
    play(&mut g, "c7-c8");
    assert!(has(&g, W, VICTIM, "c8"));
    assert_eq!(g.reserve(W), 1);
}

#[test]
fn no_sacrifice_when_the_victim_dies_on_arrival() {
    // c8 lies between black b8 and d8.
    let mut g = setup("Vc7 Vf2 Ch1", "Cb8 Cd8 Ch4", 'w', [1, 0]);
    let e = g.check_move("c7-c8=f2").unwrap_err();
    assert!(e.reason.contains("captured on arrival"), "{e}");
    play(&mut g, "c7-c8");
    assert!(empty_at(&g, "c8"));
    assert!(has(&g, W, VICTIM, "f2"), "nothing is restored");
    assert_eq!(g.reserve(W), 1);
}

#[test]
fn a_later_sideways_move_along_the_row_triggers_the_sacrifice() {
    let mut g = setup("Vc7 Vf2 Ca3 Ch1", "Ca4 Cb2 Ch6 Vg6", 'w', [0, 0]);
    play(&mut g, "c7-c8");
    assert!(has(&g, W, VICTIM, "c8"), "no reserve yet: the Victim stays on rank 8");
    // Black captures a3 (a4 above, a2 below): White's reserve fills.
    play(&mut g, "b2-a2");
    assert!(empty_at(&g, "a3"));
    assert_eq!(g.reserve(W), 1);
    // Now a sideways step along rank 8 makes the sacrifice.
    let moves = legal(&g);
    assert!(moves.contains(&"c8-d8=f2".to_string()), "{moves:?}");
    assert!(!moves.contains(&"c8-d8".to_string()));
    assert!(moves.contains(&"c8-c7".to_string()), "stepping back off the row is no sacrifice");
    play(&mut g, "c8-d8=f2");
    assert!(empty_at(&g, "d8"));
    assert!(has(&g, W, CAPTURER, "f2"));
    assert_eq!(g.reserve(W), 0);
}

#[test]
fn black_sacrifices_on_rank_1() {
    let mut g = setup("Ca5 Ch5 Ch4", "Vc2 Vf7 Ch8", 'b', [0, 1]);
    play(&mut g, "c2-c1=f7");
    assert!(empty_at(&g, "c1"));
    assert!(has(&g, B, CAPTURER, "f7"));
}

#[test]
fn the_sacrifice_happens_even_when_the_capture_already_won() {
    // c7-c8 captures d8 (with e8), leaving Black one piece; the sacrifice
    // still belongs to the move.
    let mut g = setup("Vc7 Ce8 Vf2 Ch1", "Cd8 Ca5", 'w', [1, 0]);
    play(&mut g, "c7-c8=f2");
    assert!(empty_at(&g, "d8") && empty_at(&g, "c8"));
    assert!(has(&g, W, CAPTURER, "f2"));
    let o = g.status().outcome().unwrap();
    assert_eq!(o.winner, Some(W));
    assert_eq!(o.reason, "capturer elimination");
}

#[test]
fn total_elimination() {
    let mut g = setup("Cc4 Ve3 Ch1", "Vd4 Va8", 'w', [0, 0]);
    play(&mut g, "e3-e4");
    let o = g.status().outcome().unwrap();
    assert_eq!((o.winner, o.reason), (Some(W), "total elimination"));
    assert!(legal(&g).is_empty());
    // A double capture can leave a side with nothing at all.
    let mut g = setup("Cc4 Ce6 Ve3 Ch1", "Cd4 Ve5 Ca8", 'w', [0, 0]);
    play(&mut g, "e3-e4");
    assert_eq!(g.occupied_by(B).count_ones(), 1);
    let mut g = setup("Cc4 Ce6 Ve3 Ch1", "Cd4 Ve5", 'w', [0, 0]);
    play(&mut g, "e3-e4");
    assert_eq!(g.occupied_by(B), 0);
    assert_eq!(g.status().outcome().unwrap().reason, "total elimination");
    assert_eq!(g.position(), None, "the notation needs a piece of each side");
}

#[test]
fn the_last_piece_being_a_capturer() {
    let mut g = setup("Cc4 Ve3 Ch1", "Vd4 Ca8", 'w', [0, 0]);
    play(&mut g, "e3-e4");
    let o = g.status().outcome().unwrap();
    assert_eq!((o.winner, o.reason), (Some(W), "capturer elimination"));
}

#[test]
fn a_step_in_death_that_leaves_the_mover_one_piece_loses() {
    let mut g = setup("Cc4 Ch1", "Vd5 Vd3 Ca8", 'w', [0, 0]);
    play(&mut g, "c4-d4");
    let o = g.status().outcome().unwrap();
    assert_eq!((o.winner, o.reason), (Some(B), "capturer elimination"));
}

#[test]
fn no_legal_move_loses() {
    // Black's a8 and b8 are boxed in by a7, b7 and (after the move) c8.
    let mut g = setup("Va7 Vb7 Cd8 Ch1", "Ca8 Vb8", 'w', [0, 0]);
    assert_eq!(g.status(), Status::Ongoing);
    play(&mut g, "d8-c8");
    let o = g.status().outcome().unwrap();
    assert_eq!((o.winner, o.reason), (Some(W), "no legal move"));
    // A loaded position is judged at once.
    let p = g.position().unwrap();
    let back = Cordots::from_position(&p, &CordotsOptions::default()).unwrap();
    assert_eq!(back.status(), g.status());
}

#[test]
fn threefold_repetition_is_a_draw() {
    let mut g = Cordots::new(&CordotsOptions::default());
    for round in 0..2 {
        for m in ["a2-a3", "a7-a6", "a3-a2", "a6-a7"] {
            assert_eq!(g.status(), Status::Ongoing, "round {round} before {m}");
            play(&mut g, m);
        }
    }
    assert_eq!(g.repetitions(), 3);
    let o = g.status().outcome().unwrap();
    assert_eq!((o.winner, o.reason), (None, "threefold repetition"));
}

#[test]
fn repetition_counts_from_a_loaded_position() {
    let mut g = setup("Cc1 Cd1", "Cc8 Cd8", 'w', [0, 0]);
    for m in ["c1-c2", "c8-c7", "c2-c1", "c7-c8", "c1-c2", "c8-c7", "c2-c1"] {
        play(&mut g, m);
        assert_eq!(g.status(), Status::Ongoing);
    }
    play(&mut g, "c7-c8");
    assert_eq!(g.status().outcome().unwrap().reason, "threefold repetition");
}

#[test]
fn tie_breaker_counts_victims_or_in_burnout_capturers() {
    // More Victims wins, whatever the Capturers.
    let g = setup("Va1 Vb1 Vc1", "Vh8 Vg8 Ca8 Cb8 Cc8", 'w', [0, 0]);
    assert_eq!(g.tiebreak(), Some(W));
    // One side without Victims is no burnout while the other has one.
    let g = setup("Ca1 Cb1 Cc1", "Vh8 Ca8", 'w', [0, 0]);
    assert_eq!(g.tiebreak(), Some(B));
    // Burnout: Capturers decide.
    let g = setup("Ca1 Cb1 Cc1", "Ch8 Ca8", 'w', [0, 0]);
    assert_eq!(g.tiebreak(), Some(W));
    // Level counts, and reserves never count.
    let g = setup("Ca1 Cb1", "Ch8 Ca8", 'w', [0, 6]);
    assert_eq!(g.tiebreak(), None);
    let g = setup("Va1 Cb1", "Vh8 Ca8 Cc8", 'w', [0, 0]);
    assert_eq!(g.tiebreak(), None);
}

/// A random game from the start in `mode`, stopping before the cap would
/// apply; returns the moves played.
fn long_random_game(mode: Mode, seed: u64, plies: u32) -> Option<Vec<Move>> {
    let mut g = Cordots::new(&CordotsOptions::with_mode(mode));
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut moves = Vec::new();
    let mut played = Vec::new();
    while (played.len() as u32) < plies {
        if g.status().is_over() {
            return None;
        }
        g.legal_moves(&mut moves);
        let m = moves[rng.random_range(0..moves.len())];
        g.play(m);
        played.push(m);
    }
    Some(played)
}

#[test]
fn untimed_games_stop_at_the_ply_cap_judged_by_the_tie_breaker() {
    let (seed, moves) = (0..200)
        .find_map(|seed| long_random_game(Mode::Untimed, seed, 300).map(|m| (seed, m)))
        .expect("some random game lasts 300 plies");
    let mut g = Cordots::new(&CordotsOptions::default());
    for (i, &m) in moves.iter().enumerate() {
        assert_eq!(g.status(), Status::Ongoing, "seed {seed} ply {i}");
        g.play(m);
    }
    let o = g.status().outcome().unwrap();
    assert_eq!(o.winner, g.tiebreak());
    let expected = if o.winner.is_some() { "tie-breaker at the ply cap" } else { "level at the ply cap" };
    assert_eq!(o.reason, expected);
    // The same game under a clock goes on: the cap stands in for the clock only when untimed.
    for mode in [Mode::Competitive, Mode::Blitz] {
        let mut g = Cordots::new(&CordotsOptions::with_mode(mode));
        for &m in &moves {
            g.play(m);
        }
        assert_eq!(g.status(), Status::Ongoing, "{mode:?}");
    }
}

// ---- Match modes through the clock layer, with injected time ----

fn timed(g: Cordots) -> Match {
    let control = tabula_core::GameMeta::time_control(&g).expect("a timed mode");
    Match::new(Box::new(StateBox(g)), control, 0)
}

fn competitive(white: &str, black: &str) -> Cordots {
    let o = CordotsOptions { mode: Mode::Competitive, minutes: 20 };
    setup_with(white, black, 'w', [0, 0], &o)
}

const TWENTY_MIN: u64 = 20 * 60_000;
const OVERTIME: u64 = 5 * 60_000;

#[test]
fn competitive_expiry_uses_the_victim_majority() {
    let mut m = timed(competitive("Va1 Vb1 Ch1", "Va8 Ch8 Cg8"));
    assert!(matches!(m.clock.control, TimeControl::MatchClock { total_ms: 1_200_000, overtime_ms: 300_000 }));
    m.play("a1-a2", 500_000).unwrap();
    m.play("a8-a7", 1_000_000).unwrap();
    assert_eq!(m.tick(TWENTY_MIN - 1), None);
    let r = m.tick(TWENTY_MIN).expect("the match clock ran out");
    assert_eq!(r.winner, Some(W), "two Victims against one");
    assert_eq!(r.reason, "tie-breaker at time");
}

#[test]
fn competitive_expiry_in_burnout_uses_the_capturer_majority() {
    let mut m = timed(competitive("Ca1 Cb1", "Ca8 Cb8 Ch8"));
    let r = m.tick(TWENTY_MIN).unwrap();
    assert_eq!(r.winner, Some(B), "no Victims: three Capturers against two");
}

#[test]
fn a_level_count_gets_one_overtime_that_can_be_won() {
    // Level Victims; in overtime White captures d4 and leads.
    let mut m = timed(competitive("Cc4 Ve3 Ch1 Va1", "Vd4 Ca8 Ch8 Vh6"));
    assert_eq!(m.tick(TWENTY_MIN), None, "level: overtime starts");
    assert!(m.clock.in_overtime());
    m.play("e3-e4", TWENTY_MIN + 60_000).unwrap();
    assert_eq!(m.state.tiebreak(), Some(W));
    assert_eq!(m.tick(TWENTY_MIN + OVERTIME - 1), None);
    let r = m.tick(TWENTY_MIN + OVERTIME).unwrap();
    assert_eq!((r.winner, r.reason.as_str()), (Some(W), "tie-breaker after overtime"));
}

#[test]
fn a_level_count_after_overtime_is_a_draw() {
    let mut m = timed(competitive("Va1 Ch1", "Va8 Ch8"));
    assert_eq!(m.tick(TWENTY_MIN), None);
    m.play("a1-a2", TWENTY_MIN + 1_000).unwrap();
    m.play("a8-a7", TWENTY_MIN + 2_000).unwrap();
    let r = m.tick(TWENTY_MIN + OVERTIME).unwrap();
    assert_eq!((r.winner, r.reason.as_str()), (None, "level after overtime"));
    assert!(matches!(m.play("a2-a3", TWENTY_MIN + OVERTIME + 1), Err(MatchError::Finished(_))));
}

#[test]
fn competitive_clock_lengths_follow_the_minutes_option() {
    for (minutes, ms) in [(20u8, 1_200_000u64), (25, 1_500_000), (30, 1_800_000)] {
        let o = CordotsOptions { mode: Mode::Competitive, minutes };
        let mut m = timed(Cordots::new(&o));
        assert_eq!(m.tick(ms - 1), None);
        // The start is level: overtime.
        assert_eq!(m.tick(ms), None);
        assert!(m.clock.in_overtime());
    }
}

#[test]
fn blitz_expiry_loses() {
    let o = CordotsOptions::with_mode(Mode::Blitz);
    let mut m = timed(Cordots::new(&o));
    m.play("a2-a3", 44_000).unwrap();
    // Black has 45 s from 44 s.
    assert_eq!(m.tick(88_999), None);
    let r = m.tick(89_000).unwrap();
    assert_eq!((r.winner, r.reason.as_str()), (Some(W), "black ran out of time"));
    // A move that arrives late does not count.
    let mut m = timed(Cordots::new(&o));
    match m.play("a2-a3", 45_000) {
        Err(MatchError::TimeUp(r)) => assert_eq!(r.winner, Some(B)),
        other => panic!("expected time up, got {other:?}"),
    }
}

// ---- Errors ----

#[test]
fn malformed_moves_get_clear_errors() {
    let g = Cordots::new(&CordotsOptions::default());
    for (text, part) in [
        ("", "empty move"),
        ("e2e4", "expected a step like b2-b3"),
        ("i2-i3", "'i2' is not a square"),
        ("a2-a9", "'a9' is not a square"),
        ("a2-a3=z9", "'z9' is not a square"),
        ("a2-", "'' is not a square"),
    ] {
        let e = g.check_move(text).unwrap_err();
        assert_eq!(e.kind, MoveErrorKind::Malformed, "{text}");
        assert!(e.reason.contains(part), "{text}: {e}");
    }
}

#[test]
fn illegal_moves_say_why() {
    let g = Cordots::new(&CordotsOptions::default());
    for (text, part) in [
        ("a3-a4", "no piece on a3"),
        ("a7-a6", "holds a black Victim, and it is white's turn"),
        ("a2-b3", "not a step"),
        ("a2-a4", "not a step"),
        ("a1-a2", "occupied by a white Victim"),
        ("a2-a3=b2", "makes no back-row sacrifice"),
    ] {
        let e = g.check_move(text).unwrap_err();
        assert_eq!(e.kind, MoveErrorKind::Illegal, "{text}");
        assert!(e.reason.contains(part), "{text}: {e}");
    }
    let g = setup("Vc7 Vf2 Vg2 Ch1", "Ca5 Ch5 Ch4", 'w', [1, 0]);
    let e = g.check_move("c7-c8").unwrap_err();
    assert!(e.reason.contains("forces the back-row sacrifice") && e.reason.contains("f2, g2"), "{e}");
    let e = g.check_move("c7-c8=h1").unwrap_err();
    assert!(e.reason.contains("h1 is not another white Victim"), "{e}");
    let e = g.check_move("c7-c8=c7").unwrap_err();
    assert!(e.reason.contains("not another white Victim"), "{e}");
    // After the end.
    let mut g = setup("Cc4 Ve3 Ch1", "Vd4 Va8", 'w', [0, 0]);
    play(&mut g, "e3-e4");
    assert_eq!(g.check_move("a8-a7").unwrap_err().kind, MoveErrorKind::GameOver);
}

#[test]
fn malformed_and_invalid_positions_get_clear_errors() {
    let o = CordotsOptions::default();
    for (text, part) in [
        ("", "4 fields"),
        ("cccccccc/vvvvvvvv/8/8/8/8/VVVVVVVV/CCCCCCCC w 0", "4 fields"),
        ("cccccccc/vvvvvvvv/8/8/8/8/VVVVVVVV w 0 0", "8 ranks"),
        ("cccccccc/vvvvvvvv/8/8/8/8/VVVVVVVV/CCCCCCC w 0 0", "rank 1 ('CCCCCCC') covers 7 files"),
        ("ccccccccc/vvvvvvvv/8/8/8/8/VVVVVVVV/CCCCCCCC w 0 0", "rank 8 ('ccccccccc') covers more than 8"),
        ("cccccccc/vvvvvvvv/9/8/8/8/VVVVVVVV/CCCCCCCC w 0 0", "rank 6: '9'"),
        ("cccccccc/vvvvvvvv/8/8/4k3/8/VVVVVVVV/CCCCCCCC w 0 0", "rank 4: 'k' is neither a piece"),
        ("cccccccc/vvvvvvvv/8/8/8/8/VVVVVVVV/CCCCCCCC x 0 0", "'w' or 'b', not 'x'"),
        ("cccccccc/vvvvvvvv/8/8/8/8/VVVVVVVV/CCCCCCCC w 9 0", "White's reserve"),
        ("cccccccc/vvvvvvvv/8/8/8/8/VVVVVVVV/CCCCCCCC w 0 -1", "Black's reserve"),
        ("cccccccc/vvvvvvvv/8/8/8/8/VVVVVVVV/CCCCCCCC w 1 0", "9 Capturers on the board and in reserve"),
        ("cccccccc/vvvvvvvv/8/8/8/VVV5/VVVVVVVV/CCCCCCCC w 0 0", "11 Victims"),
        ("cccccccc/8/8/8/8/8/8/8 w 0 0", "white has no piece"),
        ("c7/8/8/8/8/8/8/7C w 0 0", "both sides are down to one piece"),
        ("c7/8/8/8/2VcV3/8/8/7C w 0 0", "black piece on d4 is sandwiched"),
    ] {
        let e = Cordots::from_position(text, &o).unwrap_err();
        assert!(e.message.contains(part), "{text}: {}", e.message);
    }
}

#[test]
fn a_loaded_position_is_judged_at_once() {
    let o = CordotsOptions::default();
    // The side to move has one piece left.
    let g = Cordots::from_position("c7/8/8/8/8/8/8/6CC b 0 0", &o).unwrap();
    assert_eq!(g.status().outcome().unwrap().winner, Some(W));
    assert!(legal(&g).is_empty());
    // The side not to move has one Victim left.
    let g = Cordots::from_position("v7/8/8/8/8/8/8/6CC w 0 0", &o).unwrap();
    let o2 = g.status().outcome().unwrap();
    assert_eq!((o2.winner, o2.reason), (Some(W), "total elimination"));
    // A Victim left on the target row by an earlier move is a valid position.
    let g = Cordots::from_position("2V5/8/8/8/8/8/5V2/cc5C w 1 0", &o).unwrap();
    assert_eq!(g.status(), Status::Ongoing);
    assert!(legal(&g).contains(&"c8-d8=f2".to_string()));
}

// ---- A naive reference engine: squares, not bitboards ----

#[derive(Clone, PartialEq, Debug)]
struct Naive {
    board: [Option<(usize, usize)>; 64],
    reserve: [u8; 2],
    side: usize,
}

impl Naive {
    fn from(g: &Cordots) -> Naive {
        let mut board = [None; 64];
        for (s, b) in board.iter_mut().enumerate() {
            *b = g.piece_at(s as u8).map(|(p, k)| (p.index(), k));
        }
        Naive { board, reserve: [g.reserve(W), g.reserve(B)], side: g.to_move().index() }
    }

    fn at(&self, f: i32, r: i32) -> Option<(usize, usize)> {
        if (0..8).contains(&f) && (0..8).contains(&r) {
            self.board[(r * 8 + f) as usize]
        } else {
            None
        }
    }

    fn enemy_of(&self, f: i32, r: i32, side: usize) -> bool {
        self.at(f, r).is_some_and(|(s, _)| s != side)
    }

    fn is_sandwiched(&self, sq: usize) -> bool {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let side = self.board[sq].unwrap().0;
        (self.enemy_of(f - 1, r, side) && self.enemy_of(f + 1, r, side))
            || (self.enemy_of(f, r - 1, side) && self.enemy_of(f, r + 1, side))
    }

    /// The moves as (from, to, restore) following the rules text literally.
    fn moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        for from in 0..64usize {
            let Some((s, _)) = self.board[from] else { continue };
            if s != self.side {
                continue;
            }
            let (f, r) = ((from % 8) as i32, (from / 8) as i32);
            for (df, dr) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
                let (tf, tr) = (f + df, r + dr);
                if !(0..8).contains(&tf) || !(0..8).contains(&tr) || self.at(tf, tr).is_some() {
                    continue;
                }
                let to = (tr * 8 + tf) as usize;
                let mut after = self.clone();
                let restores = after.apply(from, to, None);
                if restores.is_empty() {
                    out.push(Move::step(from as u8, to as u8));
                } else {
                    out.extend(restores.into_iter().map(|x| Move::sacrifice(from as u8, to as u8, x as u8)));
                }
            }
        }
        out
    }

    /// Apply a step; returns the Victims that could be restored when the
    /// move ends in a sacrifice (applying `restore` if given).
    fn apply(&mut self, from: usize, to: usize, restore: Option<usize>) -> Vec<usize> {
        let (s, kind) = self.board[from].take().unwrap();
        self.board[to] = Some((s, kind));
        // Active captures, all at once.
        let (f, r) = ((to % 8) as i32, (to / 8) as i32);
        let mut captured = Vec::new();
        for (df, dr) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
            let (ef, er) = (f + df, r + dr);
            if self.enemy_of(ef, er, s) && self.at(ef + df, er + dr).is_some_and(|(o, _)| o == s) {
                captured.push((er * 8 + ef) as usize);
            }
        }
        for &c in &captured {
            let (o, k) = self.board[c].take().unwrap();
            if k == CAPTURER {
                self.reserve[o] += 1;
            }
        }
        let mut restores = Vec::new();
        if self.is_sandwiched(to) {
            self.board[to] = None;
            if kind == CAPTURER {
                self.reserve[s] += 1;
            }
        } else {
            let target_rank = if s == 0 { 7 } else { 0 };
            let own = |k: usize| (0..64).filter(|&q| self.board[q] == Some((s, k))).collect::<Vec<_>>();
            let others: Vec<usize> = own(VICTIM).into_iter().filter(|&q| q != to).collect();
            if kind == VICTIM
                && to / 8 == target_rank
                && !own(CAPTURER).is_empty()
                && self.reserve[s] > 0
                && !others.is_empty()
            {
                self.board[to] = None;
                if let Some(x) = restore {
                    self.board[x] = Some((s, CAPTURER));
                    self.reserve[s] -= 1;
                }
                restores = others;
            }
        }
        self.side = 1 - s;
        restores
    }
}

#[test]
fn bitboards_agree_with_a_naive_reading_of_the_rules() {
    let mut moves = Vec::new();
    for seed in 0..150 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut g = Cordots::new(&CordotsOptions::default());
        while !g.status().is_over() {
            let naive = Naive::from(&g);
            g.legal_moves(&mut moves);
            let mut expected = naive.moves();
            let mut got = moves.clone();
            let key = |m: &Move| (m.from, m.to, m.restore);
            expected.sort_by_key(key);
            got.sort_by_key(key);
            assert_eq!(got, expected, "seed {seed} ply {} at {:?}", g.plies(), g.position());
            let m = moves[rng.random_range(0..moves.len())];
            let mut after = naive.clone();
            after.apply(m.from as usize, m.to as usize, m.restore().map(|r| r as usize));
            g.play(m);
            assert_eq!(Naive::from(&g), after, "seed {seed} after {}", g.format_move(m));
        }
    }
}

#[test]
fn the_fast_random_move_is_always_legal() {
    let mut rng = SmallRng::seed_from_u64(7);
    let mut moves = Vec::new();
    for _ in 0..100 {
        let mut g = Cordots::new(&CordotsOptions::default());
        while !g.status().is_over() {
            g.legal_moves(&mut moves);
            let m = g.random_move(&mut rng).expect("an ongoing game has a move");
            assert!(moves.contains(&m), "{m:?} at {:?}", g.position());
            g.play(m);
        }
    }
}

#[test]
fn random_playouts_end_by_the_rules() {
    let mut rng = SmallRng::seed_from_u64(3);
    let mut buf = Vec::new();
    let mut reasons = std::collections::BTreeSet::new();
    for _ in 0..300 {
        let mut g = Cordots::new(&CordotsOptions::default());
        let n = g.random_playout(&mut rng, &mut buf, u32::MAX);
        assert!(n <= 300);
        assert_eq!(g.plies(), n);
        reasons.insert(g.status().outcome().expect("over").reason);
    }
    // Random play reaches several of the endings.
    assert!(reasons.len() >= 2, "{reasons:?}");
}

#[test]
fn a_search_pass_hands_over_the_move_and_judges_the_new_mover() {
    let mut g = Cordots::new(&CordotsOptions::default());
    play(&mut g, "a2-a3");
    let before = g.clone();
    g.pass_for_search();
    assert_eq!(g.to_move(), W);
    assert_eq!(g.plies(), before.plies() + 1);
    assert_eq!(g.hash(), g.hash_from_scratch());
    assert_eq!(g.repetitions(), 1, "a passed position never happened before");
    assert_eq!(g.status(), Status::Ongoing);
    // A side handed the move with no step to make has lost, as in play.
    // White's a1 and a2 are walled in by b1, b2 and a3.
    let mut boxed = setup("Ca1 Va2", "Cb1 Cb2 Ca3 Vh8", 'b', [0, 0]);
    assert_eq!(boxed.status(), Status::Ongoing);
    boxed.pass_for_search();
    assert!(
        matches!(boxed.status(), Status::Over(o) if o.winner == Some(B) && o.reason == "no legal move"),
        "{:?}",
        boxed.status()
    );
}
