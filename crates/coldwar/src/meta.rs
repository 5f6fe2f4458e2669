//! What the front ends need: levels, the JSON view and the terminal board.

use crate::notation::square_name;
use crate::rules::ColdWar;
use serde_json::json;
use tabula_core::tool::Tool;
use tabula_core::{Agent, Analysis, Game, GameMeta, LevelSpec, Player, TabulaError, ThinkContext};

impl GameMeta for ColdWar {
    const DESCRIPTION: &'static str =
        "3x3 board; create, bolster, transfer and attack bases of up to three pieces until one side holds every square";

    fn levels() -> Vec<LevelSpec> {
        crate::ai::levels()
    }

    fn default_level() -> &'static str {
        crate::ai::DEFAULT_LEVEL
    }

    fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Self>>> {
        crate::ai::new_agent(level, seed)
    }

    fn level_forms() -> &'static [&'static str] {
        &tabula_ai::levels::PLAIN_UCT_FORMS
    }

    fn analyse(&self, ctx: &ThinkContext) -> Result<Analysis, TabulaError> {
        crate::analysis::analyse(self, ctx)
    }

    fn tools() -> &'static [Tool] {
        &[crate::solve::tool::TOOL]
    }

    fn view(&self) -> serde_json::Value {
        let cells: Vec<_> = (0..9u8)
            .map(|s| {
                let (owner, count) = self.cell(s);
                json!({
                    "square": square_name(s),
                    "owner": owner.map(|p| Self::PLAYERS[p.index()]),
                    "count": count,
                })
            })
            .collect();
        json!({
            "files": 3,
            "ranks": 3,
            "cells": cells,
            "last_move": self.last_move().map(|m| self.format_move(m)),
        })
    }

    fn render_text(&self, color: bool) -> String {
        let paint = |p: Player, text: String| -> String {
            if !color {
                return text;
            }
            let code = if p == Player::First { "1;34" } else { "1;31" };
            format!("\x1b[{code}m{text}\x1b[0m")
        };
        let mut out = String::new();
        out.push_str("    +-----+-----+-----+\n");
        for rank in (0..3u8).rev() {
            out.push_str(&format!("  {} |", rank + 1));
            for file in 0..3u8 {
                let s = rank * 3 + file;
                let cell = match self.cell(s) {
                    (None, _) => "     ".to_string(),
                    (Some(p), n) => {
                        let mark = if p == Player::First { "X" } else { "O" };
                        paint(p, format!(" {:<3} ", mark.repeat(n as usize)))
                    }
                };
                out.push_str(&cell);
                out.push('|');
            }
            out.push('\n');
            out.push_str("    +-----+-----+-----+\n");
        }
        out.push_str("       a     b     c\n");
        out
    }
}
