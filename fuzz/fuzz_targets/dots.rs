//! Dots: points, positions, options and SGF records (see tabula_fuzz), plus
//! the SGF reader on its own.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tabula_fuzz::exercise_game("dots", data);
    if data.len() <= tabula_fuzz::MAX_INPUT {
        let _ = tabula_dots::notation::sgf::parse(&String::from_utf8_lossy(data));
    }
});
