//! Cordots notation. A move is a step, `b2-b3`, or a step that makes the
//! back-row sacrifice with the Victim to restore, `c7-c8=f2`. A position is
//! four fields: the board from rank 8 down (`C V` White's Capturers and
//! Victims, `c v` Black's, digits for empty squares), the side to move
//! (`w` or `b`), and White's and Black's reserves, e.g. [`START_POSITION`].

use crate::bitboard::*;
use crate::options::CordotsOptions;
use crate::rules::{Cordots, Move, CAPTURER, NO_SQUARE, VICTIM};
use tabula_core::{Game, NotationError, Player};

/// The start position.
pub const START_POSITION: &str = "cccccccc/vvvvvvvv/8/8/8/8/VVVVVVVV/CCCCCCCC w 0 0";

/// Read a position; it is validated like any position (no two pieces on a
/// square, no piece standing sandwiched, ...).
pub fn parse_position(position: &str, options: &CordotsOptions) -> Result<Cordots, NotationError> {
    let fields: Vec<&str> = position.split_whitespace().collect();
    if fields.len() != 4 {
        return Err(NotationError::new(format!(
            "a position has 4 fields separated by spaces (board, side to move w/b, White's reserve, \
             Black's reserve), e.g. '{START_POSITION}'; found {}",
            fields.len()
        )));
    }
    let ranks: Vec<&str> = fields[0].split('/').collect();
    if ranks.len() != 8 {
        return Err(NotationError::new(format!(
            "the board needs 8 ranks separated by '/', from rank 8 down to rank 1; found {}",
            ranks.len()
        )));
    }
    let mut pieces = [[0u64; 2]; 2];
    for (i, text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file = 0u8;
        for ch in text.chars() {
            let (side, kind) = match ch {
                'C' => (0, CAPTURER),
                'V' => (0, VICTIM),
                'c' => (1, CAPTURER),
                'v' => (1, VICTIM),
                '1'..='8' => {
                    file += ch as u8 - b'0';
                    if file > 8 {
                        break;
                    }
                    continue;
                }
                _ => {
                    return Err(NotationError::new(format!(
                        "rank {}: '{ch}' is neither a piece (C V for White, c v for Black) nor a digit 1-8",
                        rank + 1
                    )))
                }
            };
            if file >= 8 {
                file = 9;
                break;
            }
            pieces[side][kind] |= bit(rank * 8 + file);
            file += 1;
        }
        if file != 8 {
            return Err(NotationError::new(format!(
                "rank {} ('{text}') covers {} files; it must cover exactly 8 (a to h)",
                rank + 1,
                if file > 8 { "more than 8".to_string() } else { file.to_string() }
            )));
        }
    }
    let to_move = match fields[1] {
        "w" | "W" => Player::First,
        "b" | "B" => Player::Second,
        other => {
            return Err(NotationError::new(format!("the side to move is 'w' or 'b', not '{other}' (second field)")))
        }
    };
    let mut reserve = [0u8; 2];
    for (s, text) in fields[2..4].iter().enumerate() {
        reserve[s] =
            tabula_core::options::parse_number(text).filter(|&n| n <= 8).map(|n| n as u8).ok_or_else(|| {
                NotationError::new(format!(
                    "{}'s reserve ({} field) must be a count of Capturers from 0 to 8, not '{text}'",
                    ["White", "Black"][s],
                    ["third", "fourth"][s]
                ))
            })?;
    }
    Cordots::from_parts(pieces, reserve, to_move, options)
}

/// Write a position, or `None` when a side has no piece on the board.
pub fn write_position(g: &Cordots) -> Option<String> {
    // The notation needs a piece of each side on the board; only a game
    // ended by a capture of a side's last two or three pieces lacks one.
    if g.occupied_by(Player::First) == 0 || g.occupied_by(Player::Second) == 0 {
        return None;
    }
    let mut out = String::with_capacity(80);
    for rank in (0..8u8).rev() {
        let mut empty = 0;
        for file in 0..8u8 {
            match g.piece_at(rank * 8 + file) {
                None => empty += 1,
                Some((side, kind)) => {
                    if empty > 0 {
                        out.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    let c = if kind == CAPTURER { 'c' } else { 'v' };
                    out.push(if side == Player::First { c.to_ascii_uppercase() } else { c });
                }
            }
        }
        if empty > 0 {
            out.push((b'0' + empty) as char);
        }
        if rank > 0 {
            out.push('/');
        }
    }
    let stm = if g.to_move() == Player::First { 'w' } else { 'b' };
    out.push_str(&format!(" {stm} {} {}", g.reserve(Player::First), g.reserve(Player::Second)));
    Some(out)
}

/// Read a move; it need not be legal.
pub fn parse_move(text: &str) -> Result<Move, NotationError> {
    const EXPECTED: &str = "expected a step like b2-b3, or a back-row sacrifice like c7-c8=f2";
    let t = text.trim();
    if t.is_empty() {
        return Err(NotationError::new(format!("empty move; {EXPECTED}")));
    }
    let square = |s: &str, what: &str| {
        parse_square(s)
            .ok_or_else(|| NotationError::new(format!("{what} '{s}' is not a square (files a-h, ranks 1-8)")))
    };
    let (step, restore) = match t.split_once('=') {
        Some((step, r)) => (step, Some(square(r.trim(), "the Victim to restore")?)),
        None => (t, None),
    };
    let (from, to) = step.split_once('-').ok_or_else(|| NotationError::new(EXPECTED))?;
    let from = square(from.trim(), "the start")?;
    let to = square(to.trim(), "the destination")?;
    Ok(Move { from, to, restore: restore.unwrap_or(NO_SQUARE) })
}

/// Write a move.
pub fn format_move(mv: Move) -> String {
    let mut s = format!("{}-{}", square_name(mv.from & 63), square_name(mv.to & 63));
    if let Some(r) = mv.restore() {
        s.push('=');
        s.push_str(&square_name(r));
    }
    s
}
