//! Every rule from hand-made positions, the lesson scenes of the source,
//! and the fast engine against a literal flood-fill reference.

mod reference;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use reference::{color_of, RefBoard, BLUE, RED};
use tabula_core::{Game, Player, Status};
use tabula_dots::{Dots, DotsOptions, Format, Point, Stage};

const B: Player = Player::First;
const R: Player = Player::Second;

fn board(w: u8, h: u8) -> Dots {
    Dots::new(&DotsOptions { cross: false, ..DotsOptions::sized(w, h) })
}

fn pt(d: &Dots, s: &str) -> Point {
    d.parse_move(s).unwrap()
}

/// Place setup dots: `who` at each point, in order.
fn put(d: &mut Dots, who: Player, points: &[&str]) {
    for s in points {
        let p = pt(d, s);
        assert!(d.place_setup(who, p), "{s} not playable");
    }
}

/// Play moves in turn from the side to move, checking each is legal.
fn play(d: &mut Dots, moves: &[&str]) {
    for m in moves {
        let mv = d.check_move(m).unwrap_or_else(|e| panic!("{e}"));
        d.play(mv);
    }
}

fn captured(d: &Dots, s: &str) -> bool {
    d.dot_at(pt(d, s)).expect("a dot").1
}

#[test]
fn cross_sits_in_the_centre() {
    let d = Dots::new(&DotsOptions::default());
    for (s, who) in [("20-16", B), ("21-17", B), ("21-16", R), ("20-17", R)] {
        assert_eq!(d.dot_at(pt(&d, s)), Some((who, false)), "{s}");
    }
    assert_eq!(d.plies(), 0);
    assert_eq!(d.to_move(), B);
    let small = Dots::new(&DotsOptions::sized(5, 5));
    assert_eq!(small.dot_at(pt(&small, "3-3")), Some((B, false)));
    assert_eq!(small.dot_at(pt(&small, "4-4")), Some((B, false)));
    assert_eq!(small.dot_at(pt(&small, "4-3")), Some((R, false)));
    let off = board(39, 32);
    assert!(off.dot_at(pt(&off, "20-16")).is_none());
}

#[test]
fn notation_and_errors() {
    let d = Dots::new(&DotsOptions::default());
    assert_eq!(d.format_move(pt(&d, "1-1")), "1-1");
    assert_eq!(d.format_move(pt(&d, " 39-32 ")), "39-32");
    for bad in ["", "20", "20-", "-16", "0-1", "40-1", "1-33", "a-b", "20-16-1", "1e3-2", "+1-2"] {
        assert!(d.parse_move(bad).is_err(), "{bad} accepted");
    }
    let e = d.check_move("20-16").unwrap_err();
    assert!(e.reason.contains("already holds a blue dot"), "{}", e.reason);
    assert!(Dots::from_position("x", &DotsOptions::default()).unwrap_err().message.contains("no position"));
    assert!(d.position().is_none());
}

/// Lesson "The first capture": closed, one dot captured, 1:0.
#[test]
fn lesson_first_capture() {
    let mut d = board(10, 10);
    put(&mut d, R, &["5-5"]);
    put(&mut d, B, &["5-6", "6-5", "5-4"]);
    play(&mut d, &["4-5"]);
    assert!(captured(&d, "5-5"));
    assert_eq!(d.scores(), [1, 0]);
    assert_eq!(d.territory_at(pt(&d, "5-5")), Some(B));
}

/// Lesson "A bigger area": red takes three blue dots at once, 0:3.
#[test]
fn lesson_bigger_area() {
    let mut d = board(12, 12);
    put(&mut d, B, &["5-5", "6-5", "6-6"]);
    put(&mut d, R, &["4-5", "5-4", "6-4", "7-5", "7-6", "6-7"]);
    d.set_to_move(R);
    assert_eq!(d.scores(), [0, 0]);
    play(&mut d, &["5-6"]);
    assert_eq!(d.scores(), [0, 3]);
    for s in ["5-5", "6-5", "6-6"] {
        assert!(captured(&d, s), "{s}");
    }
}

/// Lesson "No dots inside a capture": neither on a captured dot nor on an
/// empty point of the territory.
#[test]
fn lesson_no_dot_inside_a_capture() {
    let mut d = board(12, 12);
    put(&mut d, R, &["5-5"]);
    put(&mut d, B, &["5-7", "6-6", "6-5", "5-4", "4-5", "4-6"]);
    // The blue ring 5-7 6-6 6-5 5-4 4-5 4-6 encloses 5-5 and 5-6.
    assert_eq!(d.scores(), [1, 0]);
    assert_eq!(d.territory_at(pt(&d, "5-6")), Some(B));
    d.set_to_move(R);
    let e = d.check_move("5-6").unwrap_err();
    assert!(e.reason.contains("inside blue's territory"), "{}", e.reason);
    let e = d.check_move("5-5").unwrap_err();
    assert!(e.reason.contains("captured red dot"), "{}", e.reason);
    let mut moves = Vec::new();
    d.legal_moves(&mut moves);
    assert!(!moves.contains(&pt(&d, "5-6")) && !moves.contains(&pt(&d, "5-5")));
}

/// Lesson "A captured dot is out of play": it no longer links a chain,
/// so a ring through it never closes, and its point cannot be played.
#[test]
fn lesson_captured_dot_breaks_the_chain() {
    let mut d = board(12, 12);
    put(&mut d, B, &["7-5"]);
    put(&mut d, R, &["7-6", "8-5", "7-4", "6-5"]);
    assert!(captured(&d, "7-5"));
    assert_eq!(d.scores(), [0, 1]);
    // Blue rings red 6-5 with the captured 7-5 as the east link.
    put(&mut d, B, &["6-6", "5-5"]);
    play(&mut d, &["6-4"]);
    assert!(!captured(&d, "6-5"), "a ring through a captured dot is not closed");
    assert_eq!(d.scores(), [0, 1]);
    d.set_to_move(B);
    let e = d.check_move("7-5").unwrap_err();
    assert!(e.reason.contains("captured blue dot"), "{}", e.reason);
    // Control: with an active blue dot in that place the ring closes.
    let mut c = board(12, 12);
    put(&mut c, R, &["6-5"]);
    put(&mut c, B, &["7-5", "6-6", "5-5", "6-4"]);
    assert!(captured(&c, "6-5"));
}

/// Lesson "The edge of the board": a border dot surrounded on every
/// available side is not captured, 0:0.
#[test]
fn lesson_edge_dot_is_never_captured() {
    let mut d = board(10, 10);
    put(&mut d, B, &["1-5"]);
    put(&mut d, R, &["1-6", "1-4"]);
    d.set_to_move(R);
    play(&mut d, &["2-5"]);
    assert!(!captured(&d, "1-5"));
    assert_eq!(d.scores(), [0, 0]);
    // And a corner.
    put(&mut d, B, &["1-1"]);
    put(&mut d, R, &["2-1", "1-2", "2-2"]);
    assert!(!captured(&d, "1-1"));
    assert_eq!(d.scores(), [0, 0]);
}

/// Lesson "Recapturing territory": red closes an outer ring around blue's
/// chain and its territory: blue loses its capture, red takes 7, 0:8.
#[test]
fn lesson_recapturing_territory() {
    let mut d = board(14, 14);
    // Red has taken one blue dot elsewhere: 0:1.
    put(&mut d, B, &["12-12"]);
    put(&mut d, R, &["12-13", "13-12", "12-11", "11-12"]);
    assert_eq!(d.scores(), [0, 1]);
    // Blue (7 dots) captures red 6-6: 1:1.
    put(&mut d, R, &["6-6"]);
    put(&mut d, B, &["6-7", "7-6", "6-5", "5-6", "7-7", "8-7", "8-8"]);
    assert_eq!(d.scores(), [1, 1]);
    // Red's outer ring around all of it.
    let ring = ["6-8", "7-8", "8-9", "9-8", "9-7", "8-6", "7-5", "6-4", "5-5", "4-6", "5-7"];
    put(&mut d, R, &ring[..ring.len() - 1]);
    assert_eq!(d.scores(), [1, 1]);
    d.set_to_move(R);
    play(&mut d, &[ring[ring.len() - 1]]);
    assert_eq!(d.scores(), [0, 8]);
    assert_eq!(d.territory_at(pt(&d, "6-6")), Some(R));
    // Red's own dot back in red territory counts for nobody, stays captured.
    assert_eq!(d.dot_at(pt(&d, "6-6")), Some((R, true)));
}

#[test]
fn dot_into_an_empty_base_is_captured() {
    let mut d = board(10, 10);
    put(&mut d, B, &["5-6", "6-5", "5-4", "4-5"]);
    assert!(d.enclosed_by(pt(&d, "5-5"), B));
    assert_eq!(d.territory_at(pt(&d, "5-5")), None, "an empty base is not territory");
    d.set_to_move(R);
    play(&mut d, &["5-5"]);
    assert!(captured(&d, "5-5"));
    assert_eq!(d.scores(), [1, 0]);
    assert_eq!(d.territory_at(pt(&d, "5-5")), Some(B));
}

#[test]
fn own_capture_takes_priority() {
    let mut d = board(10, 10);
    // A blue base around 5-5; red surrounds the blue wall dot 6-5 on
    // three sides, and 5-5 closes red's ring from inside blue's base.
    put(&mut d, B, &["5-6", "6-5", "5-4", "4-5"]);
    put(&mut d, R, &["6-6", "7-5", "6-4"]);
    assert!(d.enclosed_by(pt(&d, "5-5"), B));
    d.set_to_move(R);
    play(&mut d, &["5-5"]);
    assert!(!captured(&d, "5-5"), "red's own capture came first");
    assert!(captured(&d, "6-5"));
    assert_eq!(d.scores(), [0, 1]);
    assert!(!d.enclosed_by(pt(&d, "5-5"), B));
}

#[test]
fn two_bases_closed_by_one_move() {
    let mut d = board(10, 10);
    put(&mut d, R, &["3-3", "5-3"]);
    put(&mut d, B, &["3-4", "2-3", "3-2", "5-4", "6-3", "5-2"]);
    play(&mut d, &["4-3"]);
    assert!(captured(&d, "3-3") && captured(&d, "5-3"));
    assert_eq!(d.scores(), [2, 0]);
}

#[test]
fn empty_base_dissolves_when_its_wall_is_captured() {
    let mut d = board(12, 12);
    // A blue base of two points, 4-5 and 5-5.
    put(&mut d, B, &["5-6", "6-5", "5-4", "4-6", "3-5", "4-4"]);
    assert!(d.enclosed_by(pt(&d, "4-5"), B) && d.enclosed_by(pt(&d, "5-5"), B));
    // Red closes around the wall dot 6-5 from inside the base.
    put(&mut d, R, &["6-6", "7-5", "6-4"]);
    d.set_to_move(R);
    play(&mut d, &["5-5"]);
    assert!(captured(&d, "6-5"));
    assert!(!captured(&d, "5-5"));
    assert!(!d.enclosed_by(pt(&d, "4-5"), B), "the base is gone with its wall");
    // So a red dot there is safe now.
    d.set_to_move(R);
    play(&mut d, &["4-5"]);
    assert!(!captured(&d, "4-5"));
    assert_eq!(d.scores(), [0, 1]);
}

#[test]
fn one_move_closes_two_empty_bases() {
    let mut d = board(10, 10);
    put(&mut d, B, &["3-4", "2-3", "3-2", "5-4", "6-3", "5-2"]);
    play(&mut d, &["4-3"]);
    assert!(d.enclosed_by(pt(&d, "3-3"), B) && d.enclosed_by(pt(&d, "5-3"), B));
    assert_eq!(d.scores(), [0, 0]);
    assert_eq!(d.territory_at(pt(&d, "3-3")), None);
    // An enemy dot in either is captured at once.
    play(&mut d, &["5-3"]);
    assert!(captured(&d, "5-3"));
    assert_eq!(d.scores(), [1, 0]);
    assert!(d.enclosed_by(pt(&d, "3-3"), B));
}

#[test]
fn grounding_is_orthogonal_and_permanent() {
    let mut d = board(10, 10);
    put(&mut d, B, &["1-5", "2-5", "3-5", "4-6"]);
    assert!(d.is_grounded(pt(&d, "1-5")) && d.is_grounded(pt(&d, "3-5")));
    assert!(!d.is_grounded(pt(&d, "4-6")), "a diagonal link alone does not ground");
    assert_eq!(d.ungrounded_dots(B), 1);
    put(&mut d, B, &["4-5"]);
    assert!(d.is_grounded(pt(&d, "4-6")));
    assert_eq!(d.ungrounded_dots(B), 0);
    // Territory grounds too: blue's capture touching the border.
    let mut d = board(10, 10);
    put(&mut d, R, &["2-2"]);
    put(&mut d, B, &["2-1", "1-2", "3-2", "2-3"]);
    assert_eq!(d.scores(), [1, 0]);
    assert!(d.is_grounded(pt(&d, "2-2")), "territory touching a grounded dot is grounded");
    assert!(d.is_grounded(pt(&d, "3-2")) && d.is_grounded(pt(&d, "2-3")));
    assert_eq!(d.ungrounded_score(B), 0);
}

#[test]
fn single_game_ends_early_on_a_protected_lead() {
    let mut d = board(10, 10);
    put(&mut d, R, &["2-2"]);
    put(&mut d, B, &["2-1", "1-2", "3-2"]);
    assert_eq!(d.status(), Status::Ongoing);
    play(&mut d, &["2-3"]);
    assert_eq!(d.scores(), [1, 0]);
    assert!(d.lead_protected(B));
    let o = d.status().outcome().expect("over");
    assert_eq!((o.winner, o.reason), (Some(B), "protected lead"));
    let mut moves = Vec::new();
    d.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert!(d.check_move("8-8").is_err());
}

#[test]
fn lead_not_protected_while_the_leader_has_ungrounded_dots() {
    let mut d = board(12, 12);
    put(&mut d, R, &["6-6"]);
    put(&mut d, B, &["6-7", "7-6", "6-5"]);
    play(&mut d, &["5-6"]);
    assert_eq!(d.scores(), [1, 0]);
    // Four ungrounded blue dots and one blue capture in ungrounded land.
    assert_eq!((d.ungrounded_dots(B), d.ungrounded_score(B)), (4, 1));
    assert!(!d.lead_protected(B));
    assert_eq!(d.status(), Status::Ongoing);
}

#[test]
fn full_board_ends_the_game() {
    let mut d = board(5, 5);
    let mut rng = SmallRng::seed_from_u64(7);
    let mut moves = Vec::new();
    loop {
        d.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.random_range(0..moves.len())];
        d.play(m);
    }
    assert!(d.status().is_over());
    if d.free_points() == 0 {
        assert_eq!(d.status().outcome().unwrap().reason, "board full");
    }
}

fn protected_setup(format: Format) -> Dots {
    let mut d = Dots::new(&DotsOptions { cross: false, format, ..DotsOptions::sized(20, 20) });
    put(&mut d, R, &["2-2"]);
    put(&mut d, B, &["2-1", "1-2", "3-2", "2-3"]);
    d
}

#[test]
fn protected_lead_in_the_full_format_counts_from_move_240() {
    let mut d = protected_setup(Format::Full);
    assert!(d.lead_protected(B));
    assert_eq!(d.status(), Status::Ongoing, "protection ends a Full game only from move 240");
    d = d.with_plies(239);
    assert_eq!(d.status(), Status::Ongoing);
    d = d.with_plies(240);
    assert_eq!(d.status().outcome().unwrap().reason, "protected lead");
    // Express and Extended ignore protection.
    let mut e = protected_setup(Format::Express);
    e = e.with_plies(239);
    assert_eq!(e.status(), Status::Ongoing);
    e = e.with_plies(240);
    let o = e.status().outcome().unwrap();
    assert_eq!((o.winner, o.reason), (Some(B), "move limit"));
    let mut x = protected_setup(Format::Extended);
    x = x.with_plies(359);
    assert_eq!(x.status(), Status::Ongoing);
    x = x.with_plies(360);
    assert!(x.status().is_over());
    // Full: the leader wins at move 720 even unprotected.
    let mut f = Dots::new(&DotsOptions { format: Format::Full, ..DotsOptions::sized(20, 20) });
    put(&mut f, R, &["6-6"]);
    put(&mut f, B, &["6-7", "7-6", "6-5", "5-6"]);
    f = f.with_plies(719);
    assert_eq!(f.status(), Status::Ongoing);
    f = f.with_plies(720);
    assert_eq!(f.status().outcome().unwrap().winner, Some(B));
}

#[test]
fn level_at_the_limit_draws_in_groups_and_goes_to_extra_time_in_knockouts() {
    let group = Dots::new(&DotsOptions { format: Format::Express, ..DotsOptions::sized(20, 20) });
    let mut g = group.clone();
    g = g.with_plies(240);
    let o = g.status().outcome().unwrap();
    assert_eq!((o.winner, o.reason), (None, "move limit"));

    let mut k = Dots::new(&DotsOptions {
        cross: false,
        format: Format::Express,
        stage: Stage::Knockout,
        ..DotsOptions::sized(20, 20)
    });
    put(&mut k, R, &["6-6"]);
    put(&mut k, B, &["6-7", "7-6", "6-5"]);
    k = k.with_plies(240);
    assert_eq!(k.status(), Status::Ongoing, "extra time");
    play(&mut k, &["15-15"]);
    assert_eq!(k.status(), Status::Ongoing, "still level after move 241");
    k.set_to_move(B);
    play(&mut k, &["5-6"]);
    let o = k.status().outcome().unwrap();
    assert_eq!((o.winner, o.reason), (Some(B), "golden dot"));
}

/// The incremental engine against the literal rules, move by move.
fn compare_with_reference(w: u8, h: u8, seed: u64, max_plies: u32) -> i32 {
    let mut d = Dots::new(&DotsOptions { cross: seed.is_multiple_of(2), ..DotsOptions::sized(w, h) });
    let (wu, hu) = (w as usize, h as usize);
    let mut r = RefBoard::new(wu, hu);
    let idx = |x: usize, y: usize| (y - 1) * wu + (x - 1);
    for y in 1..=hu {
        for x in 1..=wu {
            if let Some((who, _)) = d.dot_at(d.point(x, y).unwrap()) {
                r.dot[idx(x, y)] = color_of(who);
            }
        }
    }
    let mut rng = SmallRng::seed_from_u64(seed);
    for ply in 0..max_plies {
        let playable: Vec<(usize, usize)> =
            (1..=hu).flat_map(|y| (1..=wu).map(move |x| (x, y))).filter(|&(x, y)| r.playable(idx(x, y))).collect();
        if playable.is_empty() {
            break;
        }
        let (x, y) = playable[rng.random_range(0..playable.len())];
        let who = d.to_move();
        d.play(d.point(x, y).unwrap());
        r.place(idx(x, y), color_of(who));
        let here = format!("{w}x{h} seed {seed} ply {ply} move {x}-{y}");
        for yy in 1..=hu {
            for xx in 1..=wu {
                let p = d.point(xx, yy).unwrap();
                let i = idx(xx, yy);
                let dot = d.dot_at(p).map(|(q, c)| (color_of(q), c)).unwrap_or((0, false));
                assert_eq!(dot, (r.dot[i], r.captured[i] && r.dot[i] != 0), "{here}: dot at {xx}-{yy}");
                let t = d.territory_at(p).map(color_of).unwrap_or(0);
                assert_eq!(t, r.terr[i], "{here}: territory at {xx}-{yy}");
                for (q, c) in [(B, BLUE), (R, RED)] {
                    let active_q = r.dot[i] == c && !r.captured[i];
                    if !active_q {
                        assert_eq!(d.enclosed_by(p, q), r.region(i, c).1, "{here}: enclosure of {xx}-{yy} for {c}");
                    }
                }
            }
        }
        assert_eq!(d.scores(), r.score(), "{here}: score");
        assert_eq!(d.free_points(), r.free_points(), "{here}: free points");
        for (q, c) in [(B, BLUE), (R, RED)] {
            let g = r.grounded(c);
            let (mut ungrounded_dots, mut ungrounded_score) = (0, 0);
            for yy in 1..=hu {
                for xx in 1..=wu {
                    let i = idx(xx, yy);
                    let active = r.dot[i] == c && !r.captured[i];
                    let solid = active || r.terr[i] == c;
                    if solid {
                        assert_eq!(d.is_grounded(d.point(xx, yy).unwrap()), g[i], "{here}: grounding {xx}-{yy} {q:?}");
                    }
                    if !g[i] {
                        ungrounded_dots += active as i32;
                        ungrounded_score += (r.terr[i] == c && r.captured[i] && r.dot[i] == 3 - c) as i32;
                    }
                }
            }
            assert_eq!(d.ungrounded_dots(q), ungrounded_dots, "{here}: ungrounded dots of {q:?}");
            assert_eq!(d.ungrounded_score(q), ungrounded_score, "{here}: ungrounded score of {q:?}");
        }
        assert_eq!(d.hash(), d.hash_from_scratch(), "{here}: hash");
    }
    d.scores()[0] + d.scores()[1]
}

#[test]
fn engine_matches_the_literal_rules_on_small_boards() {
    let mut captures = 0;
    for seed in 0..60 {
        captures += compare_with_reference(5 + (seed % 4) as u8, 5 + (seed % 3) as u8, seed, 200);
    }
    assert!(captures > 60, "the comparison saw too few captures ({captures})");
}

#[test]
fn engine_matches_the_literal_rules_on_medium_boards() {
    let mut captures = 0;
    for seed in 100..112 {
        captures += compare_with_reference(12, 10, seed, 400);
    }
    assert!(captures > 100, "the comparison saw too few captures ({captures})");
}

#[test]
fn view_has_dots_territories_walls_and_score() {
    use tabula_core::GameMeta;
    let mut d = board(10, 10);
    put(&mut d, R, &["5-5"]);
    put(&mut d, B, &["5-6", "6-5", "5-4"]);
    play(&mut d, &["4-5"]);
    let v = d.view();
    assert_eq!(v["score"]["blue"], 1);
    assert_eq!(v["last_move"], "4-5");
    let dots = v["dots"].as_array().unwrap();
    assert_eq!(dots.len(), 5);
    assert!(dots.iter().any(|x| x["x"] == 5 && x["y"] == 5 && x["color"] == "red" && x["captured"] == true));
    let t = &v["territories"][0];
    assert_eq!(t["owner"], "blue");
    assert_eq!(t["points"], serde_json::json!([[5, 5]]));
    let mut wall: Vec<(u64, u64)> =
        t["wall"].as_array().unwrap().iter().map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap())).collect();
    wall.sort();
    assert_eq!(wall, vec![(4, 5), (5, 4), (5, 6), (6, 5)]);
    let text = d.render_text(false);
    assert!(text.contains(">X"), "last move marked:\n{text}");
    assert!(text.contains("score: blue 1 red 0"));
    // An empty base is listed for drawing.
    put(&mut d, R, &["8-9", "9-8", "8-7", "7-8"]);
    let v = d.view();
    assert_eq!(v["bases"]["red"], serde_json::json!([[8, 8]]));
}
