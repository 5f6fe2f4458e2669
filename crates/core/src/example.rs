//! Tic-tac-toe: a game small enough to know every answer, used by the
//! documentation's examples and by the generic AIs' tests. It is not in
//! the registry.
//!
//! Cells are numbered 0 to 8, row by row; a move is its cell's number and a
//! position is nine cells of `.`, `x` and `o`.
//!
//! ```
//! use tabula_core::{example::TicTacToe, Game, NoOptions, Player, Status};
//! let mut g = TicTacToe::new(&NoOptions);
//! for m in ["4", "0", "2", "6", "3", "5", "8", "1", "7"] {
//!     let mv = g.check_move(m).unwrap();
//!     g.play(mv);
//! }
//! assert_eq!(g.position().unwrap(), "oox" .to_owned() + "xxo" + "oxx");
//! assert!(g.status().is_over());
//! ```

use crate::error::NotationError;
use crate::game::{Agent, Game, GameMeta, LevelSpec, Outcome, Player, Status, ThinkContext};
use crate::options::NoOptions;

/// A tic-tac-toe position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicTacToe {
    /// 0 empty, 1 first player (`x`), 2 second (`o`).
    cells: [u8; 9],
    to_move: Player,
    plies: u32,
    status: Status,
}

const LINES: [[usize; 3]; 8] = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
const BAD_POSITION: &str = "a position is nine cells of . x o, row by row";

impl TicTacToe {
    fn judge(&self) -> Status {
        for l in LINES {
            let c = self.cells[l[0]];
            if c != 0 && c == self.cells[l[1]] && c == self.cells[l[2]] {
                return Status::Over(Outcome::win(Player::from_index(c as usize - 1), "three in a row"));
            }
        }
        if self.cells.iter().all(|&c| c != 0) {
            Status::Over(Outcome::draw("board full"))
        } else {
            Status::Ongoing
        }
    }
}

impl Game for TicTacToe {
    type Move = u8;
    type Options = NoOptions;
    const ID: &'static str = "tictactoe";
    const NAME: &'static str = "Tic-tac-toe";
    const PLAYERS: [&'static str; 2] = ["x", "o"];

    fn new(_: &NoOptions) -> Self {
        TicTacToe { cells: [0; 9], to_move: Player::First, plies: 0, status: Status::Ongoing }
    }
    fn from_position(position: &str, _: &NoOptions) -> Result<Self, NotationError> {
        let b = position.trim().as_bytes();
        if b.len() != 9 {
            return Err(NotationError::new(BAD_POSITION));
        }
        let mut g = Self::new(&NoOptions);
        for (i, c) in b.iter().enumerate() {
            g.cells[i] = match c {
                b'.' => 0,
                b'x' => 1,
                b'o' => 2,
                _ => return Err(NotationError::new(BAD_POSITION)),
            };
        }
        let n = g.cells.iter().filter(|&&c| c != 0).count();
        g.to_move = Player::from_index(n % 2);
        g.status = g.judge();
        Ok(g)
    }
    fn position(&self) -> Option<String> {
        Some(self.cells.iter().map(|c| ['.', 'x', 'o'][*c as usize]).collect())
    }
    fn options(&self) -> &NoOptions {
        &NoOptions
    }
    fn to_move(&self) -> Player {
        self.to_move
    }
    fn legal_moves(&self, out: &mut Vec<u8>) {
        out.clear();
        if !self.status.is_over() {
            out.extend((0..9).filter(|&i| self.cells[i as usize] == 0));
        }
    }
    fn play(&mut self, mv: u8) {
        self.cells[mv as usize % 9] = self.to_move.index() as u8 + 1;
        self.to_move = self.to_move.other();
        self.plies += 1;
        self.status = self.judge();
    }
    fn status(&self) -> Status {
        self.status
    }
    fn plies(&self) -> u32 {
        self.plies
    }
    fn hash(&self) -> u64 {
        self.cells.iter().fold(self.to_move.index() as u64, |h, &c| h * 3 + c as u64)
    }
    fn hash_from_scratch(&self) -> u64 {
        self.hash()
    }
    fn parse_move(&self, text: &str) -> Result<u8, NotationError> {
        match text.trim().as_bytes() {
            [d @ b'0'..=b'8'] => Ok(d - b'0'),
            _ => Err(NotationError::new(format!("'{text}' is not a cell: write a number from 0 to 8"))),
        }
    }
    fn format_move(&self, mv: u8) -> String {
        mv.to_string()
    }
}

/// Plays the lowest free cell: enough to show agents at work.
struct FirstFree;

impl Agent<TicTacToe> for FirstFree {
    fn choose(&mut self, state: &TicTacToe, _ctx: &ThinkContext) -> u8 {
        let mut moves = Vec::new();
        state.legal_moves(&mut moves);
        moves[0]
    }
    fn describe(&self) -> String {
        "the lowest free cell".into()
    }
}

impl GameMeta for TicTacToe {
    const DESCRIPTION: &'static str = "Three in a row on a 3x3 grid";

    fn levels() -> Vec<LevelSpec> {
        vec![LevelSpec::new("first-free", "the lowest free cell")]
    }
    fn default_level() -> &'static str {
        "first-free"
    }
    fn new_agent(level: &str, _seed: u64) -> Option<Box<dyn Agent<Self>>> {
        (level == "first-free").then(|| Box::new(FirstFree) as Box<dyn Agent<Self>>)
    }
    fn view(&self) -> serde_json::Value {
        serde_json::json!({ "cells": self.position() })
    }
    fn render_text(&self, _color: bool) -> String {
        let p = self.position().unwrap_or_default();
        format!("{}\n{}\n{}\n", &p[0..3], &p[3..6], &p[6..9])
    }
}
