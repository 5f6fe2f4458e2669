//! What front ends need beyond the rules: levels, the JSON view and the
//! terminal board.

use crate::bitboard::*;
use crate::rules::{Cordots, CAPTURER};
use serde_json::{json, Value};
use tabula_core::clock::TimeControl;
use tabula_core::{Agent, Game, GameMeta, LevelSpec, Player};

fn kind_name(kind: usize) -> &'static str {
    if kind == CAPTURER {
        "capturer"
    } else {
        "victim"
    }
}

fn letter(side: Player, kind: usize) -> char {
    let c = if kind == CAPTURER { 'C' } else { 'V' };
    if side == Player::First {
        c
    } else {
        c.to_ascii_lowercase()
    }
}

impl Cordots {
    fn last_move_line(&self) -> Option<String> {
        let m = self.last_move()?;
        let mut s = format!("last move {}", self.format_move(m));
        let removed: Vec<String> = squares(self.last_removed()).map(square_name).collect();
        if !removed.is_empty() {
            s.push_str(&format!(" (removed {})", removed.join(" ")));
        }
        Some(s)
    }
}

impl GameMeta for Cordots {
    const DESCRIPTION: &'static str =
        "Custodial captures on 8x8 with Capturers and Victims, back-row sacrifices and match clocks";

    fn levels() -> Vec<LevelSpec> {
        crate::ai::levels()
    }

    fn default_level() -> &'static str {
        "medium"
    }

    fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Self>>> {
        crate::ai::new_agent(level, seed)
    }

    fn level_forms() -> &'static [&'static str] {
        crate::ai::LEVEL_FORMS
    }

    fn analyse(&self, ctx: &tabula_core::ThinkContext) -> Result<tabula_core::Analysis, tabula_core::TabulaError> {
        crate::analysis::analyse(self, ctx)
    }

    fn time_control(&self) -> Option<TimeControl> {
        self.options().time_control()
    }

    fn view(&self) -> Value {
        let players = Self::PLAYERS;
        let mut pieces = Vec::new();
        let mut board = Vec::new();
        for rank in (0..8u8).rev() {
            let mut row = String::with_capacity(8);
            for file in 0..8u8 {
                let sq = rank * 8 + file;
                match self.piece_at(sq) {
                    Some((side, kind)) => {
                        row.push(letter(side, kind));
                        pieces.push(json!({
                            "square": square_name(sq),
                            "color": players[side.index()],
                            "piece": kind_name(kind),
                        }));
                    }
                    None => row.push('.'),
                }
            }
            board.push(row);
        }
        let counts = |side: Player| {
            json!({
                "capturers": self.pieces(side, CAPTURER).count_ones(),
                "victims": self.pieces(side, crate::VICTIM).count_ones(),
                "reserve": self.reserve(side),
            })
        };
        let last_move = self.last_move().map(|m| {
            json!({
                "move": self.format_move(m),
                "from": square_name(m.from),
                "to": square_name(m.to),
                "restored": m.restore().map(square_name),
                "removed": squares(self.last_removed()).map(square_name).collect::<Vec<_>>(),
            })
        });
        json!({
            "files": "abcdefgh",
            "ranks": 8,
            "board": board,
            "pieces": pieces,
            "reserves": { "white": self.reserve(Player::First), "black": self.reserve(Player::Second) },
            "counts": { "white": counts(Player::First), "black": counts(Player::Second) },
            "target_rank": { "white": 8, "black": 1 },
            "to_move": players[self.to_move().index()],
            "last_move": last_move,
            "mode": self.options().mode.name(),
            "ply_cap": self.options().ply_cap(),
            "repetitions": self.repetitions(),
            "tiebreak_leader": self.tiebreak().map(|p| players[p.index()]),
        })
    }

    fn render_text(&self, color: bool) -> String {
        let last = self.last_move();
        let marked = last.map_or(0, |m| bit(m.from) | bit(m.to));
        let removed = self.last_removed();
        let mut out = String::new();
        out.push_str("    a  b  c  d  e  f  g  h\n");
        for rank in (0..8u8).rev() {
            out.push_str(&format!(" {} ", rank + 1));
            for file in 0..8u8 {
                let sq = rank * 8 + file;
                let piece = self.piece_at(sq);
                let glyph = match piece {
                    Some((side, kind)) => letter(side, kind),
                    None if removed & bit(sq) != 0 => 'x',
                    None => '.',
                };
                if color {
                    let bg = if marked & bit(sq) != 0 {
                        "48;5;107"
                    } else if (rank + file) % 2 == 0 {
                        "48;5;137"
                    } else {
                        "48;5;180"
                    };
                    let fg = match piece {
                        Some((Player::First, _)) => "1;97",
                        Some((Player::Second, _)) => "1;30",
                        None if glyph == 'x' => "1;31",
                        None => "38;5;137",
                    };
                    let shown = if glyph == '.' { ' ' } else { glyph };
                    out.push_str(&format!("\x1b[{bg};{fg}m {shown} \x1b[0m"));
                } else {
                    out.push_str(&format!(" {glyph} "));
                }
            }
            out.push_str(&format!(" {}\n", rank + 1));
        }
        out.push_str("    a  b  c  d  e  f  g  h\n");
        let side = |p: Player| {
            format!(
                "{}: {} Capturers, {} Victims, reserve {}",
                Self::PLAYERS[p.index()],
                self.pieces(p, CAPTURER).count_ones(),
                self.pieces(p, crate::VICTIM).count_ones(),
                self.reserve(p)
            )
        };
        out.push_str(&format!("{}\n{}\n", side(Player::First), side(Player::Second)));
        let mut status = format!("{} to move, ply {}", Self::PLAYERS[self.to_move().index()], self.plies());
        if let Some(cap) = self.options().ply_cap() {
            status.push_str(&format!(" of {cap}"));
        } else {
            status.push_str(&format!(", {} mode", self.options().mode.name()));
        }
        if let Some(l) = self.last_move_line() {
            status.push_str(&format!("; {l}"));
        }
        out.push_str(&status);
        out.push('\n');
        out
    }
}
