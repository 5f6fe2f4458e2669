//! Tournaments played through the state machine: every system from entry
//! to final standings, with time passed in and the state saved and
//! restored along the way.

use proptest::prelude::*;
use std::collections::HashMap;
use tabula_tournament::knockout::{KnockoutRules, MatchStage};
use tabula_tournament::{
    Config, Entrant, Event, GameResult, GameSettings, PlayerId, Points, Side, Status, System, TieBreak, Tournament,
    TournamentError,
};

fn with_players(config: Config, n: usize) -> Tournament {
    let mut t = Tournament::new(config).unwrap();
    for i in 0..n {
        t.join(Entrant::new(format!("p{i}")).rated(2000 - i as i32 * 10)).unwrap();
    }
    t
}

/// A deterministic pseudo-random stream for results.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn result(&mut self) -> GameResult {
        match self.next() % 5 {
            0 | 1 => GameResult::win(Side::First),
            2 | 3 => GameResult::win(Side::Second),
            _ => GameResult::draw(),
        }
    }
}

/// Play every pending game with `pick` until the tournament ends; the state
/// goes through JSON after each result, as a server would store it.
fn play_out(mut t: Tournament, mut pick: impl FnMut(&Tournament, u32) -> GameResult) -> Tournament {
    let mut now = 1_000;
    for _ in 0..100_000 {
        if t.is_finished() {
            return t;
        }
        let pending: Vec<u32> = t.pending_games().map(|g| g.id).collect();
        if pending.is_empty() {
            now = t.next_wakeup().expect("a running tournament with no games waits for something");
            t.tick(now);
            continue;
        }
        for id in pending {
            now += 10;
            let r = pick(&t, id);
            t.record(id, r, now).unwrap();
            let json = serde_json::to_string(&t).unwrap();
            t = serde_json::from_str(&json).unwrap();
        }
    }
    panic!("the tournament did not finish");
}

#[test]
fn round_robin_double_meets_everyone_twice_with_each_colour() {
    let t = with_players(Config::new(System::RoundRobin { cycles: 2 }), 5);
    let mut t = t;
    t.start(0).unwrap();
    let mut rng = Lcg(7);
    let t = play_out(t, |_, _| rng.result());
    let mut met: HashMap<(u32, u32), u32> = HashMap::new();
    for g in t.games() {
        *met.entry((g.first.0, g.second.0)).or_default() += 1;
    }
    for a in 0..5 {
        for b in 0..5 {
            if a != b {
                assert_eq!(met.get(&(a, b)), Some(&1), "{a} first against {b}");
            }
        }
    }
    assert_eq!(t.rounds().len(), 10);
    // Each round one player rests (odd count), with no points.
    assert!(t.rounds().iter().all(|r| r.byes.len() == 1 && r.byes[0].points == Points::ZERO));
    let s = t.standings();
    let total: i32 = s.iter().map(|x| x.points.halves()).sum();
    assert_eq!(total, 20 * 2, "20 games, one point each");
    assert!(s.windows(2).all(|w| w[0].points >= w[1].points));
}

#[test]
fn swiss_runs_its_rounds_with_a_bye_each_odd_round() {
    let mut t = with_players(Config::new(System::Swiss { rounds: 5 }), 11);
    t.start(0).unwrap();
    let mut rng = Lcg(11);
    let t = play_out(t, |_, _| rng.result());
    assert_eq!(t.rounds().len(), 5);
    let byes: Vec<PlayerId> = t.rounds().iter().flat_map(|r| r.byes.iter().map(|b| b.player)).collect();
    assert_eq!(byes.len(), 5);
    let mut unique = byes.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 5, "no second bye: {byes:?}");
    let s = t.standings();
    assert_eq!(s.len(), 11);
    assert_eq!(s[0].tiebreaks.len(), t.config().tiebreaks().len());
}

#[test]
fn knockout_best_of_two_with_a_level_match() {
    let rules = KnockoutRules::best_of(2).with_settings(GameSettings::option("stage", "knockout"));
    let mut config = Config::new(System::Knockout { rules });
    config.round_pause_ms = 5_000;
    let mut t = with_players(config, 5);
    let events = t.start(0).unwrap();
    // Five players: seeds 1-3 have byes, so 4 v 5 and the semifinal 2 v 3
    // are ready at once, and start after the pause.
    assert!(events.iter().all(|e| !matches!(e, Event::GameCreated { .. })));
    assert_eq!(t.next_wakeup(), Some(5_000));
    let events = t.tick(5_000);
    let created: Vec<u32> =
        events.iter().filter_map(|e| if let Event::GameCreated { game } = e { Some(*game) } else { None }).collect();
    assert_eq!(created.len(), 2);
    let semi = t.game(created[1]).unwrap().clone();
    assert_eq!((semi.first, semi.second), (PlayerId(1), PlayerId(2)));
    t.record(semi.id, GameResult::win(Side::First), 5_500).unwrap();
    let g = t.game(created[0]).unwrap().clone();
    // Seed 4 (p3) moves first against seed 5 (p4), with the knockout option.
    assert_eq!((g.first, g.second), (PlayerId(3), PlayerId(4)));
    assert_eq!(g.settings, GameSettings::option("stage", "knockout"));
    // Draw both games: two tie-break games, then a decider in which seed 4
    // moves second with draw odds.
    let mut next = g.id;
    let mut stages = Vec::new();
    for _ in 0..4 {
        let ev = t.record(next, GameResult::draw(), 6_000).unwrap();
        next = ev.iter().find_map(|e| if let Event::GameCreated { game } = e { Some(*game) } else { None }).unwrap();
        stages.push(t.game(next).unwrap().knockout.unwrap().1);
    }
    assert_eq!(
        stages,
        vec![MatchStage::Regular, MatchStage::Tiebreak(1), MatchStage::Tiebreak(1), MatchStage::Decider]
    );
    let decider = t.game(next).unwrap().clone();
    assert_eq!((decider.first, decider.second), (PlayerId(4), PlayerId(3)));
    assert_eq!(decider.draw_odds, Some(Side::Second));
    // The decider is drawn: seed 4 goes through to meet seed 1.
    t.record(decider.id, GameResult::draw(), 7_000).unwrap();
    let b = t.bracket().unwrap();
    assert_eq!(b.rounds[0][1].winner(), Some(PlayerId(3)));
    // The rest straight away with first-player wins: seed 1 wins it all.
    let t = play_out(t, |t, id| {
        let g = t.game(id).unwrap();
        // The better seed (lower id here) wins.
        if g.first < g.second {
            GameResult::win(Side::First)
        } else {
            GameResult::win(Side::Second)
        }
    });
    let s = t.standings();
    assert_eq!((s[0].player, s[0].rank), (PlayerId(0), 1));
    assert_eq!(s[1].rank, 2);
    assert_eq!((s[2].rank, s[3].rank), (3, 3));
    assert_eq!(s[4].rank, 5);
}

#[test]
fn championship_groups_then_knockout() {
    // The Dots championship: eight players in two groups of four, the top
    // two of each into a four-player knockout played with extra time.
    let system = System::Championship {
        groups: 2,
        advance: 2,
        cycles: 1,
        knockout: KnockoutRules::best_of(1).with_settings(GameSettings::option("stage", "knockout")),
    };
    let mut config = Config::new(system);
    config.settings = GameSettings::option("stage", "group");
    let mut t = with_players(config, 8);
    t.start(0).unwrap();
    assert_eq!(t.groups().len(), 2);
    assert_eq!(t.groups()[0], vec![PlayerId(0), PlayerId(3), PlayerId(4), PlayerId(7)]);
    let mut knockout_started = false;
    let mut level_knockout = false;
    let mut now = 0;
    while !t.is_finished() {
        let pending: Vec<u32> = t.pending_games().map(|g| g.id).collect();
        for id in pending {
            now += 1;
            let g = t.game(id).unwrap().clone();
            let result = if g.knockout.is_some() {
                assert_eq!(g.settings, GameSettings::option("stage", "knockout"));
                // One semifinal is level at the end of its first game (a
                // full board); the tie-break decides it.
                if !level_knockout {
                    level_knockout = true;
                    GameResult::draw().with_margin(0)
                } else {
                    GameResult::win(Side::First).with_margin(3)
                }
            } else {
                assert_eq!(g.settings, GameSettings::option("stage", "group"));
                // Lower ids win; margins as the difference of ids.
                let m = (g.second.0 as i32 - g.first.0 as i32).abs();
                if g.first < g.second {
                    GameResult::win(Side::First).with_margin(m)
                } else {
                    GameResult::win(Side::Second).with_margin(-m)
                }
            };
            let events = t.record(id, result, now).unwrap();
            knockout_started |= events.contains(&Event::KnockoutStarted);
        }
    }
    assert!(knockout_started && level_knockout);
    let groups = t.group_standings();
    assert_eq!(groups[0][0].player, PlayerId(0));
    assert_eq!(groups[1][0].player, PlayerId(1));
    // Group A winner 0 meets group B runner-up; B winner 1 meets A's.
    let semis = &t.bracket().unwrap().rounds[0];
    for m in semis {
        let a = m.slots[0].player().unwrap();
        let b = m.slots[1].player().unwrap();
        let ga = t.groups().iter().position(|g| g.contains(&a));
        let gb = t.groups().iter().position(|g| g.contains(&b));
        assert_ne!(ga, gb, "a semifinal between group mates");
    }
    let s = t.standings();
    assert_eq!(s.len(), 8);
    assert_eq!(s[0].rank, 1);
    assert!(s[4..].iter().all(|x| x.rank >= 5));
    // Score difference is a group tie-break: the winner of group A beat all.
    let sd = t.config().tiebreaks().iter().position(|&tb| tb == TieBreak::ScoreDifference).unwrap();
    assert_eq!(groups[0][0].tiebreaks[sd], Some((3 + 4 + 7) as f64));
}

#[test]
fn arena_pairs_until_time_runs_out() {
    let mut t = with_players(Config::new(System::Arena { duration_ms: 60_000 }), 5);
    let events = t.start(0).unwrap();
    let games = events.iter().filter(|e| matches!(e, Event::GameCreated { .. })).count();
    assert_eq!(games, 2, "four of five paired at once");
    let mut now = 0;
    let mut rng = Lcg(3);
    while !t.is_finished() {
        let pending: Vec<u32> = t.pending_games().map(|g| g.id).collect();
        if pending.is_empty() {
            now = t.next_wakeup().unwrap();
            t.tick(now);
            continue;
        }
        for id in pending {
            now += 700;
            t.record(id, rng.result(), now).unwrap();
        }
    }
    // No game started at or after the end.
    assert!(t.games().iter().all(|g| g.created_at < 60_000));
    assert!(t.games().len() > 20);
    // No immediate rematches.
    let mut last: HashMap<PlayerId, PlayerId> = HashMap::new();
    for g in t.games() {
        assert_ne!(last.get(&g.first), Some(&g.second));
        last.insert(g.first, g.second);
        last.insert(g.second, g.first);
    }
    let s = t.standings();
    assert!(s.windows(2).all(|w| w[0].points >= w[1].points));
}

#[test]
fn withdrawals_and_refusals() {
    let mut t = with_players(Config::new(System::RoundRobin { cycles: 1 }), 4);
    assert_eq!(t.join(Entrant::new("p1")), Err(TournamentError::DuplicateName("p1".into())));
    assert_eq!(t.record(0, GameResult::draw(), 0), Err(TournamentError::NotStarted));
    t.start(0).unwrap();
    assert_eq!(t.join(Entrant::new("late")), Err(TournamentError::LateJoin("round-robin")));
    assert_eq!(t.start(1), Err(TournamentError::AlreadyStarted));
    // p3 withdraws: their later games are forfeit wins for the opponents.
    t.withdraw(PlayerId(3), 5).unwrap();
    let t = play_out(t, |_, _| GameResult::draw());
    let forfeits: Vec<_> = t.games().iter().filter(|g| matches!(g.result, Some(GameResult::Forfeit { .. }))).collect();
    assert_eq!(forfeits.len(), 2, "p3 had two games left");
    assert!(forfeits.iter().all(|g| g.result.unwrap().winner().map(|w| if w == Side::First {
        g.first
    } else {
        g.second
    }) != Some(PlayerId(3))));
    assert_eq!(t.status(), Status::Finished);
    let err = Tournament::new(Config::new(System::Swiss { rounds: 0 })).unwrap_err();
    assert!(matches!(err, TournamentError::Config(_)));
    let mut few = with_players(Config::new(System::Swiss { rounds: 3 }), 1);
    assert!(matches!(few.start(0), Err(TournamentError::TooFewPlayers { .. })));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Swiss invariants over random tournaments: no pairing repeats while
    /// another legal pairing exists (with at most half as many rounds as
    /// players one always does), colour differences stay within 2 for
    /// everyone but final-round topscorers, and no player gets a second
    /// bye.
    #[test]
    fn swiss_invariants(players in 4usize..=24, rounds in 2u32..=7, seed in any::<u64>(), late in 0usize..3) {
        let rounds = rounds.min(players as u32 / 2);
        let mut config = Config::new(System::Swiss { rounds });
        config.seed = seed;
        let mut t = with_players(config, players);
        t.start(0).unwrap();
        let mut rng = Lcg(seed);
        let mut joined_late = 0;
        let mut now = 0;
        while !t.is_finished() {
            let pending: Vec<u32> = t.pending_games().map(|g| g.id).collect();
            for id in pending {
                now += 1;
                let r = if rng.next().is_multiple_of(23) { GameResult::Forfeit { winner: Some(Side::First) } } else { rng.result() };
                t.record(id, r, now).unwrap();
            }
            if joined_late < late && !t.is_finished() && t.rounds().len() == 1 {
                joined_late += 1;
                // A late entry after round 1 (its round 2 game comes next).
                let _ = t.join(Entrant::new(format!("late{joined_late}")));
            }
        }
        prop_assert!(t.end_reason().is_none(), "ended early: {:?}", t.end_reason());
        let mut met = std::collections::HashSet::new();
        let mut whites = vec![0i32; t.players().len()];
        let mut byes = vec![0; t.players().len()];
        let final_round = t.rounds().len() as u32;
        for round in t.rounds() {
            prop_assert!(round.exhaustive);
            for &gid in &round.games {
                let g = t.game(gid).unwrap();
                let key = (g.first.min(g.second), g.first.max(g.second));
                if g.result.unwrap().was_played() {
                    prop_assert!(met.insert(key), "repeated pairing {:?} in round {}", key, round.number);
                    whites[g.first.index()] += 1;
                    whites[g.second.index()] -= 1;
                }
            }
            for b in &round.byes {
                byes[b.player.index()] += 1;
            }
            if round.number < final_round {
                for (p, cd) in whites.iter().enumerate() {
                    prop_assert!(cd.abs() <= 2, "player {} colour difference {} after round {}", p, cd, round.number);
                }
            }
        }
        for (p, cd) in whites.iter().enumerate() {
            prop_assert!(cd.abs() <= 3, "player {} colour difference {}", p, cd);
        }
        prop_assert!(byes.iter().all(|&b| b <= 1), "a second bye: {:?}", byes);
    }
}

/// Every scheduled game is created later exactly as announced: same number,
/// round, group and colours, also after a withdrawal and with a round pause.
#[test]
fn scheduled_games_are_created_as_announced() {
    let systems = [
        (System::RoundRobin { cycles: 2 }, 5, 0),
        (System::RoundRobin { cycles: 1 }, 6, 500),
        (System::Championship { groups: 2, advance: 2, cycles: 2, knockout: KnockoutRules::best_of(1) }, 7, 0),
    ];
    for (system, players, pause) in systems {
        let mut config = Config::new(system.clone());
        config.round_pause_ms = pause;
        let mut t = with_players(config, players);
        t.start(0).unwrap();
        let mut announced = HashMap::new();
        let mut checked = 0;
        let mut rng = Lcg(players as u64);
        let mut now = 0;
        while !t.is_finished() {
            for s in t.scheduled_games() {
                if let Some(old) = announced.insert(s.id, s) {
                    assert_eq!(old, s, "{system:?}: game {} announced twice, differently", s.id);
                }
            }
            for g in t.games() {
                if g.knockout.is_some() {
                    continue;
                }
                if let Some(s) = announced.remove(&g.id) {
                    assert_eq!((s.round, s.group, s.first, s.second), (g.round, g.group, g.first, g.second));
                    checked += 1;
                }
            }
            let pending: Vec<u32> = t.pending_games().map(|g| g.id).collect();
            if pending.is_empty() {
                now = t.next_wakeup().expect("waits for the next round");
                t.tick(now);
                continue;
            }
            for id in pending {
                now += 1;
                t.record(id, rng.result(), now).unwrap();
            }
            if checked > 3 && !t.players()[1].withdrawn {
                t.withdraw(PlayerId(1), now).unwrap();
            }
        }
        assert!(announced.is_empty(), "{system:?}: announced games never created: {announced:?}");
        assert!(checked >= 6, "{system:?}: only {checked} announced games checked");
        // Only games whose pairing is already fixed are announced.
        assert!(t.scheduled_games().is_empty());
    }
    let mut swiss = with_players(Config::new(System::Swiss { rounds: 3 }), 6);
    swiss.start(0).unwrap();
    assert!(swiss.scheduled_games().is_empty(), "Swiss pairings depend on results");
}
