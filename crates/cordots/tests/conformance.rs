//! The API's invariants on random games in every match mode, and parsers
//! that never panic: `tabula_core::conformance`, run once for Cordots.

use proptest::prelude::*;
use tabula_cordots::{Cordots, CordotsOptions, Mode};
use tabula_core::conformance::{feed_parsers, random_sim_test};
use tabula_core::Game;

fn starts() -> Vec<Cordots> {
    [Mode::Untimed, Mode::Competitive, Mode::Blitz].map(|m| Cordots::new(&CordotsOptions::with_mode(m))).to_vec()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn random_games_keep_the_invariants(seed in any::<u64>()) {
        random_sim_test(&starts(), seed, 1, 400).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }

    #[test]
    fn arbitrary_strings_never_panic(text in "\\PC{0,60}") {
        feed_parsers(&starts()[0], &text);
    }
}
