//! What the fuzz targets share: feeding one input to every text parser of a
//! game, the way the CLI and the server reach them.
//!
//! An input is read as lines:
//! - line 1: options, `key=value` separated by `,` or spaces;
//! - line 2: a position in the game's notation (empty: the start);
//! - the rest: moves, one per whitespace-separated word.
//!
//! The whole input is also fed, as it is, to the record importer, the
//! position reader, the move reader and the option reader. Besides "no
//! panic", a few invariants are checked: a position the game writes reads
//! back to the same position, and a game exported after legal moves imports
//! again to the same position.

use tabula_core::options::parse_pair;
use tabula_core::record::GameLog;
use tabula_core::{DynGame, DynState};

/// Longest input worth reading: parsers must refuse long input early, and
/// the fuzzer should spend its time on shapes, not lengths.
pub const MAX_INPUT: usize = 64 * 1024;

/// The options of line 1.
pub fn options_of(line: &str) -> Vec<(String, String)> {
    line.split([',', ' ']).filter(|s| !s.is_empty()).filter_map(|s| parse_pair(s).ok()).collect()
}

/// Feed `data` to every parser of game `id` (see the module docs).
pub fn exercise_game(id: &str, data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let game = tabula_games::REGISTRY.get(id).expect("a registered game");
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();

    // The whole input, as it is.
    let _ = game.import(text);
    let _ = game.normalize_options(&options_of(text));
    let start = game.new_state(&[]).expect("the default options work");
    let _ = start.check(text);
    let _ = start.display_move(text);
    if let Ok(s) = game.from_position(&[], text) {
        position_round_trip(game, &[], s.as_ref());
    }

    // Options, position, moves.
    let mut lines = text.splitn(3, '\n');
    let options = options_of(lines.next().unwrap_or(""));
    let options = game.normalize_options(&options).unwrap_or_default();
    let position = lines.next().unwrap_or("").trim();
    let moves_text = lines.next().unwrap_or("");
    let state =
        if position.is_empty() { game.new_state(&options).ok() } else { game.from_position(&options, position).ok() };
    let Some(mut state) = state else { return };
    position_round_trip(game, &options, state.as_ref());
    let mut played = Vec::new();
    for word in moves_text.split_whitespace().take(400) {
        let _ = state.display_move(word);
        let checked = state.check(word);
        match state.play(word) {
            Ok(()) => {
                let canonical = checked.expect("a move play accepts, check accepts");
                played.push(canonical);
                position_round_trip(game, &options, state.as_ref());
            }
            Err(_) => assert!(checked.is_err(), "check accepted '{word}' but play refused it"),
        }
        // Make sure the moves listed are all legal, now and then.
        if played.len() % 16 == 1 {
            for m in state.legal_moves().iter().take(64) {
                state.check(m).unwrap_or_else(|e| panic!("listed move {m} refused: {e}"));
            }
        }
    }
    if !played.is_empty() {
        record_round_trip(game, &options, (!position.is_empty()).then_some(position), &played, state.as_ref());
    }
}

/// A position the game writes reads back to the same position.
fn position_round_trip(game: &dyn DynGame, options: &[(String, String)], state: &dyn DynState) {
    let Some(written) = state.position() else { return };
    let again = game
        .from_position(options, &written)
        .unwrap_or_else(|e| panic!("the game wrote position {written:?} but cannot read it: {e}"));
    assert_eq!(again.position().as_deref(), Some(written.as_str()), "position changed on a round trip");
}

/// A game of legal moves exports, and the export imports to the same state.
fn record_round_trip(
    game: &dyn DynGame,
    options: &[(String, String)],
    start: Option<&str>,
    moves: &[String],
    end: &dyn DynState,
) {
    let start_position =
        start.map(|p| game.from_position(options, p).ok().and_then(|s| s.position()).unwrap_or_else(|| p.to_string()));
    let log = GameLog {
        game: game.id().to_string(),
        options: options.to_vec(),
        start_position,
        moves: moves.to_vec(),
        players: ["one".into(), "two".into()],
        ..GameLog::default()
    };
    let exported = match game.export(&log) {
        Ok(t) => t,
        Err(e) => panic!("export of legal moves failed: {e}\n{log:?}"),
    };
    let imported = game.import(&exported).unwrap_or_else(|e| panic!("own export not importable: {e}\n{exported}"));
    assert_eq!(imported.len(), 1, "one game exported, {} imported", imported.len());
    assert_eq!(imported[0].state.hash(), end.hash(), "the imported game differs\n{exported}");
}
