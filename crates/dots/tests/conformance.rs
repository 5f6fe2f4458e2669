//! The API's invariants on random games on boards of every size and in
//! every championship format, and parsers that never panic:
//! `tabula_core::conformance`, run once for Dots.

use proptest::prelude::*;
use tabula_core::conformance::{feed_parsers, random_sim_test};
use tabula_core::Game;
use tabula_dots::{Dots, DotsOptions, Format, Stage};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_games_keep_the_invariants(
        seed in any::<u64>(),
        (w, h, cross) in (5u8..12, 5u8..12, any::<bool>()),
        (f, knockout) in (0usize..3, any::<bool>()),
    ) {
        let format = [Format::Express, Format::Extended, Format::Full][f];
        let stage = if knockout { Stage::Knockout } else { Stage::Group };
        let small = Dots::new(&DotsOptions { cross, ..DotsOptions::sized(w, h) });
        random_sim_test(&[small], seed, 1, 400).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let championship = Dots::new(&DotsOptions { format, stage, ..DotsOptions::sized(16, 16) });
        random_sim_test(&[championship], seed, 1, 800).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }

    #[test]
    fn arbitrary_strings_never_panic(text in ".{0,24}") {
        for (w, h) in [(39u8, 32u8), (5, 5), (64, 64)] {
            feed_parsers(&Dots::new(&DotsOptions::sized(w, h)), &text);
        }
    }
}

#[test]
fn full_size_boards_keep_the_invariants() {
    random_sim_test(&[Dots::new(&DotsOptions::default())], 0, 2, 2000).unwrap();
}

#[test]
fn random_playouts_end_and_are_consistent() {
    use rand::SeedableRng;
    let start = Dots::new(&DotsOptions::default());
    let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
    let mut moves = Vec::new();
    for _ in 0..20 {
        let mut s = start.clone();
        s.random_playout(&mut rng, &mut moves, u32::MAX);
        assert!(s.status().is_over());
        assert_eq!(s.hash(), s.hash_from_scratch());
        s.legal_moves(&mut moves);
        assert!(moves.is_empty());
    }
}
