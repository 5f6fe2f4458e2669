//! Numbers and letters are read the same way in every game (docs/cli.md,
//! "How input is read"): whole numbers are ASCII digits, leading zeros
//! allowed and no sign; option keys and words ignore case; a move's square
//! letters may be capitals.

use tabula_core::clock::TimeControl;
use tabula_games::REGISTRY;

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn leading_zeros_are_read_and_signs_refused_in_options() {
    let dots = REGISTRY.get("dots").unwrap();
    let o = dots.normalize_options(&pairs(&[("width", "010"), ("height", "0012")])).unwrap();
    assert_eq!(&o[..2], &pairs(&[("width", "10"), ("height", "12")])[..]);
    for bad in ["+10", "-10", "1e1", "10.0", "0x0a"] {
        assert!(dots.normalize_options(&pairs(&[("width", bad)])).is_err(), "width={bad}");
    }
    let cordots = REGISTRY.get("cordots").unwrap();
    let o = cordots.normalize_options(&pairs(&[("mode", "competitive"), ("minutes", "025")])).unwrap();
    assert_eq!(o[1], ("minutes".to_string(), "25".to_string()));
    assert!(cordots.normalize_options(&pairs(&[("mode", "competitive"), ("minutes", "+25")])).is_err());
    // Keys and word values ignore case and spaces in every game.
    assert!(cordots.normalize_options(&pairs(&[(" Mode ", "Blitz")])).is_ok());
    assert!(dots.normalize_options(&pairs(&[("WIDTH", "10"), ("Cross", "OFF")])).is_ok());
}

#[test]
fn leading_zeros_are_read_and_signs_refused_in_positions_and_moves() {
    let cumisitha = REGISTRY.get("cumisitha").unwrap();
    let fen = "4k3/8/8/8/8/8/8/4K2R w K - 007 012";
    let s = cumisitha.from_position(&[], fen).unwrap();
    assert_eq!(s.position().unwrap(), "4k3/8/8/8/8/8/8/4K2R w K - 7 12");
    for bad in ["4k3/8/8/8/8/8/8/4K2R w K - +7 12", "4k3/8/8/8/8/8/8/4K2R w K - 7 +12"] {
        assert!(cumisitha.from_position(&[], bad).is_err(), "{bad}");
    }
    let cordots = REGISTRY.get("cordots").unwrap();
    assert!(cordots.from_position(&[], "cccccccc/vvvvvvvv/8/8/8/8/VVVVVVVV/CCCCCCCC w 00 0").is_ok());
    assert!(cordots.from_position(&[], "cccccccc/vvvvvvvv/8/8/8/8/VVVVVVVV/CCCCCCCC w +0 0").is_err());
    let dots = REGISTRY.get("dots").unwrap();
    let s = dots.new_state(&pairs(&[("width", "10"), ("height", "10")])).unwrap();
    assert_eq!(s.check("01-0002").unwrap(), "1-2");
    assert!(s.check("+1-2").is_err());
    assert!(s.check("1-+2").is_err());
}

#[test]
fn capital_letters_in_moves_are_read_in_every_game() {
    let cases = [("coldwar", "B2", "b2"), ("cordots", "B2-B3", "b2-b3"), ("cumisitha", "E2E4", "e2e4")];
    for (id, typed, canonical) in cases {
        let s = REGISTRY.get(id).unwrap().new_state(&[]).unwrap();
        assert_eq!(s.check(typed).unwrap_or_else(|e| panic!("{id} {typed}: {e}")), canonical, "{id}");
    }
    // In SAN a capital is a piece: B2b4 is not the pawn move b2b4.
    let s = REGISTRY.get("cumisitha").unwrap().new_state(&[]).unwrap();
    assert!(s.check("B2b4").is_err());
    assert_eq!(s.check("e7e8q").unwrap_err().kind, tabula_core::MoveErrorKind::Illegal);
}

#[test]
fn time_controls_read_numbers_the_same_way() {
    assert_eq!(
        TimeControl::parse("fischer:0300+05"),
        Ok(TimeControl::Fischer { base_ms: 300_000, increment_ms: 5_000 })
    );
    assert_eq!(TimeControl::parse("shot:2.5"), Ok(TimeControl::ShotClock { per_move_ms: 2_500 }));
    for bad in ["fischer:+300", "fischer:300++5", "shot:1e3", "shot:-5", "match:inf", "shot:.", "shot:1.2.3"] {
        assert!(TimeControl::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn dots_knockout_needs_a_format_with_a_move_limit() {
    let dots = REGISTRY.get("dots").unwrap();
    let e = dots.normalize_options(&pairs(&[("stage", "knockout")])).unwrap_err();
    assert!(e.to_string().contains("not format=single"), "{e}");
    assert!(dots.normalize_options(&pairs(&[("stage", "knockout"), ("format", "express")])).is_ok());
}
