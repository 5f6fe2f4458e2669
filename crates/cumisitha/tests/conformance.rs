//! The API's invariants on random games from several positions, and
//! parsers that never panic: `tabula_core::conformance`, run once for
//! Cumisitha.

use proptest::prelude::*;
use tabula_core::conformance::{feed_parsers, random_sim_test};
use tabula_core::{Game, NoOptions};
use tabula_cumisitha::Cumisitha;

fn starts() -> Vec<Cumisitha> {
    [
        tabula_cumisitha::START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 90 1",
    ]
    .iter()
    .map(|fen| Cumisitha::from_position(fen, &NoOptions).expect("a valid FEN"))
    .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn random_games_keep_the_invariants(seed in any::<u64>()) {
        random_sim_test(&starts(), seed, 1, 400).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }

    #[test]
    fn arbitrary_strings_never_panic(text in ".{0,40}") {
        let s = Cumisitha::new(&NoOptions);
        feed_parsers(&s, &text);
        let _ = tabula_cumisitha::notation::pgn::import(&text);
        let _ = tabula_cumisitha::tools::uci::parse_position(&text.split_whitespace().collect::<Vec<_>>());
    }
}
