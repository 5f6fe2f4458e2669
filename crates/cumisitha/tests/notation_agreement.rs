//! Cumisitha's notation agrees with the references: a FEN half-move clock
//! above 100 is kept, the SAN suffix `e.p.` is read, and a pinned piece's
//! move is illegal rather than malformed.

use tabula_core::{Game, MoveErrorKind, NoOptions, Status};
use tabula_cumisitha::Cumisitha;

const EN_PASSANT: &str = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";

#[test]
fn a_half_move_clock_above_100_is_kept_as_given() {
    let fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 150 80";
    let g = Cumisitha::from_position(fen, &NoOptions).unwrap();
    assert_eq!(g.position().as_deref(), Some(fen));
    assert!(matches!(g.status(), Status::Over(_)), "the counter rule has drawn it");
    // At or below 100 nothing changes.
    let fen = "4k3/8/8/8/8/8/8/4K2R w K - 99 80";
    let mut g = Cumisitha::from_position(fen, &NoOptions).unwrap();
    assert_eq!(g.position().as_deref(), Some(fen));
    g.play(g.check_move("Rh2").unwrap());
    assert_eq!(g.counter(), 100);
}

#[test]
fn the_san_suffix_e_p_is_accepted_glued_or_apart() {
    let g = Cumisitha::from_position(EN_PASSANT, &NoOptions).unwrap();
    for text in ["exf6 e.p.", "exf6e.p.", "exf6 ep", "exf6"] {
        let mv = g.check_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(g.format_move(mv), "e5f6", "{text}");
    }
    let pgn = format!("[FEN \"{EN_PASSANT}\"]\n[SetUp \"1\"]\n\n3. exf6 e.p. Nxf6 *\n");
    let games = tabula_cumisitha::notation::pgn::import(&pgn).unwrap();
    assert_eq!(games[0].moves, 2);
}

#[test]
fn a_pinned_piece_move_is_illegal_not_malformed() {
    // The knight on d2 is pinned by the bishop on b4.
    let g = Cumisitha::from_position("4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1", &NoOptions).unwrap();
    for text in ["Nf3", "Ndf3", "d2f3"] {
        let e = g.check_move(text).unwrap_err();
        assert_eq!(e.kind, MoveErrorKind::Illegal, "{text}: {e}");
        assert!(e.to_string().contains("check"), "{e}");
    }
    // Moving into check with the king, and out of a check the wrong way.
    let g = Cumisitha::from_position("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1", &NoOptions).unwrap();
    assert_eq!(g.check_move("Ke2").unwrap_err().kind, MoveErrorKind::Illegal);
    // No piece could make the move at all: still malformed.
    assert_eq!(g.check_move("Nf3").unwrap_err().kind, MoveErrorKind::Malformed);
}
