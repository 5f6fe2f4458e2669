//! The end rules, FEN, moves in UCI and SAN, and the view, through the
//! public API.

use tabula_core::{Game, GameMeta, MoveErrorKind, NoOptions, Player, Status};
use tabula_cumisitha::rules::{self, START_FEN};
use tabula_cumisitha::Cumisitha;

fn at(fen: &str) -> Cumisitha {
    Cumisitha::from_position(fen, &NoOptions).unwrap()
}

fn play(state: &mut Cumisitha, moves: &[&str]) {
    for m in moves {
        let mv = state.check_move(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        state.play(mv);
    }
}

fn over(state: &Cumisitha) -> Option<(Option<Player>, &'static str)> {
    state.status().outcome().map(|o| (o.winner, o.reason))
}

#[test]
fn draw_on_the_hundredth_quiet_ply_and_repetition_plays_on() {
    let mut s = Cumisitha::new(&NoOptions);
    let cycle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    for ply in 0..100 {
        // The start position has now been seen (ply / 4 + 1) times: no repetition rule.
        assert_eq!(s.status(), Status::Ongoing, "ply {ply}");
        play(&mut s, &[cycle[ply % 4]]);
    }
    assert_eq!(over(&s), Some((None, rules::REASON_COUNTER)));
    assert_eq!(s.counter(), 100);
    let mut moves = Vec::new();
    s.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert_eq!(s.check_move("e2e4").unwrap_err().kind, MoveErrorKind::GameOver);
}

#[test]
fn mate_on_the_hundredth_ply_wins() {
    let mut s = at("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80");
    assert_eq!(s.status(), Status::Ongoing);
    play(&mut s, &["a1a8"]);
    assert_eq!(over(&s), Some((Some(Player::First), rules::REASON_CHECKMATE)));
    let mut s = at("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80");
    play(&mut s, &["a1a7"]);
    assert_eq!(over(&s), Some((None, rules::REASON_COUNTER)));
    // A capture or pawn move on that ply resets the counter instead.
    let mut s = at("6k1/5ppp/8/8/8/8/7P/R5K1 w - - 99 80");
    play(&mut s, &["h2h3"]);
    assert_eq!(s.status(), Status::Ongoing);
}

#[test]
fn stalemate_draws_and_checkmate_wins() {
    let mut s = at("k7/8/3Q4/8/8/8/8/4K3 w - - 0 1");
    play(&mut s, &["d6c7"]);
    assert_eq!(over(&s), Some((None, rules::REASON_STALEMATE)));
    // Fool's mate.
    let mut s = Cumisitha::new(&NoOptions);
    play(&mut s, &["f3", "e5", "g4", "Qh4#"]);
    assert_eq!(over(&s), Some((Some(Player::Second), rules::REASON_CHECKMATE)));
}

#[test]
fn bare_kings_play_on_until_the_counter() {
    let mut s = at("8/8/4k3/8/8/4K3/8/8 w - - 0 1");
    let cycle = ["e3d3", "e6d6", "d3e3", "d6e6"];
    for ply in 0..100 {
        assert_eq!(s.status(), Status::Ongoing, "ply {ply}");
        play(&mut s, &[cycle[ply % 4]]);
    }
    assert_eq!(over(&s), Some((None, rules::REASON_COUNTER)));
}

#[test]
fn loaded_positions_are_judged_at_once() {
    assert_eq!(over(&at("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")), Some((None, rules::REASON_STALEMATE)));
    assert_eq!(over(&at("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")), Some((Some(Player::First), rules::REASON_CHECKMATE)));
    assert_eq!(over(&at("4k3/8/8/8/8/8/8/R3K3 w - - 100 90")), Some((None, rules::REASON_COUNTER)));
    let s = at("4k3/8/8/8/8/8/8/R3K3 w - - 150 90");
    assert_eq!(over(&s), Some((None, rules::REASON_COUNTER)));
    // Mate is judged before the counter.
    assert_eq!(over(&at("7k/6Q1/6K1/8/8/8/8/8 b - - 100 90")), Some((Some(Player::First), rules::REASON_CHECKMATE)));
}

#[test]
fn fen_round_trips_and_en_passant_is_written_only_when_legal() {
    let s = Cumisitha::new(&NoOptions);
    assert_eq!(s.position().unwrap(), START_FEN);
    assert_eq!(s.plies(), 0);
    let mut s2 = s.clone();
    play(&mut s2, &["e2e4"]);
    // No black pawn can take on e3.
    assert_eq!(s2.position().unwrap(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert_eq!(s2.plies(), 1);
    let with_ep = at("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    assert_eq!(with_ep.hash(), s2.hash());
    assert_eq!(with_ep.position(), s2.position());
    let mut s3 = at("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
    play(&mut s3, &["c2c4"]);
    assert!(s3.position().unwrap().contains(" b KQkq c3 0 3"), "{:?}", s3.position());
    assert_eq!(s3.plies(), 5);
    play(&mut s3, &["d4c3"]);
    assert_eq!(s3.position().unwrap(), "rnbqkbnr/ppp1pppp/8/8/4P3/2p5/PP1P1PPP/RNBQKBNR w KQkq - 0 4");
    // Four-field FEN gets clocks 0 1.
    assert_eq!(at("4k3/8/8/8/8/8/8/4K3 w - -").position().unwrap(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(at("startpos").position().unwrap(), START_FEN);
}

#[test]
fn bad_fens_get_clear_errors() {
    let cases: &[(&str, &str)] = &[
        ("", "6 fields"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "7 ranks"),
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "not a count"),
        ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 ('ppppppp') covers 7 files"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1", "more than 8 files"),
        ("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "'x' is not a piece letter"),
        ("rnbqqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "Black has 0 kings"),
        ("4k3/8/8/8/8/8/8/4K2P w - - 0 1", "pawn stands on h1"),
        ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", "'w' or 'b'"),
        ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "needs a White rook on h1"),
        ("4k3/8/8/8/8/8/8/3K3R w K - 0 1", "needs the White king on e1"),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkqk - 0 1", "names 'k' twice"),
        ("4k3/8/8/8/8/8/8/4K3 w X - 0 1", "'X' is not one of"),
        ("4k3/8/8/8/8/8/8/4K3 w - e3 0 1", "impossible with White to move"),
        ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "needs a Black pawn on e5"),
        ("4k3/8/8/8/8/8/8/4K3 w - z9 0 1", "a square such as e3"),
        ("4k3/8/8/8/8/8/8/4K3 w - - -1 1", "half-move clock"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", "starts at 1"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 x", "move number is a whole number"),
        ("4k3/8/8/8/8/8/8/R3K3 b - - 0 1", "Black is in check but it is Black's turn"),
        ("3Rk3/8/8/8/8/8/8/4K3 w - - 0 1", "Black is in check but it is White's turn"),
    ];
    for (fen, want) in cases {
        match Cumisitha::from_position(fen, &NoOptions) {
            Ok(_) => {
                if !want.contains("Black's turn") {
                    panic!("'{fen}' was accepted")
                }
            }
            Err(e) => assert!(e.message.contains(want), "'{fen}': '{}' lacks '{want}'", e.message),
        }
    }
}

#[test]
fn moves_read_in_uci_and_san_and_illegal_ones_are_explained() {
    let s = Cumisitha::new(&NoOptions);
    assert_eq!(s.format_move(s.parse_move("Nf3").unwrap()), "g1f3");
    assert_eq!(s.format_move(s.parse_move("e2e4").unwrap()), "e2e4");
    let why = |s: &Cumisitha, m: &str| s.check_move(m).unwrap_err().to_string();
    assert!(why(&s, "e2e5").contains("a pawn on e2 cannot move to e5"));
    assert!(why(&s, "e7e5").contains("is Black's, and White is to move"));
    assert!(why(&s, "e3e4").contains("there is no piece on e3"));
    assert!(why(&s, "g1g3").contains("a knight on g1 cannot move to g3"));
    assert!(why(&s, "d1d2").contains("occupied by White's own pawn"));
    assert!(why(&s, "e1g1").contains("castle") || why(&s, "e1g1").contains("between"));
    assert!(why(&s, "e2e9").contains("not a square"));
    assert!(why(&s, "e2e4x").contains("not a promotion piece"));
    assert!(why(&s, "0000").contains("null move"));
    assert!(why(&s, "").contains("empty move"));
    let s = at("4k3/4P3/8/8/8/8/8/4K3 w - - 0 1");
    assert!(s.check_move("e7e8").is_err());
    let s = at("7k/4P3/8/8/8/8/8/4K3 w - - 0 1");
    assert!(why(&s, "e7e8").contains("must promote"));
    assert_eq!(s.format_move(s.check_move("e7e8q").unwrap()), "e7e8q");
    let s = at("4k3/8/8/8/8/8/8/r3K2R w K - 0 1");
    assert!(why(&s, "e1g1").contains("out of check"));
    let s = at("4k3/8/8/8/8/8/8/R3K2R w K - 0 1");
    assert!(why(&s, "e1c1").contains("can no longer castle queen-side"));
    let s = at("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_eq!(s.format_move(s.check_move("O-O-O").unwrap()), "e1c1");
    let s = at("4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1");
    assert!(why(&s, "d2d3").contains("would leave the White king in check"));
}

#[test]
fn view_and_text_show_the_board() {
    let mut s = Cumisitha::new(&NoOptions);
    play(&mut s, &["e2e4"]);
    let v = s.view();
    assert_eq!(v["squares"][28], "P");
    assert_eq!(v["last_move"]["to"], "e4");
    assert_eq!(v["squares"][63], "r");
    assert_eq!(v["fen"], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert_eq!(v["san"]["g8f6"], "Nf6");
    let t = s.render_text(false);
    assert!(t.contains("8 r n b q k b n r"));
    assert!(t.contains("Black to move"));
    assert!(s.render_text(true).contains("\x1b["));
}
