//! The command line agrees with the rules and the server: clocks from the
//! game's options, refused combinations, hostile input at the prompt and
//! in arguments. Nothing here waits on the wall clock: matches run on
//! simulated time with a fixed charge per move.

mod common;

use common::{play, tabula};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn match_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["match", "cordots", "--a", "random", "--b", "random", "--json"];
    all.extend_from_slice(args);
    let o = tabula(&all);
    assert!(o.status.success(), "{}", text(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn endings(j: &serde_json::Value) -> Vec<String> {
    j["endings"].as_array().unwrap().iter().map(|e| e["reason"].as_str().unwrap().to_string()).collect()
}

#[test]
fn match_blitz_runs_the_shot_clock_and_a_flag_loses() {
    // 46 s a move against a 45 s shot clock: the first mover flags at once.
    let j = match_json(&["-o", "mode=blitz", "--games", "2", "--move-ms", "46000"]);
    assert_eq!(endings(&j), ["white ran out of time"], "{j}");
    assert_eq!(j["average_plies"], 0.0, "{j}");
    assert_eq!(j["wins"], 1, "white loses each game, and A is white once: {j}");
    // Within the clock the game runs to a rules ending, uncapped: no 300-ply
    // cap under a clock.
    let j = match_json(&["-o", "mode=blitz", "--games", "2", "--move-ms", "1000"]);
    assert!(endings(&j).iter().all(|e| !e.contains("time") && !e.contains("ply cap")), "{j}");
    assert!(j["average_plies"].as_f64().unwrap() > 300.0, "{j}");
}

#[test]
fn match_competitive_runs_the_match_clock_tie_breaker_and_overtime() {
    // 10 s a move: the 20-minute clock runs out at ply 120, the 5-minute
    // overtime 30 plies later.
    let j = match_json(&["-o", "mode=competitive", "--games", "4", "--move-ms", "10000"]);
    let timed = ["tie-breaker at time", "tie-breaker after overtime", "level after overtime"];
    let ends = endings(&j);
    assert!(ends.iter().all(|e| timed.contains(&e.as_str())), "{j}");
    assert!(ends.iter().any(|e| e.contains("overtime")), "some game is level at 20:00: {j}");
    let plies = j["average_plies"].as_f64().unwrap();
    assert!((115.0..=150.0).contains(&plies), "{j}");
    // A 30-minute clock runs about 180 plies before the tie-breaker.
    let j = match_json(&["-o", "mode=competitive", "-o", "minutes=30", "--games", "1", "--move-ms", "10000"]);
    assert!(j["average_plies"].as_f64().unwrap() >= 175.0, "{j}");
}

#[test]
fn play_refuses_a_clock_that_conflicts_with_the_mode() {
    for (mode, clock) in
        [("blitz", "fischer:10+0"), ("competitive", "none"), ("untimed", "match:20"), ("untimed", "fischer:60+1")]
    {
        let option = format!("mode={mode}");
        let o = tabula(&["play", "cordots", "-o", &option, "--clock", clock, "--white", "human", "--black", "human"]);
        assert_eq!(o.status.code(), Some(2), "{mode} with {clock}: {}", text(&o.stdout));
        let err = text(&o.stderr);
        assert!(err.contains(&format!("--clock {clock} conflicts with mode={mode}")), "{err}");
    }
    // The mode's own clock, named again, is fine; so is any clock for a game
    // whose options do not fix one.
    let o = play(
        &["play", "cordots", "-o", "mode=blitz", "--clock", "shot:45", "--white", "human", "--black", "human"],
        b"quit\n",
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("45 s per move"), "{}", text(&o.stdout));
    let o = play(&["play", "cordots", "-o", "mode=competitive", "--white", "human", "--black", "human"], b"quit\n");
    assert!(text(&o.stdout).contains("match clock 20:00"), "{}", text(&o.stdout));
    let o = play(&["play", "coldwar", "--clock", "fischer:60+1", "--x", "human", "--o", "human"], b"quit\n");
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn play_answers_a_line_that_is_not_utf8_and_goes_on() {
    let input = b"b2\n\xff\xfe junk\na2\nmoves\nquit\n";
    let o = play(&["play", "coldwar", "--x", "human", "--o", "human"], input);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("not UTF-8"), "{out}");
    // The session went on: a2 was played after the bad line.
    assert!(out.contains("ply 2 | x to move"), "{out}");
}

#[test]
fn errors_quote_at_most_80_characters_of_the_input() {
    let huge = "e2e4".repeat(30_000);
    let cases: Vec<Vec<&str>> = vec![
        vec!["state", "cordots", "--moves", &huge],
        vec!["state", "cumisitha", "--position", &huge],
        vec!["state", &huge],
        vec!["state", "dots", "-o", &huge],
        vec!["play", "cordots", "--white", &huge],
        vec!["play", "cordots", "--clock", &huge],
        vec!["match", "coldwar", "--a", &huge, "--b", "random"],
    ];
    for args in cases {
        let o = tabula(&args);
        assert_eq!(o.status.code(), Some(2), "{:?}", &args[..2]);
        let err = text(&o.stderr);
        assert!(err.len() < 400, "{:?}: {} bytes: {}", &args[..2], err.len(), &err[..400]);
    }
    let o = play(&["play", "coldwar", "--x", "human", "--o", "human"], format!("{huge}\nquit\n").as_bytes());
    let out = text(&o.stdout);
    assert!(out.len() < 4_000 && out.contains("malformed move"), "{} bytes", out.len());
}

#[test]
fn command_line_numbers_are_read_as_everywhere_else() {
    let ok = tabula(&["match", "coldwar", "--a", "random", "--b", "random", "--games", "02", "--json"]);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&ok.stdout).unwrap()["games"], 2);
    for args in [
        vec!["match", "coldwar", "--a", "random", "--b", "random", "--games", "+2"],
        vec!["match", "coldwar", "--a", "random", "--b", "random", "--seed=-1"],
        vec!["bench", "coldwar", "--seconds", "inf"],
        vec!["bench", "coldwar", "--seconds", "1e1"],
        vec!["play", "coldwar", "--seed", "+5"],
    ] {
        let o = tabula(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?} was accepted");
        assert!(text(&o.stderr).contains("number"), "{args:?}: {}", text(&o.stderr));
    }
}
