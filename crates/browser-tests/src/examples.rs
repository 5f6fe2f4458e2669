//! The worked examples of the How to play pages, computed by the engines.
//!
//! Each example is a start (the game's start, a position, or a record) and
//! some moves. [`compute`] plays them through the registry and keeps the
//! engine's own state and board view, which `web/howto/examples.json` holds
//! for the pages to draw. The test `howto_examples_are_current` fails when
//! an example's state in that file differs from what the engines say now;
//! run it with `TABULA_WRITE_EXAMPLES=1` to rewrite the file.

use anyhow::{anyhow, Context, Result};
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use tabula_core::DynState;

/// Where a worked example begins.
pub enum Start {
    /// The game's start position under these options.
    New,
    /// A position in the game's notation.
    Position(&'static str),
    /// A record (SGF for Dots), with its set-up stones.
    Record(String),
}

/// One board drawn on a How to play page.
pub struct Example {
    /// The example's id, as the page refers to it.
    pub id: &'static str,
    /// The game's registry id.
    pub game: &'static str,
    /// The game options, as `key=value` pairs.
    pub options: &'static [(&'static str, &'static str)],
    /// The position the moves start from.
    pub start: Start,
    /// The moves played from the start, in the game's notation.
    pub moves: &'static [&'static str],
}

fn ex(id: &'static str, game: &'static str, start: Start, moves: &'static [&'static str]) -> Example {
    Example { id, game, options: &[], start, moves }
}

/// A Dots record on a `w`×`h` board with set-up dots (Blue, then Red, each
/// placed in order with captures resolved) and then moves (`true` = Blue).
pub fn dots_sgf(w: u32, h: u32, blue: &[(u32, u32)], red: &[(u32, u32)], moves: &[(bool, u32, u32)]) -> String {
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    // SGF counts x from the left and y from the top, both from 0.
    let point =
        |x: u32, y: u32| format!("[{}{}]", LETTERS[(x - 1) as usize] as char, LETTERS[(h - y) as usize] as char);
    let mut sgf = format!("(;FF[4]GM[40]CA[UTF-8]SZ[{w}:{h}]RU[russian]");
    if !blue.is_empty() {
        sgf.push_str("AB");
        blue.iter().for_each(|&(x, y)| sgf.push_str(&point(x, y)));
    }
    if !red.is_empty() {
        sgf.push_str("AW");
        red.iter().for_each(|&(x, y)| sgf.push_str(&point(x, y)));
    }
    for &(is_blue, x, y) in moves {
        sgf.push_str(&format!(";{}{}", if is_blue { "B" } else { "W" }, point(x, y)));
    }
    sgf.push(')');
    sgf
}

/// Every example the How to play pages show.
pub fn all() -> Vec<Example> {
    vec![
        // Cold War
        ex("coldwar-start", "coldwar", Start::New, &[]),
        ex("coldwar-adjacent", "coldwar", Start::New, &["b2", "a1", "c2"]),
        ex("coldwar-battle", "coldwar", Start::Position(".../X3O1./... X"), &[]),
        ex("coldwar-attack", "coldwar", Start::Position(".../X3O1./... X"), &["a2xb2"]),
        ex("coldwar-conquer", "coldwar", Start::Position(".../X3O1./... X"), &["a2>b2"]),
        ex("coldwar-even", "coldwar", Start::Position(".../X2O2./... X"), &["a2xb2"]),
        ex("coldwar-bigger", "coldwar", Start::Position(".../X1O3./... X"), &["a2xb2"]),
        ex("coldwar-win", "coldwar", Start::Position("X1X2X1/X1X1X3/X1X1. X"), &["c1"]),
        // Cordots
        ex("cordots-start", "cordots", Start::New, &[]),
        ex(
            "cordots-sandwich",
            "cordots",
            Start::New,
            &["a2-a3", "b7-b6", "a3-a4", "b6-b5", "c2-c3", "h7-h6", "c3-c4", "h6-h5", "a4-a5", "h5-h4", "c4-c5"],
        ),
        ex("cordots-step-in", "cordots", Start::Position("c6c/8/8/2c1c3/3V4/8/8/C6C w 0 0"), &[]),
        ex("cordots-step-in-after", "cordots", Start::Position("c6c/8/8/2c1c3/3V4/8/8/C6C w 0 0"), &["d4-d5"]),
        ex("cordots-sacrifice", "cordots", Start::Position("c2c3c/2V5/8/8/8/8/1V6/C7 w 1 0"), &[]),
        ex("cordots-sacrifice-after", "cordots", Start::Position("c2c3c/2V5/8/8/8/8/1V6/C7 w 1 0"), &["c7-c8=b2"]),
        // Cumisitha
        ex("cumisitha-start", "cumisitha", Start::New, &[]),
        ex("cumisitha-en-passant", "cumisitha", Start::New, &["e2e4", "a7a6", "e4e5", "d7d5"]),
        ex("cumisitha-en-passant-after", "cumisitha", Start::New, &["e2e4", "a7a6", "e4e5", "d7d5", "e5d6"]),
        ex("cumisitha-promotion", "cumisitha", Start::Position("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"), &["b7b8n"]),
        ex("cumisitha-mate", "cumisitha", Start::New, &["f2f3", "e7e5", "g2g4", "d8h4"]),
        ex("cumisitha-counter", "cumisitha", Start::Position("4k3/8/8/8/8/8/8/R3K3 w - - 99 80"), &["a1a2"]),
        // Dots: the scenes of the source's lesson, on a small board.
        ex("dots-start", "dots", Start::New, &[]),
        ex(
            "dots-first-capture",
            "dots",
            Start::Record(dots_sgf(10, 8, &[(5, 5), (4, 4), (6, 4)], &[(5, 4)], &[(true, 5, 3)])),
            &[],
        ),
        ex(
            "dots-bigger-area",
            "dots",
            Start::Record(dots_sgf(
                10,
                8,
                &[(4, 4), (5, 4)],
                &[(3, 4), (7, 4), (4, 5), (5, 5), (6, 5), (4, 3), (5, 3)],
                &[(true, 6, 4), (false, 6, 3)],
            )),
            &[],
        ),
        ex(
            "dots-no-dots-inside",
            "dots",
            Start::Record(dots_sgf(10, 8, &[(4, 4), (7, 4), (5, 5), (6, 5), (5, 3)], &[(5, 4)], &[(true, 6, 3)])),
            &[],
        ),
        ex(
            "dots-out-of-play",
            "dots",
            Start::Record(dots_sgf(10, 8, &[(5, 4), (4, 5), (6, 5), (5, 6)], &[(4, 4), (6, 4), (5, 3), (5, 5)], &[])),
            &[],
        ),
        ex("dots-edge", "dots", Start::Record(dots_sgf(10, 8, &[(5, 1)], &[(4, 1), (6, 1), (5, 2)], &[])), &[]),
        ex(
            "dots-who-wins",
            "dots",
            Start::Record(dots_sgf(10, 8, &[(1, 2), (2, 1), (3, 2)], &[(2, 2)], &[(true, 2, 3)])),
            &[],
        ),
        ex(
            "dots-recapture-before",
            "dots",
            Start::Record(dots_sgf(
                10,
                8,
                &[(5, 5), (4, 4), (6, 4), (5, 3)],
                &[(5, 4), (3, 4), (4, 5), (4, 3), (5, 6), (6, 5), (7, 4), (6, 3)],
                &[],
            )),
            &[],
        ),
        ex(
            "dots-recapture",
            "dots",
            Start::Record(dots_sgf(
                10,
                8,
                &[(5, 5), (4, 4), (6, 4), (5, 3)],
                &[(5, 4), (3, 4), (4, 5), (4, 3), (5, 6), (6, 5), (7, 4), (6, 3)],
                &[(true, 9, 7), (false, 5, 2)],
            )),
            &[],
        ),
    ]
}

fn start_state(e: &Example) -> Result<Box<dyn DynState>> {
    let game = tabula_games::REGISTRY.get(e.game).map_err(|err| anyhow!("{err}"))?;
    let options: Vec<(String, String)> = e.options.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Ok(match &e.start {
        Start::New => game.new_state(&options).map_err(|err| anyhow!("{err}"))?,
        Start::Position(p) => game.from_position(&options, p).map_err(|err| anyhow!("{err}"))?,
        Start::Record(text) => {
            let mut games = game.import(text).map_err(|err| anyhow!("{err}"))?;
            if games.is_empty() {
                return Err(anyhow!("the record holds no game"));
            }
            games.swap_remove(0).state
        }
    })
}

/// One example's state and view, as the server would send them.
pub fn compute_one(e: &Example) -> Result<Value> {
    let mut state = start_state(e).with_context(|| format!("example {}", e.id))?;
    for mv in e.moves {
        state.play(mv).map_err(|err| anyhow!("example {}: move {mv}: {err}", e.id))?;
    }
    Ok(json!({
        "game": e.game,
        "moves": e.moves,
        "state": state.state_json(),
        "view": state.view(),
    }))
}

/// Every example, keyed by id.
pub fn compute() -> Result<Value> {
    let mut out = Map::new();
    for e in all() {
        out.insert(e.id.to_string(), compute_one(&e)?);
    }
    Ok(Value::Object(out))
}

/// `web/howto/examples.json`.
pub fn examples_path() -> PathBuf {
    crate::workspace_root().join("web/howto/examples.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgf_points_count_y_from_the_top() {
        let sgf = dots_sgf(10, 8, &[(1, 8)], &[(10, 1)], &[(true, 2, 7)]);
        assert_eq!(sgf, "(;FF[4]GM[40]CA[UTF-8]SZ[10:8]RU[russian]AB[aa]AW[jh];B[bb])");
    }

    /// The state with its legal moves as a sorted set, so that an engine
    /// listing its moves in another order does not count as a change.
    fn comparable(state: &Value) -> Value {
        let mut state = state.clone();
        if let Some(moves) = state.get_mut("legal_moves").and_then(Value::as_array_mut) {
            moves.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        }
        state
    }

    /// Every example still plays through the engines to the position the
    /// pages show. Only the rules' part (`state`) is compared: the stored
    /// `view` is the drawing the pages were checked against, and a game
    /// adding fields to its view does not make the examples wrong.
    #[test]
    fn howto_examples_are_current() {
        let computed = compute().expect("every example plays through the engines");
        let path = examples_path();
        if std::env::var_os("TABULA_WRITE_EXAMPLES").is_some() {
            std::fs::write(&path, serde_json::to_string_pretty(&computed).unwrap() + "\n").unwrap();
        }
        let stored: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default())
            .unwrap_or_else(|e| panic!("{} is not JSON ({e}): rerun with TABULA_WRITE_EXAMPLES=1", path.display()));
        let (computed, stored) = (computed.as_object().unwrap(), stored.as_object().expect("an object of examples"));
        let ids = |m: &Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
        assert_eq!(ids(stored), ids(computed), "the examples in {} are not the ones listed here", path.display());
        for (id, example) in computed {
            let old = &stored[id];
            assert_eq!(old["moves"], example["moves"], "example {id}: moves");
            assert_eq!(
                comparable(&old["state"]),
                comparable(&example["state"]),
                "example {id} in {} no longer matches the engine: rerun with TABULA_WRITE_EXAMPLES=1",
                path.display()
            );
            assert!(old["view"].is_object(), "example {id} has a board view");
        }
    }
}
