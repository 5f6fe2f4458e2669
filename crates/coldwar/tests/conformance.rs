//! The API's invariants on random games from the start and from any board,
//! and parsers that never panic: `tabula_core::conformance`, run once for
//! Cold War.

use proptest::prelude::*;
use tabula_coldwar::{ColdWar, BOARDS};
use tabula_core::conformance::{feed_parsers, random_sim_test};
use tabula_core::{Game, NoOptions, Player};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_games_keep_the_invariants(index in 0..BOARDS, o_to_move in any::<bool>(), seed in any::<u64>()) {
        let side = if o_to_move { Player::Second } else { Player::First };
        let starts = [ColdWar::new(&NoOptions), ColdWar::from_board_index(index, side)];
        random_sim_test(&starts, seed, 1, 600).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }

    #[test]
    fn arbitrary_strings_never_panic(text in "\\PC{0,24}") {
        feed_parsers(&ColdWar::new(&NoOptions), &text);
    }
}
