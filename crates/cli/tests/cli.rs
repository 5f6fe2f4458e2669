//! The `tabula` binary end to end, as a user runs it.

mod common;

use common::{play, tabula};
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_str(stdout(o).trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

#[test]
fn games_lists_every_registered_game() {
    let o = tabula(&["games", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let games = json(&o);
    let ids: Vec<&str> = games.as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"coldwar"), "{ids:?}");
    for g in games.as_array().unwrap() {
        assert!(!g["levels"].as_array().unwrap().is_empty());
    }
    let text = tabula(&["games"]);
    assert!(stdout(&text).contains("AI levels"));
}

#[test]
fn state_prints_the_standard_json() {
    let o = tabula(&["state", "coldwar", "--moves", "b2 a2 b2-b3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["game"], "coldwar");
    assert_eq!(j["position"], ".X1./O1../... O");
    assert_eq!(j["to_move"], "o");
    assert_eq!(j["status"], "ongoing");
    assert_eq!(j["winner"], serde_json::Value::Null);
    assert_eq!(j["reason"], serde_json::Value::Null);
    assert_eq!(j["plies"], 3);
    assert!(j["legal_moves"].as_array().unwrap().iter().any(|m| m == "a2-b2"));
}

#[test]
fn state_reports_a_finished_game() {
    let o = tabula(&["state", "coldwar", "--position", "X3X3X3/X3X3X3/X3X3O1 X", "--moves", "c2xc1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["status"], "ongoing", "c2xc1 3 against 1 leaves c1 empty: {j}");
    let o = tabula(&["state", "coldwar", "--position", "X3X3X3/X3X3X3/X3X3O1 X", "--moves", "c2>c1"]);
    let j = json(&o);
    assert_eq!(j["status"], "over");
    assert_eq!(j["winner"], "x");
    assert!(j["legal_moves"].as_array().unwrap().is_empty());
}

#[test]
fn an_illegal_move_exits_2_naming_move_index_and_reason() {
    let o = tabula(&["state", "coldwar", "--moves", "b2 a2 c3"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("move 3") && err.contains("'c3'") && err.contains("not orthogonally adjacent"), "{err}");
    assert!(stdout(&o).is_empty());

    let o = tabula(&["state", "coldwar", "--moves", "b2 zz9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("move 2") && stderr(&o).contains("malformed"), "{}", stderr(&o));
}

#[test]
fn bad_input_is_refused_clearly() {
    for (args, needle) in [
        (vec!["state", "chess"], "unknown game 'chess'"),
        (vec!["state", "coldwar", "--position", "X9../.../... X"], "bad position"),
        (vec!["state", "coldwar", "--option", "size"], "expected key=value"),
        (vec!["state", "coldwar", "--option", "size=4"], "no options"),
        (vec!["match", "coldwar", "--a", "genius", "--b", "random"], "unknown AI level"),
        // A malformed search spec: the message names the forms.
        (vec!["match", "dots", "--a", "rave:100:0", "--b", "random"], "rave:MS[:K[:C[:CUT[:E[:TREES]]]]]"),
        (vec!["match", "cordots", "--a", "alphabeta:0", "--b", "random"], "alphabeta-no-lmr:MS"),
        (vec!["bench", "coldwar", "--seconds", "0"], "--seconds"),
    ] {
        let o = tabula(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
    }
}

#[test]
fn match_reports_score_interval_and_elo() {
    let o =
        tabula(&["match", "coldwar", "--a", "uct-iter:40", "--b", "random", "--games", "6", "--jobs", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["games"], 6);
    let (w, d, l) = (j["wins"].as_u64().unwrap(), j["draws"].as_u64().unwrap(), j["losses"].as_u64().unwrap());
    assert_eq!(w + d + l, 6);
    let score = j["score"].as_f64().unwrap();
    assert!((score - (w as f64 + d as f64 / 2.0) / 6.0).abs() < 1e-9);
    let ci = j["score_ci95"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() <= score && score <= ci[1].as_f64().unwrap());
    // Every game is counted under the way it ended.
    let ended: u64 = j["endings"].as_array().unwrap().iter().map(|e| e["games"].as_u64().unwrap()).sum();
    assert_eq!(ended, 6, "{j}");
    // The same seed replays the same match.
    let again =
        tabula(&["match", "coldwar", "--a", "uct-iter:40", "--b", "random", "--games", "6", "--jobs", "1", "--json"]);
    assert_eq!(json(&again)["score"], j["score"]);
    let text = tabula(&["match", "coldwar", "--a", "random", "--b", "random", "--games", "2"]);
    assert!(stdout(&text).contains("Elo difference"), "{}", stdout(&text));
    // With stderr not a terminal (a run under nohup) each game is reported
    // as it ends, so a run stopped early still leaves its results.
    let log = stderr(&again);
    assert_eq!(log.lines().filter(|l| l.starts_with("game ")).count(), 6, "{log}");
    assert!(log.contains("game 2 (B first): ") && log.contains("6 of 6 done"), "{log}");
    // A game that keeps a score reports the average points.
    let dots = tabula(&[
        "match", "dots", "--a", "random", "--b", "random", "--games", "2", "-o", "width=8", "-o", "height=8", "--json",
    ]);
    assert!(dots.status.success(), "{}", stderr(&dots));
    assert!(json(&dots)["average_points"]["a"].is_number(), "{}", stdout(&dots));
    // Random openings: reported, counted in the games' length, and a length
    // no game survives is refused before any game starts.
    let opened =
        tabula(&["match", "coldwar", "--a", "random", "--b", "random", "--games", "4", "--openings", "3", "--json"]);
    assert!(opened.status.success(), "{}", stderr(&opened));
    assert_eq!(json(&opened)["opening_plies"], 3);
    assert!(json(&opened)["average_plies"].as_f64().unwrap() >= 3.0);
    let too_long = tabula(&["match", "coldwar", "--a", "random", "--b", "random", "--openings", "10000"]);
    assert_eq!(too_long.status.code(), Some(2), "{}", stderr(&too_long));
    assert!(stderr(&too_long).contains("ask for fewer plies"), "{}", stderr(&too_long));
}

#[test]
fn uci_match_against_our_own_uci_engine_reports_elo_as_text() {
    let engine = format!("{} uci", env!("CARGO_BIN_EXE_tabula"));
    let o = tabula(&["uci-match", "--engine", &engine, "--depth", "1", "--games", "4", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["games"], 4, "{j}");
    let (w, d, l) = (j["wins"].as_u64().unwrap(), j["draws"].as_u64().unwrap(), j["losses"].as_u64().unwrap());
    assert_eq!(w + d + l, 4, "{j}");
    // Elo is text as in `tabula match`: a signed number, or ±inf at 0% or 100%.
    for key in ["elo", "elo_low", "elo_high"] {
        let text = j[key].as_str().unwrap_or_else(|| panic!("{key} is text: {j}"));
        assert!(text.ends_with("inf") || text.parse::<i32>().is_ok(), "{key}: {text}");
    }
    let score = j["score"].as_f64().unwrap();
    assert_eq!(j["elo"] == "+inf", score == 1.0, "{j}");
    assert_eq!(j["elo"] == "-inf", score == 0.0, "{j}");
}

#[test]
fn bench_reports_playouts_and_plies_per_second() {
    let o = tabula(&["bench", "coldwar", "--seconds", "0.3", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    assert!(j["playouts_per_second"].as_f64().unwrap() > 0.0);
    assert!(j["plies_per_second"].as_f64().unwrap() > 0.0);
    // CPU time is at most the wall time (one thread), so the CPU rate is at least the wall rate.
    let cpu = j["cpu_seconds"].as_f64().unwrap();
    assert!(cpu > 0.0 && cpu <= j["seconds"].as_f64().unwrap() + 0.01, "{j}");
    assert!(j["playouts_per_cpu_second"].as_f64().unwrap() >= j["playouts_per_second"].as_f64().unwrap() * 0.99);
}

#[test]
fn play_between_two_people_handles_commands_and_errors() {
    let o = play(&["play", "coldwar", "--x", "human", "--o", "human"], "help\nmoves\nb2\na2\nc3\nzz\nb3\nundo\nquit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Commands:"), "{out}");
    assert!(out.contains("a1 b1 c1 a2 b2 c2 a3 b3 c3"), "{out}");
    assert!(out.contains("illegal move 'c3'") && out.contains("not orthogonally adjacent"), "{out}");
    assert!(out.contains("malformed move 'zz'"), "{out}");
    assert!(out.contains("x to move>") && out.contains("o to move>"), "{out}");
    // After the undo x is to move again at ply 2, with b2 and a2 on the board.
    let last_board = out.rsplit("+-----+-----+-----+\n       a     b     c").next().unwrap();
    assert!(last_board.contains("ply 2 | x to move"), "{out}");
}

#[test]
fn play_against_the_ai_to_the_end() {
    // A person who always plays the first legal move never beats random
    // play for long: the game must reach a result banner.
    let moves = "a1\n".repeat(3) + "moves\n";
    let o = play(&["play", "coldwar", "--x", "ai:random", "--o", "ai:easy", "--seed", "5"], &moves);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("***") && (out.contains("wins") || out.contains("draw")), "{out}");
}

#[test]
fn play_with_a_clock_shows_it_and_a_flag_falls() {
    // Nobody moves: o's second... x's 1-second shot clock runs out.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(["play", "coldwar", "--x", "human", "--o", "human", "--clock", "shot:1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    stdin.write_all(b"quit\n").ok();
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    let out = stdout(&o);
    assert!(out.contains("x 0:01") || out.contains("x 0:00"), "{out}");
    assert!(out.contains("o wins (x ran out of time)"), "{out}");
}

#[test]
fn replay_reads_tabula_text_records() {
    let dir = std::env::temp_dir().join(format!("tabula-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("games.txt");
    std::fs::write(
        &file,
        "[Game \"coldwar\"]\n[Result \"*\"]\n\n1. b2 a2 2. b2-b3 *\n\n[Game \"coldwar\"]\n[Position \"X3X3X3/X3X3X3/X3X3O1 X\"]\n\n1. c2>c1 x\n",
    )
    .unwrap();
    let o = tabula(&["replay", "coldwar", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["position"], ".X1./O1../... O");
    assert_eq!(lines[1]["winner"], "x");

    std::fs::write(&file, "[Game \"coldwar\"]\n\n1. b2 b2xb3\n").unwrap();
    let o = tabula(&["replay", "coldwar", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("move 2"), "{}", stderr(&o));
    let o = tabula(&["replay", "coldwar", dir.join("missing.txt").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn game_tools_run_through_the_registry() {
    // Cumisitha's perft: 400 positions after two plies.
    let o = tabula(&["perft", "cumisitha", "--depth", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "400");
    let o = tabula(&["perft", "cumisitha", "--depth", "1", "--divide", "--moves", "e2e4 e7e5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("g1f3: 1") && stdout(&o).trim_end().ends_with("29"), "{}", stdout(&o));
    // Refused input exits with 2 and one line.
    let o = tabula(&["perft", "dots", "--depth", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("only cumisitha has perft"), "{}", stderr(&o));
    let o = tabula(&["solve", "dots"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("only coldwar can be solved"), "{}", stderr(&o));
    // A bad position is refused before the (long) solve.
    let o = tabula(&["solve", "coldwar", "--position", "X9"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad position"), "{}", stderr(&o));
    // Each tool's own help and usage errors, as from any command.
    let o = tabula(&["perft", "--help"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("Usage: tabula perft") && stdout(&o).contains("--divide"), "{}", stdout(&o));
    let o = tabula(&["help", "solve"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("Usage: tabula solve"), "{}", stdout(&o));
    let o = tabula(&["perft"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--depth"), "{}", stderr(&o));
    // The UCI front end answers on stdin and stdout.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run tabula uci");
    child.stdin.take().unwrap().write_all(b"uci\nquit\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("uciok"));
    // The main help lists every tool.
    let o = tabula(&["--help"]);
    for tool in ["solve", "perft", "uci", "uci-match"] {
        assert!(stdout(&o).lines().any(|l| l.trim_start().starts_with(tool)), "{tool}: {}", stdout(&o));
    }
}

#[test]
fn seat_options_come_from_the_games_players() {
    let o = tabula(&["play", "--help"]);
    let help = stdout(&o).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("--white <SEAT>") && help.contains("--black <SEAT>"), "{help}");
    assert!(help.contains("[aliases: --blue, --x, --first]"), "{help}");
    assert!(help.contains("[aliases: --red, --o, --second]"), "{help}");
    // Any game's names work for any game's seats.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(["play", "coldwar", "--x", "human", "--o", "ai:random", "--seed", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabula play");
    child.stdin.take().unwrap().write_all(b"quit\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("o: ai:random"));
}

#[test]
fn tournament_reports_standings_crosstable_and_ratings() {
    let args = [
        "tournament",
        "dots",
        "-o",
        "width=8",
        "-o",
        "height=8",
        "--players",
        "uct-iter:60,random,uct-iter:20,random",
        "--games-per-pair",
        "2",
        "--json",
    ];
    let o = tabula(&[&args[..], &["--jobs", "2"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["system"], "round-robin");
    // Four players, two games a pair: 12 games, 12 points shared out.
    assert_eq!(j["games"], 12);
    let standings = j["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 4);
    let points: f64 = standings.iter().map(|s| s["points"].as_f64().unwrap()).sum();
    assert_eq!(points, 12.0);
    // The duplicate spec got a distinct name.
    assert!(standings.iter().any(|s| s["player"] == "random#2"), "{j}");
    // The crosstable is consistent: a's points against b plus b's against a
    // is the number of their games.
    let cross = j["crosstable"].as_array().unwrap();
    for (a, row) in cross.iter().enumerate() {
        for (b, other) in cross.iter().enumerate() {
            if a != b {
                let ab = &row["against"][b];
                let ba = &other["against"][a];
                assert_eq!(ab["games"], 2);
                assert_eq!(ab["points"].as_f64().unwrap() + ba["points"].as_f64().unwrap(), 2.0);
            }
        }
    }
    // Ratings from the joint fit average zero, with error bars.
    let ratings = j["ratings"]["players"].as_array().unwrap();
    let mean: f64 = ratings.iter().map(|r| r["rating"].as_f64().unwrap()).sum::<f64>() / 4.0;
    assert!(mean.abs() < 1e-6, "{j}");
    assert!(ratings.iter().all(|r| r["error95"].as_f64().unwrap() > 0.0));
    // The same seed gives the same tournament on one job, and on three,
    // where a worker always starts a game of the next round early (a round
    // has two games).
    let again = tabula(&[&args[..], &["--jobs", "1"]].concat());
    assert_eq!(json(&again)["standings"], j["standings"]);
    assert_eq!(json(&again)["crosstable"], j["crosstable"]);
    let ahead = tabula(&[&args[..], &["--jobs", "3"]].concat());
    assert_eq!(json(&ahead)["standings"], j["standings"]);
    assert_eq!(json(&ahead)["crosstable"], j["crosstable"]);
    // Each game is reported on stderr as it ends (not a terminal here),
    // naming who moved first and who won.
    let log = stderr(&again);
    let games: Vec<&str> = log.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(games.len(), 12, "{log}");
    assert!(games[0].starts_with("game 1: ") && games[0].contains(" (first) vs "), "{log}");
    assert!(games.iter().all(|l| l.contains(" won, ") || l.contains(": draw, ")), "{log}");
}

#[test]
fn tournament_runs_swiss_knockout_and_refuses_bad_input() {
    let swiss = tabula(&[
        "tournament",
        "coldwar",
        "--players",
        "uct-iter:20,random,random,random,random",
        "--system",
        "swiss",
        "--rounds",
        "3",
    ]);
    assert!(swiss.status.success(), "{}", stderr(&swiss));
    let text = stdout(&swiss);
    assert!(text.contains("swiss of 5 players") && text.contains("BH-C1") && text.contains("Ratings"), "{text}");
    let knockout = tabula(&[
        "tournament",
        "dots",
        "-o",
        "width=8",
        "-o",
        "height=8",
        "-o",
        "format=express",
        "--players",
        "uct-iter:30,random,uct-iter:10,random,random",
        "--system",
        "knockout",
        "--games-per-pair",
        "2",
        "--third-place",
    ]);
    assert!(knockout.status.success(), "{}", stderr(&knockout));
    let text = stdout(&knockout);
    assert!(text.contains("Bracket") && text.contains("final:") && text.contains("third place:"), "{text}");
    for (args, message) in [
        (vec!["tournament", "coldwar", "--players", "random"], "at least two AIs"),
        (vec!["tournament", "coldwar", "--players", "random,genius"], "unknown AI level"),
        (
            vec!["tournament", "coldwar", "--players", "random,random", "--system", "swiss", "--rounds", "3"],
            "at most 1 round",
        ),
        (vec!["tournament", "coldwar", "--players", "random,random", "--games-per-pair", "0"], "at least 1"),
        (vec!["tournament", "dots", "--players", "random,random", "-o", "width=3"], "width"),
    ] {
        let o = tabula(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn tournament_help_comes_from_the_registry() {
    let o = tabula(&["tournament", "--help"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let help = stdout(&o);
    // The games whose options have a knockout stage, and examples with their real levels.
    assert!(help.contains("`stage=knockout` (Dots)"), "{help}");
    assert!(help.contains("tabula tournament cordots --players \"expert,hard,medium,random\""), "{help}");
    assert!(help.contains("--system knockout"), "{help}");
}

#[test]
fn serve_on_an_unreachable_postgresql_says_so_without_the_password() {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    let o = tabula(&["serve", "--addr", "127.0.0.1:0", "--db", "postgres://tabula:hunter2@127.0.0.1:1/tabula"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("cannot connect to the database postgres://tabula:***@127.0.0.1:1/tabula"), "{err}");
    assert!(!err.contains("hunter2"), "the password leaked: {err}");
    let o = tabula(&["serve", "--addr", "127.0.0.1:0", "--db", "postgres://tabula@127.0.0.1:notaport/tabula"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("invalid port number"), "{}", stderr(&o));
}

/// An external UCI engine plays in `tabula match` and `tabula tournament`:
/// here Tabula's own Cumisitha engine through `tabula uci`, as Stockfish
/// would.
#[test]
fn uci_engines_play_matches_and_tournaments() {
    let engine = format!("uci:20:{} uci;Hash=8", env!("CARGO_BIN_EXE_tabula"));
    let o = tabula(&["match", "cumisitha", "--a", &engine, "--b", "random", "--games", "2", "--jobs", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&o);
    // The engine, at 20 ms a move, mates a random mover with either colour.
    assert_eq!(j["wins"], 2, "{j}");
    let players = format!("random,eng={engine},uct-iter:20");
    let t = tabula(&["tournament", "cumisitha", "--players", &players, "--games-per-pair", "1", "--json"]);
    assert!(t.status.success(), "{}", stderr(&t));
    let j = json(&t);
    let standings = j["standings"].as_array().unwrap();
    assert_eq!(standings[0]["player"], "eng", "{j}");
    assert_eq!(standings[0]["points"], 2.0, "{j}");
    // What cannot play is refused before any game, naming the player.
    for (spec, says) in [
        ("uci:20:/no/such/engine".to_string(), "/no/such/engine"),
        ("uci:soon:stockfish".to_string(), "is not a time a move"),
        (format!("uci:20:{} uci;NoSuchOption", env!("CARGO_BIN_EXE_tabula")), "is not NAME=VALUE"),
    ] {
        let game = "cumisitha";
        let o = tabula(&["match", game, "--a", &spec, "--b", "random"]);
        assert_eq!(o.status.code(), Some(2), "{spec}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{spec}: {}", stderr(&o));
        let players = format!("random,{spec}");
        let o = tabula(&["tournament", game, "--players", &players]);
        assert_eq!(o.status.code(), Some(2), "{spec}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{spec}: {}", stderr(&o));
    }
}
