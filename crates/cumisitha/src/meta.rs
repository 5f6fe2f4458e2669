//! What front ends need beyond the rules: the description and AI levels,
//! the JSON view, the terminal board, PGN records and SAN for display.

use crate::notation::{format_uci, pgn, san, to_fen};
use crate::rules::{Cumisitha, COUNTER_LIMIT};
use cozy_chess::{Color, File, Move, Piece, Rank, Square};
use serde_json::{json, Value};
use tabula_core::tool::Tool;
use tabula_core::{Agent, Game, GameLog, GameMeta, LevelSpec, Player, RecordError, Replayed, Status};

fn piece_char(piece: Piece, color: Color) -> char {
    let c = char::from(piece);
    if color == Color::White {
        c.to_ascii_uppercase()
    } else {
        c
    }
}

impl GameMeta for Cumisitha {
    const DESCRIPTION: &'static str = "Chess as Ludii reconstructs the Aymara game: checkmate wins; stalemate and 100 plies without capture or pawn move draw; repetition does not.";

    fn levels() -> Vec<LevelSpec> {
        crate::ai::levels::specs()
    }

    fn default_level() -> &'static str {
        crate::ai::levels::DEFAULT
    }

    fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Self>>> {
        crate::ai::levels::agent(level, seed)
    }

    fn level_forms() -> &'static [&'static str] {
        &crate::ai::levels::LEVEL_FORMS
    }

    fn analyse(&self, ctx: &tabula_core::ThinkContext) -> Result<tabula_core::Analysis, tabula_core::TabulaError> {
        crate::analysis::analyse(self, ctx)
    }

    /// What the board draws: `squares` (a1, b1, ..., h8; a piece letter,
    /// uppercase for White, or null), `to_move`, the checked king's square
    /// `check`, `last_move`, and `san`, the legal moves (UCI) as people write
    /// them. Everything else about the position (castling, en passant, the
    /// counter, the move number) is in `fen`.
    fn view(&self) -> Value {
        let b = self.board();
        let mut squares = Vec::with_capacity(64);
        for sq in Square::ALL {
            squares.push(match (b.piece_on(sq), b.color_on(sq)) {
                (Some(p), Some(c)) => json!(piece_char(p, c).to_string()),
                _ => Value::Null,
            });
        }
        let us = b.side_to_move();
        let check = (!b.checkers().is_empty()).then(|| b.king(us).to_string());
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        let mut scratch = Vec::new();
        let san: serde_json::Map<String, Value> =
            moves.iter().map(|&m| (format_uci(b, m), json!(san::format_san(b, m, &mut scratch)))).collect();
        json!({
            "fen": to_fen(b),
            "squares": squares,
            "to_move": if us == Color::White { "white" } else { "black" },
            "check": check,
            "last_move": self.last_move().map(|(f, t)| json!({"from": f.to_string(), "to": t.to_string()})),
            "san": san,
        })
    }

    fn render_text(&self, color: bool) -> String {
        let b = self.board();
        let mut out = String::new();
        let check_sq = (!b.checkers().is_empty()).then(|| b.king(b.side_to_move()));
        for r in (0..8).rev() {
            out.push_str(&format!("{} ", r + 1));
            for f in 0..8 {
                let sq = Square::new(File::index(f), Rank::index(r));
                let piece = b.piece_on(sq).zip(b.color_on(sq));
                if color {
                    let light = (r + f) % 2 == 1;
                    let is_last = self.last_move().is_some_and(|(a, z)| a == sq || z == sq);
                    let bg = if check_sq == Some(sq) {
                        160
                    } else if is_last {
                        if light {
                            186
                        } else {
                            143
                        }
                    } else if light {
                        180
                    } else {
                        137
                    };
                    let cell = match piece {
                        Some((p, c)) => {
                            let glyph = match p {
                                Piece::Pawn => '♟',
                                Piece::Knight => '♞',
                                Piece::Bishop => '♝',
                                Piece::Rook => '♜',
                                Piece::Queen => '♛',
                                Piece::King => '♚',
                            };
                            let fg = if c == Color::White { 231 } else { 16 };
                            format!("\x1b[1;38;5;{fg}m {glyph} ")
                        }
                        None => "   ".to_string(),
                    };
                    out.push_str(&format!("\x1b[48;5;{bg}m{cell}\x1b[0m"));
                } else {
                    let c = piece.map_or('.', |(p, c)| piece_char(p, c));
                    out.push(c);
                    out.push(' ');
                }
            }
            out.push('\n');
        }
        if color {
            out.push_str("   a  b  c  d  e  f  g  h\n");
        } else {
            out.push_str("  a b c d e f g h\n");
        }
        let who = if b.side_to_move() == Color::White { "White" } else { "Black" };
        let mut line = format!("{who} to move, counter {}/{}", b.halfmove_clock(), COUNTER_LIMIT);
        if check_sq.is_some() {
            line.push_str(", in check");
        }
        if let Status::Over(o) = self.status() {
            let res = match o.winner {
                Some(Player::First) => "White wins",
                Some(Player::Second) => "Black wins",
                None => "draw",
            };
            line = format!("game over: {res} ({})", o.reason);
        }
        out.push_str(&line);
        out.push('\n');
        out
    }

    fn tools() -> &'static [Tool] {
        crate::tools::TOOLS
    }

    fn record_format() -> &'static str {
        "pgn"
    }

    fn display_move(&self, mv: Move) -> String {
        self.san(mv)
    }

    fn export(log: &GameLog) -> Result<String, RecordError> {
        pgn::export(log)
    }

    fn import(text: &str) -> Result<Vec<Replayed<Self>>, RecordError> {
        pgn::import(text)
    }
}
