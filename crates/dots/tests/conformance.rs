//! The shared API checks on random games, and parser fuzzing.

use proptest::prelude::*;
use tabula_core::conformance::{check_random_game, feed_parsers, near_miss_strings};
use tabula_core::Game;
use tabula_dots::{Dots, DotsOptions, Format, Stage};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn small_boards_keep_the_api_invariants(seed in any::<u64>(), w in 5u8..12, h in 5u8..12, cross in any::<bool>()) {
        let start = Dots::new(&DotsOptions { cross, ..DotsOptions::sized(w, h) });
        check_random_game(&start, seed, 400).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn championship_formats_keep_the_api_invariants(seed in any::<u64>(), f in 0usize..3, knockout in any::<bool>()) {
        let format = [Format::Express, Format::Extended, Format::Full][f];
        let stage = if knockout { Stage::Knockout } else { Stage::Group };
        let start = Dots::new(&DotsOptions { format, stage, ..DotsOptions::sized(16, 16) });
        check_random_game(&start, seed, 800).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn parsers_never_panic(text in ".{0,24}") {
        feed_parsers(&Dots::new(&DotsOptions::default()), &text);
    }
}

#[test]
fn full_size_board_keeps_the_api_invariants() {
    let start = Dots::new(&DotsOptions::default());
    for seed in 0..2 {
        check_random_game(&start, seed, 2000).unwrap();
    }
}

#[test]
fn near_miss_strings_never_panic() {
    for size in [(39u8, 32u8), (5, 5), (64, 64)] {
        let s = Dots::new(&DotsOptions::sized(size.0, size.1));
        for text in near_miss_strings(3, 2000) {
            feed_parsers(&s, &text);
        }
    }
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
