//! coldwar: moves, positions, options and records (see tabula_fuzz).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tabula_fuzz::exercise_game("coldwar", data));
