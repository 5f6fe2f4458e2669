//! Cold War notation. Squares are `a1` to `c3`. A move is a placement
//! (`b2`), a transfer (`b2-b3`), an attack (`b2xb3`) or a conquest
//! (`b2>b3`). A position is the board from rank 3 down, `.` for an empty
//! square and `X3`/`O1` for a base and its pieces, then the side to move:
//! `X3.O1/.X1./... O`.

use crate::rules::{Move, Square};
use tabula_core::{NotationError, Player};

/// `a1` .. `c3`.
pub fn square_name(s: Square) -> String {
    format!("{}{}", (b'a' + s % 3) as char, s / 3 + 1)
}

/// Read a square, `a1` to `c3`.
pub fn parse_square(text: &str) -> Result<Square, NotationError> {
    let b = text.as_bytes();
    if b.len() != 2 {
        return Err(NotationError::new(format!("'{text}' is not a square (a1 to c3)")));
    }
    let file = b[0].to_ascii_lowercase();
    if !(b'a'..=b'c').contains(&file) || !(b'1'..=b'3').contains(&b[1]) {
        return Err(NotationError::new(format!("'{text}' is not a square (a1 to c3)")));
    }
    Ok((b[1] - b'1') * 3 + (file - b'a'))
}

/// Read a move; it need not be legal.
pub fn parse_move(text: &str) -> Result<Move, NotationError> {
    let t = text.trim();
    if let Some(i) = t.find(['-', 'x', 'X', '>']) {
        let from = parse_square(&t[..i])?;
        let to = parse_square(&t[i + 1..])?;
        return Ok(match t.as_bytes()[i] {
            b'-' => Move::Transfer(from, to),
            b'>' => Move::Conquer(from, to),
            _ => Move::Attack(from, to),
        });
    }
    if t.is_empty() {
        return Err(NotationError::new("empty move (try b2, b2-b3, b2xb3 or b2>b3)"));
    }
    parse_square(t)
        .map(Move::Place)
        .map_err(|e| NotationError::new(format!("{e}; moves look like b2, b2-b3, b2xb3, b2>b3")))
}

/// Write a move.
pub fn format_move(mv: Move) -> String {
    match mv {
        Move::Place(s) => square_name(s),
        Move::Transfer(a, b) => format!("{}-{}", square_name(a), square_name(b)),
        Move::Attack(a, b) => format!("{}x{}", square_name(a), square_name(b)),
        Move::Conquer(a, b) => format!("{}>{}", square_name(a), square_name(b)),
    }
}

/// Read a position: the cells (`+n` an X base of `n` pieces, `-n` an O
/// base) and the side to move.
pub fn parse_position(position: &str) -> Result<([i8; 9], Player), NotationError> {
    let err = |m: String| NotationError::new(format!("{m} (expected e.g. 'X3.O1/.X1./... O')"));
    let (board, side) =
        position.trim().split_once(' ').ok_or_else(|| err(format!("'{position}' has no side to move")))?;
    let to_move = match side.trim() {
        "X" | "x" => Player::First,
        "O" | "o" => Player::Second,
        other => return Err(err(format!("side to move '{other}' is not X or O"))),
    };
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 3 {
        return Err(err(format!("{} ranks instead of 3", ranks.len())));
    }
    let mut cells = [0i8; 9];
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = 2 - i; // ranks are written from 3 down to 1
        let mut chars = rank_text.chars();
        let mut file = 0;
        while let Some(ch) = chars.next() {
            if file >= 3 {
                return Err(err(format!("rank {} has more than three squares", rank + 1)));
            }
            let cell = match ch {
                '.' => 0,
                'X' | 'O' => {
                    let n = chars
                        .next()
                        .and_then(|d| d.to_digit(10))
                        .filter(|d| (1..=3).contains(d))
                        .ok_or_else(|| err(format!("{ch} on rank {} needs a count from 1 to 3", rank + 1)))?
                        as i8;
                    if ch == 'X' {
                        n
                    } else {
                        -n
                    }
                }
                other => return Err(err(format!("'{other}' on rank {} is not '.', X or O", rank + 1))),
            };
            cells[rank * 3 + file] = cell;
            file += 1;
        }
        if file != 3 {
            return Err(err(format!("rank {} has {file} squares instead of 3", rank + 1)));
        }
    }
    Ok((cells, to_move))
}

/// Write a position.
pub fn write_position(cells: &[i8; 9], to_move: Player) -> String {
    let mut s = String::with_capacity(24);
    for rank in (0..3).rev() {
        for file in 0..3 {
            match cells[rank * 3 + file] {
                0 => s.push('.'),
                c if c > 0 => {
                    s.push('X');
                    s.push((b'0' + c as u8) as char);
                }
                c => {
                    s.push('O');
                    s.push((b'0' + (-c) as u8) as char);
                }
            }
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s.push_str(if to_move == Player::First { " X" } else { " O" });
    s
}
