//! Cumisitha notation: moves in UCI (`e2e4`, `e7e8q`, castling as the
//! king's two-square step) or SAN ([`san`]), positions in FEN ([`fen`]),
//! and games in PGN ([`pgn`]).

pub mod fen;
pub mod pgn;
pub mod san;

use crate::rules::{effective_en_passant, is_castle};
use cozy_chess::{Board, File, Move, Piece, Rank, Square};
use tabula_core::NotationError;

/// Read a move in UCI (`e2e4`, `e7e8q`) or SAN (`Nf3`, `O-O`); it need not
/// be legal.
pub fn parse_move(board: &Board, text: &str) -> Result<Move, NotationError> {
    let t = text.trim();
    let b = t.as_bytes();
    // Letter-digit-letter-digit is UCI even off the board (e2e9), for a
    // precise error. Capitals are read as in every game's moves (E2E4), but
    // only when both squares are capitals: `B2b4` is SAN, a bishop from
    // rank 2.
    let uci_shape = (b.len() == 4 || b.len() == 5)
        && b[1].is_ascii_digit()
        && b[3].is_ascii_digit()
        && ((b[0].is_ascii_lowercase() && b[2].is_ascii_lowercase())
            || (b[0].is_ascii_uppercase() && b[2].is_ascii_uppercase()));
    if uci_shape || t == "0000" {
        parse_uci(board, &t.to_ascii_lowercase())
    } else if t.is_empty() {
        Err(NotationError::new("empty move: write it in UCI (e2e4, e7e8q) or SAN (Nf3, O-O)"))
    } else {
        san::parse_san(board, t).map_err(|e| {
            NotationError::new(format!("{e} (moves are written in UCI, e2e4 or e7e8q, or in SAN, Nf3 or O-O)"))
        })
    }
}

/// A move in UCI long algebraic notation (castling as the king's two-square
/// step, `e1g1`).
pub fn format_uci(board: &Board, mv: Move) -> String {
    let to = if is_castle(board, mv) {
        let file = if mv.to.file() > mv.from.file() { File::G } else { File::C };
        Square::new(file, mv.from.rank())
    } else {
        mv.to
    };
    let mut s = format!("{}{}", mv.from, to);
    if let Some(p) = mv.promotion {
        s.push(char::from(p));
    }
    s
}

/// Does the text have the shape of a UCI move (`e2e4`, `e7e8q`)?
pub fn looks_like_uci(text: &str) -> bool {
    let b = text.as_bytes();
    (b.len() == 4 || b.len() == 5)
        && (b'a'..=b'h').contains(&b[0])
        && (b'1'..=b'8').contains(&b[1])
        && (b'a'..=b'h').contains(&b[2])
        && (b'1'..=b'8').contains(&b[3])
}

/// Read a UCI move; it need not be legal. `e1g1`-style castling becomes
/// cozy-chess's king-takes-rook form.
pub fn parse_uci(board: &Board, text: &str) -> Result<Move, NotationError> {
    parse_uci_text(board, text).map_err(NotationError::new)
}

fn parse_uci_text(board: &Board, text: &str) -> Result<Move, String> {
    let t = text.trim();
    if t == "0000" {
        return Err("null moves (0000) are not moves in Cumisitha".into());
    }
    if !t.is_ascii() || !(t.len() == 4 || t.len() == 5) {
        return Err(format!(
            "'{t}' is not a move: write the from and to squares, e.g. e2e4, with a promotion letter if any (e7e8q)"
        ));
    }
    let square = |s: &str| -> Result<Square, String> {
        s.parse::<Square>().map_err(|_| format!("'{s}' in '{t}' is not a square (files a-h, ranks 1-8)"))
    };
    let from = square(&t[0..2])?;
    let mut to = square(&t[2..4])?;
    let promotion = match t.get(4..5) {
        None => None,
        Some(p) => match p.to_ascii_lowercase().as_str() {
            "q" => Some(Piece::Queen),
            "r" => Some(Piece::Rook),
            "b" => Some(Piece::Bishop),
            "n" => Some(Piece::Knight),
            _ => return Err(format!("'{p}' in '{t}' is not a promotion piece (q, r, b or n)")),
        },
    };
    if from == to {
        return Err(format!("'{t}' does not move: the from and to squares are the same"));
    }
    // The king's two-square step from its home square is castling.
    let us = board.side_to_move();
    let home = Rank::First.relative_to(us);
    if board.colored_pieces(us, Piece::King).has(from)
        && from.file() == File::E
        && from.rank() == home
        && to.rank() == home
        && promotion.is_none()
    {
        if to.file() == File::G {
            to = Square::new(File::H, home);
        } else if to.file() == File::C {
            to = Square::new(File::A, home);
        }
    }
    Ok(Move { from, to, promotion })
}

/// FEN with the en passant field only when a capture is legal.
pub fn to_fen(board: &Board) -> String {
    let full = board.to_string();
    if board.en_passant().is_some() && effective_en_passant(board).is_none() {
        let mut fields: Vec<&str> = full.split(' ').collect();
        if fields.len() == 6 {
            fields[3] = "-";
        }
        fields.join(" ")
    } else {
        full
    }
}

/// Read a FEN with clear errors (see [`fen::parse`]).
pub fn from_fen(text: &str) -> Result<Board, NotationError> {
    fen::parse(text)
}
