//! The match layer (clocks, resignation, draws) on a real game, with time
//! injected so nothing sleeps.

use tabula_core::matches::{Match, MatchError, MatchResult};
use tabula_core::{Player, TimeControl};
use tabula_games::REGISTRY;

fn coldwar(control: TimeControl) -> Match {
    let state = REGISTRY.get("coldwar").unwrap().new_state(&[]).unwrap();
    Match::new(state, control, 0)
}

#[test]
fn a_flag_falls_on_its_own_and_refuses_later_moves() {
    let mut m = coldwar(TimeControl::Fischer { base_ms: 10_000, increment_ms: 1_000 });
    m.play("b2", 4_000).unwrap();
    assert_eq!(m.clock.remaining(Player::First, 4_000), Some(7_000));
    assert_eq!(m.tick(13_999), None);
    let r = m.tick(14_000).expect("o's flag falls at 14 s");
    assert_eq!(r, MatchResult { winner: Some(Player::First), reason: "o ran out of time".into() });
    assert!(matches!(m.play("a2", 14_001), Err(MatchError::Finished(_))));
}

#[test]
fn a_late_move_loses_on_time_instead_of_counting() {
    let mut m = coldwar(TimeControl::ShotClock { per_move_ms: 45_000 });
    m.play("b2", 44_999).unwrap();
    match m.play("a2", 44_999 + 45_000) {
        Err(MatchError::TimeUp(r)) => assert_eq!(r.winner, Some(Player::First)),
        other => panic!("expected the flag, got {other:?}"),
    }
    assert_eq!(m.state.plies(), 1);
}

#[test]
fn a_refused_move_changes_nothing() {
    let mut m = coldwar(TimeControl::Fischer { base_ms: 10_000, increment_ms: 5_000 });
    let err = m.play("b9", 1_000).unwrap_err();
    assert!(matches!(err, MatchError::Move(_)), "{err:?}");
    assert_eq!(m.state.plies(), 0);
    assert_eq!(m.clock.to_move(), Player::First);
    assert_eq!(m.clock.remaining(Player::First, 1_000), Some(9_000), "no increment for a refused move");
}

#[test]
fn a_level_match_clock_gets_one_overtime_then_draws() {
    // Cold War has no tie-breaker, so every expiry is level.
    let mut m = coldwar(TimeControl::MatchClock { total_ms: 60_000, overtime_ms: 5_000 });
    m.play("b2", 30_000).unwrap();
    assert_eq!(m.tick(60_000), None, "level: overtime starts");
    assert!(m.clock.in_overtime());
    m.play("a2", 62_000).unwrap();
    let r = m.tick(65_000).expect("overtime over");
    assert_eq!(r, MatchResult { winner: None, reason: "level after overtime".into() });
}

#[test]
fn resignation_and_agreed_draws_end_the_match() {
    let mut m = coldwar(TimeControl::None);
    m.play("b2", 0).unwrap();
    let r = m.resign(Player::Second, 10).unwrap();
    assert_eq!(r.winner, Some(Player::First));
    assert_eq!(m.resign(Player::First, 20), None, "already over");
    let mut m = coldwar(TimeControl::None);
    assert_eq!(m.agree_draw(5).unwrap().winner, None);
}

#[test]
fn the_rules_end_a_match() {
    let state = REGISTRY.get("coldwar").unwrap().from_position(&[], "X3X3X3/X3X3X3/X3X3O1 X").unwrap();
    let mut m = Match::new(state, TimeControl::Fischer { base_ms: 1_000, increment_ms: 0 }, 0);
    m.play("c2>c1", 500).unwrap();
    assert_eq!(m.result.as_ref().unwrap().winner, Some(Player::First));
    assert!(!m.clock.is_running());
    assert_eq!(m.tick(10_000), None, "a finished match never flags");
}
