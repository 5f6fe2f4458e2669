//! SGF records (`FF[4]`, `GM[40]`) as the Points community writes them
//! (playdots.ru, zagram.org, oppai-rs): see docs/rules/dots.md, Records.
//!
//! Setup dots (AB/AW) are not positions in our sense, so import builds the
//! state directly: setup dots are placed as ordinary dots (captures
//! resolved) and every move of the record is applied, even past the point
//! where our single-game rule would have ended the game.

use crate::options::{DotsOptions, Format, Stage, MAX_SIDE, MIN_SIDE};
use crate::rules::{Dots, Point};
use tabula_core::record::replay_log;
use tabula_core::{Game, GameLog, GameOptions, Player, RecordError, RecordProblem, Replayed, Status};

/// SGF coordinates reach 52 (`a`-`z`, `A`-`Z`).
pub const MAX_SGF_SIDE: usize = 52;

/// One node: its properties in file order.
#[derive(Debug, Clone, Default)]
pub struct Node {
    /// Its properties and their values, in file order.
    pub props: Vec<(String, Vec<String>)>,
}

impl Node {
    /// The first value of property `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.props.iter().find(|(k, _)| k == key).and_then(|(_, v)| v.first()).map(|s| s.as_str())
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn line(&self, at: usize) -> usize {
        self.text[..at.min(self.text.len())].bytes().filter(|&b| b == b'\n').count() + 1
    }
    fn err(&self, what: &str) -> RecordError {
        RecordError::syntax(what).at_line(self.line(self.pos))
    }
    fn skip_ws(&mut self) {
        while self.pos < self.text.len() && self.text.as_bytes()[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// GameTree: `(` Node+ GameTree* `)`; returns its main line.
    fn tree(&mut self, depth: usize) -> Result<Vec<Node>, RecordError> {
        if depth > 10_000 {
            return Err(self.err("variations nested too deeply"));
        }
        self.skip_ws();
        if self.peek() != Some(b'(') {
            return Err(self.err("expected '(' to open a game tree"));
        }
        self.pos += 1;
        let mut nodes = Vec::new();
        let mut main_child_taken = false;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b';') if !main_child_taken => {
                    self.pos += 1;
                    nodes.push(self.node()?);
                }
                Some(b'(') => {
                    let line = self.tree(depth + 1)?;
                    // The first variation is the main line; others are skipped.
                    if !main_child_taken {
                        nodes.extend(line);
                        main_child_taken = true;
                    }
                }
                Some(b')') => {
                    self.pos += 1;
                    break;
                }
                Some(b';') => return Err(self.err("a node after a variation")),
                Some(c) => return Err(self.err(&format!("unexpected '{}'", c as char))),
                None => return Err(self.err("the record ends inside a game tree (missing ')')")),
            }
        }
        if nodes.is_empty() {
            return Err(self.err("an empty game tree"));
        }
        Ok(nodes)
    }

    fn node(&mut self) -> Result<Node, RecordError> {
        let mut node = Node::default();
        loop {
            self.skip_ws();
            let start = self.pos;
            while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                self.pos += 1;
            }
            if self.pos == start {
                return Ok(node);
            }
            // FF[3] allowed lower-case letters in names; only capitals count.
            let ident: String = self.text[start..self.pos].chars().filter(|c| c.is_ascii_uppercase()).collect();
            let mut values = Vec::new();
            loop {
                self.skip_ws();
                if self.peek() != Some(b'[') {
                    break;
                }
                self.pos += 1;
                let mut value = String::new();
                let mut escaped = false;
                let mut closed = false;
                for (i, ch) in self.text[self.pos..].char_indices() {
                    if escaped {
                        escaped = false;
                        if ch != '\n' && ch != '\r' {
                            value.push(ch);
                        }
                    } else if ch == '\\' {
                        escaped = true;
                    } else if ch == ']' {
                        self.pos += i + 1;
                        closed = true;
                        break;
                    } else {
                        value.push(ch);
                    }
                }
                if !closed {
                    let why = format!("property {ident} has an unclosed value");
                    return Err(RecordError::syntax(why).at_line(self.line(start)));
                }
                values.push(value);
            }
            if values.is_empty() {
                let why = format!("property {ident} has no value");
                return Err(RecordError::syntax(why).at_line(self.line(start)));
            }
            node.props.push((ident, values));
        }
    }
}

/// Parse every game tree of a collection into its main line of nodes.
pub fn parse(text: &str) -> Result<Vec<Vec<Node>>, RecordError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut p = Parser { text, pos: 0 };
    let mut games = Vec::new();
    loop {
        p.skip_ws();
        if p.peek().is_none() {
            break;
        }
        games.push(p.tree(0)?);
    }
    if games.is_empty() {
        return Err(RecordError::new(RecordProblem::Empty));
    }
    Ok(games)
}

/// `a`..`z`, `A`..`Z` → 0..51.
fn coord(c: char) -> Option<usize> {
    match c {
        'a'..='z' => Some(c as usize - 'a' as usize),
        'A'..='Z' => Some(c as usize - 'A' as usize + 26),
        _ => None,
    }
}

fn letter(i: usize) -> char {
    if i < 26 {
        (b'a' + i as u8) as char
    } else {
        (b'A' + (i - 26) as u8) as char
    }
}

/// Our point for an SGF point (x then y, y = 0 the top row).
fn sgf_point(d: &Dots, text: &str) -> Result<Point, String> {
    let mut chars = text.chars();
    let (Some(cx), Some(cy)) = (chars.next(), chars.next()) else {
        return Err(format!("'{text}' is not an SGF point"));
    };
    let (Some(x), Some(y)) = (coord(cx), coord(cy)) else {
        return Err(format!("'{text}' is not an SGF point (letters a-z, A-Z)"));
    };
    if x >= d.width() || y >= d.height() {
        return Err(format!("'{text}' lies off the {}x{} board", d.width(), d.height()));
    }
    Ok(d.point(x + 1, d.height() - y).expect("checked on board"))
}

fn point_sgf(d: &Dots, p: Point) -> String {
    let (x, y) = d.xy(p);
    format!("{}{}", letter(x - 1), letter(d.height() - y))
}

fn parse_size(v: &str) -> Result<(u8, u8), String> {
    let num = |s: &str| -> Result<u8, String> {
        let n = tabula_core::options::parse_number(s).ok_or_else(|| format!("SZ[{v}] is not a board size"))? as usize;
        if n < MIN_SIDE as usize || n > (MAX_SIDE as usize).min(MAX_SGF_SIDE) {
            return Err(format!("SZ[{v}]: {n} is outside {MIN_SIDE}..{MAX_SGF_SIDE}"));
        }
        Ok(n as u8)
    };
    match v.split_once(':') {
        Some((w, h)) => Ok((num(w)?, num(h)?)),
        None => {
            let n = num(v)?;
            Ok((n, n))
        }
    }
}

/// The cross of `Dots::start` as (blue points, red points).
fn standard_cross(opts: &DotsOptions) -> (Vec<Point>, Vec<Point>) {
    let d = Dots::new(&DotsOptions { cross: true, ..*opts });
    let (mut blue, mut red) = (Vec::new(), Vec::new());
    for y in 1..=d.height() {
        for x in 1..=d.width() {
            let p = d.point(x, y).expect("on board");
            match d.dot_at(p) {
                Some((Player::First, _)) => blue.push(p),
                Some((Player::Second, _)) => red.push(p),
                None => {}
            }
        }
    }
    (blue, red)
}

/// Replay one game tree's main line.
fn replay_tree(nodes: &[Node], game_no: usize) -> Result<Replayed<Dots>, RecordError> {
    let at = |what: String| RecordError::syntax(what).in_game(game_no);
    let at_move = |n: usize, what: String| at(what).at_move(n);
    let root = &nodes[0];
    match root.get("GM") {
        Some("40") => {}
        Some(g) => return Err(at(format!("GM[{g}] is not a Dots record (Dots is GM[40])"))),
        None => return Err(at("no GM[40] property: not a Dots record".into())),
    }
    let (width, height) = parse_size(root.get("SZ").unwrap_or("39:32")).map_err(at)?;
    let mut notes = Vec::new();
    if let Some(ru) = root.get("RU") {
        let compact: String = ru.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
        if compact.contains("mustsurr=0") {
            return Err(at(format!(
                "RU[{ru}]: MustSurr=0 means captures are made by explicit enclosures chosen by the players, \
                 which automatic capture cannot reproduce; this record cannot be replayed under these rules"
            )));
        }
        if compact != "russian" && !compact.contains("mustsurr=1") {
            notes.push(format!("unknown rules RU[{ru}], read as automatic capture"));
        }
    }
    let mut opts = DotsOptions { cross: false, ..DotsOptions::sized(width, height) };
    if let Some(t) = root.get("TABULA") {
        for pair in t.split(',') {
            let (k, v) = pair.split_once('=').ok_or_else(|| at(format!("TABULA[{t}]: expected key=value")))?;
            opts.set(k, v).map_err(|e| at(format!("TABULA[{t}]: {e}")))?;
        }
        opts.cross = false;
    }
    // Setup: all AB then all AW of every node before the first move.
    let mut setup: [Vec<Point>; 2] = [Vec::new(), Vec::new()];
    let probe = Dots::empty(&opts);
    for node in nodes {
        if node.props.iter().any(|(k, _)| k == "B" || k == "W") {
            break;
        }
        for (i, key) in ["AB", "AW"].iter().enumerate() {
            for (k, values) in &node.props {
                if k == key {
                    for v in values {
                        setup[i].push(sgf_point(&probe, v).map_err(|e| at(format!("{key}: {e}")))?);
                    }
                }
            }
        }
    }
    let (cross_blue, cross_red) = standard_cross(&opts);
    let is_cross = {
        let (mut b, mut r) = (setup[0].clone(), setup[1].clone());
        b.sort();
        r.sort();
        b == cross_blue && r == cross_red
    };
    let mut state = if is_cross {
        opts.cross = true;
        Dots::new(&opts)
    } else {
        let mut s = Dots::empty(&opts);
        for (i, who) in Player::BOTH.iter().enumerate() {
            for &p in &setup[i] {
                if !s.place_setup(*who, p) {
                    return Err(at(format!("setup dot {} cannot be placed there", s.format_move(p))));
                }
            }
        }
        s
    };
    let mut ended_at = None;
    let mut moves = 0usize;
    let mut turn_note = false;
    'nodes: for node in nodes {
        for (k, values) in &node.props {
            let who = match k.as_str() {
                "B" => Player::First,
                "W" => Player::Second,
                _ => continue,
            };
            let colour = Dots::PLAYERS[who.index()];
            let value = values.first().map(|s| s.as_str()).unwrap_or("");
            if value.is_empty() {
                notes.push(format!(
                    "{colour} ended the record with an empty move after {moves} moves (on playdots.ru: {colour} grounds)"
                ));
                break 'nodes;
            }
            let (pt_text, rest) = value.split_at(value.char_indices().nth(2).map_or(value.len(), |(i, _)| i));
            if !rest.is_empty() && !rest.starts_with('.') {
                return Err(at_move(
                    moves + 1,
                    format!("{k}[{value}]: expected a point, then optionally '.' and a chain"),
                ));
            }
            let p = sgf_point(&state, pt_text).map_err(|e| at_move(moves + 1, format!("{k}[{value}]: {e}")))?;
            if !state.is_playable(p) {
                return Err(at_move(
                    moves + 1,
                    format!(
                        "{k}[{value}] ({}): {}; the record cannot be replayed under automatic capture",
                        state.format_move(p),
                        state.explain_illegal(p)
                    ),
                ));
            }
            if state.to_move() != who {
                if !turn_note {
                    notes.push(format!("move {} is {colour}'s out of turn; played as recorded", moves + 1));
                    turn_note = true;
                }
                state.set_to_move(who);
            }
            state.play(p);
            moves += 1;
            if ended_at.is_none() && state.status().is_over() {
                ended_at = Some(state.plies());
            }
        }
    }
    if let Some(n) = ended_at {
        if (n as usize) < moves {
            notes.push(format!("our single-game rule would have ended the game after move {n}"));
        }
    }
    let mut tags = Vec::new();
    for (k, values) in &root.props {
        if !matches!(k.as_str(), "AB" | "AW" | "B" | "W") {
            tags.push((k.clone(), values.join(",")));
        }
    }
    Ok(Replayed { state, tags, moves, ended_at, notes })
}

/// Read every game of an SGF collection and replay it.
pub fn import(text: &str) -> Result<Vec<Replayed<Dots>>, RecordError> {
    let trees = parse(text)?;
    trees.iter().enumerate().map(|(i, nodes)| replay_tree(nodes, i + 1)).collect()
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace(']', "\\]")
}

/// Write a game log as SGF.
pub fn export(log: &GameLog) -> Result<String, RecordError> {
    let state = replay_log::<Dots>(log)?;
    let opts = *state.options();
    let (w, h) = (opts.width as usize, opts.height as usize);
    if w > MAX_SGF_SIDE || h > MAX_SGF_SIDE {
        let why = format!("SGF coordinates reach {MAX_SGF_SIDE}: a {w}x{h} board cannot be written as SGF");
        return Err(RecordError::syntax(why));
    }
    let mut out = String::from("(;FF[4]GM[40]CA[UTF-8]AP[Tabula]");
    out.push_str(&if w == h { format!("SZ[{w}]") } else { format!("SZ[{w}:{h}]") });
    out.push_str("RU[russian]");
    if opts.format != Format::Single || opts.stage != Stage::Group {
        out.push_str(&format!("TABULA[format={},stage={}]", opts.format.name(), opts.stage.name()));
    }
    for (tag, name) in ["PB", "PW"].iter().zip(log.players.iter()) {
        if !name.is_empty() {
            out.push_str(&format!("{tag}[{}]", escape(name)));
        }
    }
    if let Some(d) = &log.date {
        out.push_str(&format!("DT[{}]", escape(d)));
    }
    let winner = match log.result.as_deref() {
        Some("blue") => Some(Player::First),
        Some("red") => Some(Player::Second),
        Some(_) => None,
        None => state.status().outcome().and_then(|o| o.winner),
    };
    let finished = log.result.is_some() || state.status() != Status::Ongoing;
    if finished {
        let re = match winner {
            None => "0".to_string(),
            Some(p) => {
                let s = state.scores();
                let diff = s[p.index()] - s[p.other().index()];
                let reason = log.reason.as_deref().unwrap_or("").to_ascii_lowercase();
                let margin = if reason.contains("resign") {
                    "R".to_string()
                } else if reason.contains("time") {
                    "T".to_string()
                } else if diff > 0 {
                    diff.to_string()
                } else {
                    String::new()
                };
                format!("{}+{margin}", if p == Player::First { "B" } else { "W" })
            }
        };
        out.push_str(&format!("RE[{re}]"));
    }
    if opts.cross {
        let (blue, red) = standard_cross(&opts);
        let probe = Dots::empty(&opts);
        out.push_str("AB");
        for p in blue {
            out.push_str(&format!("[{}]", point_sgf(&probe, p)));
        }
        out.push_str("AW");
        for p in red {
            out.push_str(&format!("[{}]", point_sgf(&probe, p)));
        }
    }
    let mut replay = Dots::new(&opts);
    for (i, text) in log.moves.iter().enumerate() {
        let p = replay.check_move(text).map_err(|e| RecordError::new(e).at_move(i + 1))?;
        let tag = if replay.to_move() == Player::First { "B" } else { "W" };
        out.push_str(&format!(";{tag}[{}]", point_sgf(&replay, p)));
        if i % 10 == 9 {
            out.push('\n');
        }
        replay.play(p);
    }
    out.push_str(")\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn random_log(opts: &DotsOptions, seed: u64, plies: usize) -> GameLog {
        let mut s = Dots::new(opts);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let mut moves = Vec::new();
        let mut log = GameLog {
            game: "dots".into(),
            options: opts.pairs(),
            players: ["Ann ]x".into(), "Bob".into()],
            ..GameLog::default()
        };
        for _ in 0..plies {
            s.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.random_range(0..moves.len())];
            log.moves.push(s.format_move(m));
            s.play(m);
        }
        log
    }

    #[test]
    fn export_then_import_round_trips() {
        for (i, opts) in [
            DotsOptions::default(),
            DotsOptions { cross: false, ..DotsOptions::sized(12, 9) },
            DotsOptions { format: Format::Full, stage: Stage::Knockout, ..DotsOptions::sized(20, 20) },
            DotsOptions::sized(52, 52),
        ]
        .iter()
        .enumerate()
        {
            let log = random_log(opts, i as u64, 300);
            let want = replay_log::<Dots>(&log).unwrap();
            let text = export(&log).unwrap();
            let got = import(&text).unwrap();
            assert_eq!(got.len(), 1);
            let r = &got[0].state;
            assert_eq!(r.options(), want.options(), "{text}");
            assert_eq!(r.hash(), want.hash());
            assert_eq!(r.plies(), want.plies());
            assert_eq!(r.scores(), want.scores());
            assert_eq!(got[0].moves, log.moves.len());
            assert!(got[0].tags.iter().any(|(k, v)| k == "PB" && v == "Ann ]x"));
        }
    }

    #[test]
    fn too_large_boards_cannot_be_exported() {
        let log = random_log(&DotsOptions::sized(53, 20), 1, 10);
        assert!(export(&log).unwrap_err().to_string().contains("52"));
    }

    #[test]
    fn sizes_setup_chains_and_the_empty_move() {
        let text = "(;GM[40]FF[4]SZ[10]AB[ee][fd]AW[ed][fe];B[de];W[aa];B[ef.eedefeef];W[])";
        let r = &import(text).unwrap()[0];
        assert_eq!((r.state.width(), r.state.height()), (10, 10));
        assert_eq!(r.moves, 3);
        // ee = 5-6 (y counts from the top in SGF)
        let p = r.state.point(5, 6).unwrap();
        assert_eq!(r.state.dot_at(p), Some((Player::First, false)));
        assert!(r.notes.iter().any(|n| n.contains("empty move")));
        let r = &import("(;GM[40]SZ[39:32];B[aa](;W[bb];B[cc])(;W[dd]))").unwrap()[0];
        assert_eq!(r.moves, 3, "the first variation is the main line");
    }

    #[test]
    fn bad_records_are_refused_clearly() {
        let e = import("(;GM[40]SZ[25]RU[Punish=0,Holes=1,MustSurr=0];B[aa])").unwrap_err().to_string();
        assert!(e.contains("MustSurr=0"), "{e}");
        assert!(import("(;GM[1]SZ[19];B[aa])").unwrap_err().to_string().contains("not a Dots record"));
        assert!(import("(;GM[40]SZ[39:32];B[aa]").unwrap_err().to_string().contains("missing ')'"));
        assert!(import("(;GM[40]SZ[99];B[aa])").unwrap_err().to_string().contains("SZ[99]"));
        assert!(import("(;GM[40]SZ[10];B[zz])").unwrap_err().to_string().contains("off the 10x10 board"));
        let e = import("(;GM[40]SZ[10];B[aa];W[aa])").unwrap_err().to_string();
        assert!(e.contains("move 2") && e.contains("1-10") && e.contains("already holds"), "{e}");
        assert!(import("").is_err());
        assert!(import("(;GM[40]SZ[10];B[a\\").is_err());
    }
}
