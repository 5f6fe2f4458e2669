//! FEN reading with errors that say what is wrong and where. cozy-chess
//! builds the board; we check every field first because its own errors
//! ("the board is invalid") do not tell a user what to fix.

use crate::rules::{color_name, effective_en_passant};
use cozy_chess::{Board, Color, File, Piece, Rank, Square};
use tabula_core::NotationError;

/// Parse a FEN. Four fields (no clocks) are accepted with `0 1` assumed.
/// The half-move clock may exceed 100 (the game is then drawn); the board
/// holds it as 100, and [`crate::Cumisitha`] writes the position back with
/// the count as given. An en passant square is accepted whether or not a capture is
/// possible, and dropped when none is.
pub fn parse(text: &str) -> Result<Board, NotationError> {
    parse_text(text).map_err(NotationError::new)
}

fn parse_text(text: &str) -> Result<Board, String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != 6 && fields.len() != 4 {
        return Err(format!(
            "a FEN has 6 fields (placement, side to move, castling, en passant, half-move clock, move number), this one has {}",
            fields.len()
        ));
    }
    let placement = fields[0];
    let mut squares: [Option<(Piece, Color)>; 64] = [None; 64];
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != 8 {
        return Err(format!("the placement '{placement}' has {} ranks separated by '/', expected 8", ranks.len()));
    }
    for (i, row) in ranks.iter().enumerate() {
        let rank_no = 8 - i;
        let mut file = 0usize;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                if d == 0 || d > 8 {
                    return Err(format!("rank {rank_no} ('{row}'): '{c}' is not a count of empty squares (1-8)"));
                }
                file += d as usize;
            } else {
                let piece = match c.to_ascii_lowercase() {
                    'p' => Piece::Pawn,
                    'n' => Piece::Knight,
                    'b' => Piece::Bishop,
                    'r' => Piece::Rook,
                    'q' => Piece::Queen,
                    'k' => Piece::King,
                    _ => {
                        return Err(format!(
                            "rank {rank_no} ('{row}'): '{c}' is not a piece letter (PNBRQK for White, pnbrqk for Black)"
                        ))
                    }
                };
                let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
                if file < 8 {
                    squares[(rank_no - 1) * 8 + file] = Some((piece, color));
                }
                file += 1;
            }
            if file > 8 {
                return Err(format!("rank {rank_no} ('{row}') covers more than 8 files"));
            }
        }
        if file != 8 {
            return Err(format!("rank {rank_no} ('{row}') covers {file} files, expected 8"));
        }
    }
    for color in [Color::White, Color::Black] {
        let count = |p: Piece| squares.iter().filter(|s| **s == Some((p, color))).count();
        let kings = count(Piece::King);
        if kings != 1 {
            return Err(format!("{} has {kings} kings, expected exactly 1", color_name(color)));
        }
        let pawns = count(Piece::Pawn);
        if pawns > 8 {
            return Err(format!("{} has {pawns} pawns, at most 8 are possible", color_name(color)));
        }
        let all = squares.iter().filter(|s| matches!(s, Some((_, c)) if *c == color)).count();
        if all > 16 {
            return Err(format!("{} has {all} pieces, at most 16 are possible", color_name(color)));
        }
    }
    for (i, s) in squares.iter().enumerate() {
        if matches!(s, Some((Piece::Pawn, _))) && !(8..56).contains(&i) {
            return Err(format!("a pawn stands on {}: pawns never stand on the first or last rank", Square::index(i)));
        }
    }
    let us = match fields[1] {
        "w" => Color::White,
        "b" => Color::Black,
        other => return Err(format!("the side to move is 'w' or 'b', not '{other}'")),
    };
    let castling = fields[2];
    if castling != "-" {
        let mut seen = String::new();
        for c in castling.chars() {
            if !"KQkq".contains(c) {
                return Err(format!("castling field '{castling}': '{c}' is not one of K, Q, k, q (or '-' for none)"));
            }
            if seen.contains(c) {
                return Err(format!("castling field '{castling}' names '{c}' twice"));
            }
            seen.push(c);
            let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
            let rank = Rank::First.relative_to(color);
            let king_sq = Square::new(File::E, rank);
            let rook_sq = Square::new(if c.eq_ignore_ascii_case(&'k') { File::H } else { File::A }, rank);
            if squares[king_sq as usize] != Some((Piece::King, color)) {
                return Err(format!(
                    "castling right '{c}' needs the {} king on {king_sq}, its home square",
                    color_name(color)
                ));
            }
            if squares[rook_sq as usize] != Some((Piece::Rook, color)) {
                return Err(format!("castling right '{c}' needs a {} rook on {rook_sq}", color_name(color)));
            }
        }
    }
    let ep = fields[3];
    if ep != "-" {
        let sq: Square =
            ep.parse().map_err(|_| format!("the en passant field is a square such as e3 or '-', not '{ep}'"))?;
        let want_rank = Rank::Sixth.relative_to(us);
        if sq.rank() != want_rank {
            return Err(format!(
                "en passant square {ep} is impossible with {} to move (it must be on rank {})",
                color_name(us),
                want_rank as usize + 1
            ));
        }
        let them = !us;
        let pawn_sq = Square::new(sq.file(), Rank::Fifth.relative_to(us));
        let from_sq = Square::new(sq.file(), Rank::Seventh.relative_to(us));
        if squares[pawn_sq as usize] != Some((Piece::Pawn, them))
            || squares[sq as usize].is_some()
            || squares[from_sq as usize].is_some()
        {
            return Err(format!(
                "en passant square {ep} needs a {} pawn on {pawn_sq} that has just moved from {from_sq} ({sq} and {from_sq} empty)",
                color_name(them)
            ));
        }
    }
    let (halfmove, fullmove) = if fields.len() == 6 {
        use tabula_core::options::parse_number;
        let h = parse_number(fields[4])
            .ok_or_else(|| format!("the half-move clock is a whole number of plies, not '{}'", fields[4]))?;
        let f =
            parse_number(fields[5]).ok_or_else(|| format!("the move number is a whole number, not '{}'", fields[5]))?;
        if f == 0 {
            return Err("the move number starts at 1, not 0".into());
        }
        if f > u16::MAX as u64 {
            return Err(format!("the move number {f} is too large (at most {})", u16::MAX));
        }
        // The counter rule draws at 100 whatever lies beyond, so 100 stands for any higher count.
        (h.min(100), f)
    } else {
        (0, 1)
    };
    let normal = format!("{placement} {} {castling} {ep} {halfmove} {fullmove}", fields[1]);
    let board = match Board::from_fen(&normal, false) {
        Ok(b) => b,
        Err(e) => return Err(explain_cozy_refusal(&normal, us, e)),
    };
    if ep != "-" && effective_en_passant(&board).is_none() {
        let without = format!("{placement} {} {castling} - {halfmove} {fullmove}", fields[1]);
        return Board::from_fen(&without, false).map_err(|e| explain_cozy_refusal(&without, us, e));
    }
    Ok(board)
}

/// cozy-chess refused a position our field checks let through: the side not
/// to move is in check, or the checks are impossible.
fn explain_cozy_refusal(normal: &str, us: Color, error: cozy_chess::FenParseError) -> String {
    let flipped = {
        let mut f: Vec<&str> = normal.split(' ').collect();
        f[1] = if us == Color::White { "b" } else { "w" };
        f[2] = "-";
        f[3] = "-";
        f.join(" ")
    };
    if let Ok(b) = Board::from_fen(&flipped, false) {
        if !b.checkers().is_empty() {
            return format!(
                "{} is in check but it is {}'s turn: the position is impossible",
                color_name(!us),
                color_name(us)
            );
        }
    }
    match error {
        cozy_chess::FenParseError::InvalidBoard => {
            format!(
                "the position is impossible: the {} king is attacked in a way no legal move can produce",
                color_name(us)
            )
        }
        cozy_chess::FenParseError::InvalidEnPassant => {
            "the en passant square is impossible here (the double step would have left a check)".into()
        }
        other => format!("the FEN is invalid: {other}"),
    }
}
