//! Option strings (`-o key=value`, every game), time controls
//! (`--clock fischer:300+5`, JSON objects as the API takes them) and the
//! tag lines of Tabula's text records.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabula_core::clock::TimeControl;
use tabula_core::options::parse_pair;
use tabula_core::record::parse_tag;

fuzz_target!(|data: &[u8]| {
    if data.len() > tabula_fuzz::MAX_INPUT {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    for line in text.lines() {
        let _ = parse_tag(line);
        let _ = parse_pair(line);
    }
    if let Ok(tc) = TimeControl::parse(text) {
        let _ = tc.describe();
    }
    let _ = TimeControl::parse(text.trim());
    let _ = serde_json::from_str::<TimeControl>(text);
    let pairs = tabula_fuzz::options_of(text);
    for game in tabula_games::REGISTRY.games() {
        if let Ok(normal) = game.normalize_options(&pairs) {
            // Normal options are a fixed point, and make a game.
            let again = game.normalize_options(&normal).expect("normalised options are accepted");
            assert_eq!(again, normal, "normalising twice changed the options");
            let state = game.new_state(&normal).expect("accepted options make a game");
            let _ = state.time_control();
        }
        for (k, v) in &pairs {
            let _ = game.normalize_options(&[(k.clone(), v.clone())]);
        }
    }
});
