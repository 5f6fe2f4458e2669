//! Cumisitha: UCI and SAN moves, FEN, PGN and options (see tabula_fuzz),
//! plus the notation readers on their own.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabula_core::Game;
use tabula_cumisitha::notation::{fen, parse_move, parse_uci, san};
use tabula_cumisitha::Cumisitha;

fuzz_target!(|data: &[u8]| {
    tabula_fuzz::exercise_game("cumisitha", data);
    if data.len() > tabula_fuzz::MAX_INPUT {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let _ = fen::parse(&text);
    let start = Cumisitha::new(&Default::default());
    let _ = san::parse_san(start.board(), &text);
    let _ = parse_uci(start.board(), &text);
    let _ = parse_move(start.board(), &text);
    let _ = tabula_cumisitha::notation::pgn::import(&text);
});
