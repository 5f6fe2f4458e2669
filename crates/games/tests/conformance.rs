//! The dynamic layer over every registered game, as the CLI and the server
//! use it: the standard JSON keys, AIs that move, and clear refusals. The
//! random-game invariants are checked once per game, in each game crate's
//! `tests/conformance.rs`.

use tabula_games::REGISTRY;

#[test]
fn every_game_lists_the_standard_keys() {
    for game in REGISTRY.games() {
        let state = game.new_state(&[]).unwrap();
        let json = state.state_json();
        for key in ["game", "position", "to_move", "legal_moves", "status", "winner", "reason", "plies"] {
            assert!(json.get(key).is_some(), "{}: no '{key}' in {json}", game.id());
        }
        assert_eq!(json["game"], game.id());
        assert!(game.players().contains(&json["to_move"].as_str().unwrap()));
        assert!(!game.levels().is_empty(), "{} has no AI levels", game.id());
        assert!(game.levels().iter().any(|l| l.id == game.default_level()));
    }
}

#[test]
fn every_game_plays_to_the_end_and_its_ais_move() {
    for game in REGISTRY.games() {
        let mut state = game.new_state(&[]).unwrap();
        // The weakest search level must find a legal move from the start.
        let mut easy = game
            .new_agent("easy", 2)
            .unwrap_or_else(|e| panic!("{}: {e}; every game offers an 'easy' level (docs/architecture.md)", game.id()));
        let mv = easy.choose(state.as_ref(), &Default::default()).unwrap();
        state.check(&mv).unwrap_or_else(|e| panic!("{}: the easy AI chose {e}", game.id()));
        // Random play reaches a result within the game's own limits.
        let mut random = game.new_agent("random", 1).unwrap_or_else(|e| {
            panic!("{}: {e}; every game offers a 'random' level (docs/architecture.md)", game.id())
        });
        let mut plies = 0;
        while !state.status().is_over() {
            let mv = random.choose(state.as_ref(), &Default::default()).unwrap();
            state.play(&mv).unwrap_or_else(|e| panic!("{}: the random AI chose {e}", game.id()));
            plies += 1;
            assert!(plies < 100_000, "{}: no result after {plies} plies", game.id());
        }
    }
}

#[test]
fn unknown_games_and_levels_are_refused_clearly() {
    let err = REGISTRY.get("chesss").err().unwrap();
    assert!(err.to_string().contains("unknown game 'chesss'"), "{err}");
    for game in REGISTRY.games() {
        let err = game.new_agent("grandmaster-9000", 0).err().unwrap();
        assert!(err.to_string().contains("unknown AI level"), "{err}");
        // Every form the message lists is one the game takes.
        for form in game.level_forms() {
            assert!(err.to_string().contains(form), "{}: {err} lacks {form}", game.id());
        }
        // The plain-UCT baselines are every game's, and listed.
        assert!(game.level_forms().contains(&"uct:MS"), "{}", game.id());
        for spec in ["uct:5", "uct-iter:5"] {
            assert!(game.new_agent(spec, 0).is_ok(), "{}: {spec} refused", game.id());
        }
        let err = game.new_state(&[("no-such-option".into(), "1".into())]).err().unwrap();
        assert_eq!(err.code(), "bad_option");
    }
}
