//! Standard algebraic notation (SAN): `Nf3`, `exd6`, `O-O`, `e8=Q#`.
//! Written with the least disambiguation that is unique (file, then rank,
//! then both) and `+`/`#` suffixes; read leniently (annotations, `0-0`,
//! missing `=`, missing or extra `x`, `e.p.`).

use crate::rules::{chess_moves, is_castle};
use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_pawn_quiets, get_rook_moves, Board, File,
    Move, Piece, Rank, Square,
};
use tabula_core::NotationError;

fn piece_letter(p: Piece) -> char {
    match p {
        Piece::Pawn => 'P',
        Piece::Knight => 'N',
        Piece::Bishop => 'B',
        Piece::Rook => 'R',
        Piece::Queen => 'Q',
        Piece::King => 'K',
    }
}

/// SAN of a legal move. `moves` is a scratch buffer.
pub fn format_san(board: &Board, mv: Move, moves: &mut Vec<Move>) -> String {
    let mut s = String::with_capacity(8);
    let Some(piece) = board.piece_on(mv.from) else {
        return crate::notation::format_uci(board, mv);
    };
    if is_castle(board, mv) {
        s.push_str(if mv.to.file() > mv.from.file() { "O-O" } else { "O-O-O" });
    } else {
        let capture = board.occupied().has(mv.to) || (piece == Piece::Pawn && mv.from.file() != mv.to.file());
        if piece == Piece::Pawn {
            if capture {
                s.push(char::from(mv.from.file()));
            }
        } else {
            s.push(piece_letter(piece));
            chess_moves(board, moves);
            let rivals: Vec<Square> = moves
                .iter()
                .filter(|m| m.to == mv.to && m.from != mv.from && board.piece_on(m.from) == Some(piece))
                .filter(|m| !is_castle(board, **m))
                .map(|m| m.from)
                .collect();
            if !rivals.is_empty() {
                if rivals.iter().all(|r| r.file() != mv.from.file()) {
                    s.push(char::from(mv.from.file()));
                } else if rivals.iter().all(|r| r.rank() != mv.from.rank()) {
                    s.push(char::from(mv.from.rank()));
                } else {
                    s.push_str(&mv.from.to_string());
                }
            }
        }
        if capture {
            s.push('x');
        }
        s.push_str(&mv.to.to_string());
        if let Some(p) = mv.promotion {
            s.push('=');
            s.push(piece_letter(p));
        }
    }
    let mut after = board.clone();
    after.play_unchecked(mv);
    if !after.checkers().is_empty() {
        s.push(if after.generate_moves(|_| true) { '+' } else { '#' });
    }
    s
}

/// Read SAN against the legal moves of `board`.
pub fn parse_san(board: &Board, text: &str) -> Result<Move, NotationError> {
    parse_san_text(board, text).map_err(NotationError::new)
}

fn parse_san_text(board: &Board, text: &str) -> Result<Move, String> {
    let original = text.trim();
    let mut t: String = original.to_string();
    for suffix in ["e.p.", "ep"] {
        if let Some(rest) = t.strip_suffix(suffix) {
            t = rest.trim_end().to_string();
        }
    }
    let t = t.trim_end_matches(['+', '#', '!', '?']).to_string();
    if t.is_empty() {
        return Err(format!("'{original}' is not a move"));
    }
    let mut moves = Vec::new();
    chess_moves(board, &mut moves);
    let us = board.side_to_move();
    let castle = match t.as_str() {
        "O-O" | "0-0" => Some(true),
        "O-O-O" | "0-0-0" => Some(false),
        _ => None,
    };
    if let Some(short) = castle {
        let side = if short { "king-side" } else { "queen-side" };
        return moves
            .iter()
            .copied()
            .find(|&m| is_castle(board, m) && (m.to.file() > m.from.file()) == short)
            .ok_or_else(|| format!("castling {side} ('{original}') is not legal here"));
    }
    let chars: Vec<char> = t.chars().collect();
    let (piece, mut i) = match chars[0] {
        'N' => (Piece::Knight, 1),
        'B' => (Piece::Bishop, 1),
        'R' => (Piece::Rook, 1),
        'Q' => (Piece::Queen, 1),
        'K' => (Piece::King, 1),
        'P' => (Piece::Pawn, 1),
        'a'..='h' => (Piece::Pawn, 0),
        c => {
            return Err(format!(
                "'{original}' is not a move: '{c}' is not a piece letter (N, B, R, Q, K) or a file (a-h)"
            ))
        }
    };
    // Promotion at the end: `=Q`, `Q` or `(Q)`.
    let mut end = chars.len();
    let mut promotion = None;
    let promo_of = |c: char| match c {
        'Q' | 'q' => Some(Piece::Queen),
        'R' | 'r' => Some(Piece::Rook),
        'B' => Some(Piece::Bishop),
        'N' | 'n' => Some(Piece::Knight),
        _ => None,
    };
    if piece == Piece::Pawn && end >= 3 {
        let last = chars[end - 1];
        if let Some(p) = promo_of(last) {
            if last != 'b' || chars[end - 2] == '=' {
                promotion = Some(p);
                end -= 1;
                if chars[end - 1] == '=' {
                    end -= 1;
                }
            }
        }
    }
    // The destination is the last two characters.
    if end < i + 2 {
        return Err(format!("'{original}' is not a move: it names no destination square"));
    }
    let dest_text: String = chars[end - 2..end].iter().collect();
    let to: Square =
        dest_text.parse().map_err(|_| format!("'{original}' is not a move: '{dest_text}' is not a square"))?;
    end -= 2;
    let mut from_file: Option<File> = None;
    let mut from_rank: Option<Rank> = None;
    while i < end {
        match chars[i] {
            'x' | ':' | '-' => {}
            c @ 'a'..='h' => from_file = Some(File::index(c as usize - 'a' as usize)),
            c @ '1'..='8' => from_rank = Some(Rank::index(c as usize - '1' as usize)),
            c => return Err(format!("'{original}' is not a move: unexpected '{c}'")),
        }
        i += 1;
    }
    let candidates: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|m| {
            !is_castle(board, *m)
                && m.to == to
                && board.piece_on(m.from) == Some(piece)
                && from_file.is_none_or(|f| m.from.file() == f)
                && from_rank.is_none_or(|r| m.from.rank() == r)
                && m.promotion == promotion
        })
        .collect();
    match candidates.len() {
        1 => Ok(candidates[0]),
        // No legal move fits, but exactly one piece could make it were it
        // not for a pin or a check: that is an illegal move, not a misspelt
        // one, so it is returned for the legality check to refuse with its
        // reason ("it would leave the White king in check").
        0 if pseudo_legal_source(board, piece, to, from_file, from_rank, promotion).is_some() => {
            let from = pseudo_legal_source(board, piece, to, from_file, from_rank, promotion).expect("just found");
            Ok(Move { from, to, promotion })
        }
        0 => {
            let who = crate::rules::color_name(us);
            if piece == Piece::Pawn && promotion.is_none() && to.rank() == Rank::Eighth.relative_to(us) {
                Err(format!("'{original}': a pawn reaching the last rank must promote, e.g. {to}=Q"))
            } else {
                Err(format!("'{original}': no {who} {} can move to {to} here", crate::rules::piece_name(piece)))
            }
        }
        n => Err(format!(
            "'{original}' is ambiguous: {n} {}s can move to {to}; add the file or rank it comes from",
            crate::rules::piece_name(piece)
        )),
    }
}

/// The one square holding a `piece` of the side to move that could move to
/// `to` if pins and checks did not count (matching the disambiguation
/// given); `None` when there is no such square or more than one.
fn pseudo_legal_source(
    board: &Board,
    piece: Piece,
    to: Square,
    from_file: Option<File>,
    from_rank: Option<Rank>,
    promotion: Option<Piece>,
) -> Option<Square> {
    let us = board.side_to_move();
    if board.colors(us).has(to) {
        return None;
    }
    let last_rank = Rank::Eighth.relative_to(us);
    if (piece == Piece::Pawn && to.rank() == last_rank) != promotion.is_some() {
        return None;
    }
    let occupied = board.occupied();
    let reaches = |from: Square| match piece {
        Piece::Knight => get_knight_moves(from).has(to),
        Piece::Bishop => get_bishop_moves(from, occupied).has(to),
        Piece::Rook => get_rook_moves(from, occupied).has(to),
        Piece::Queen => (get_bishop_moves(from, occupied) | get_rook_moves(from, occupied)).has(to),
        Piece::King => get_king_moves(from).has(to),
        Piece::Pawn if from.file() == to.file() => get_pawn_quiets(from, us, occupied).has(to),
        Piece::Pawn => {
            let en_passant = board.en_passant().is_some_and(|f| to == Square::new(f, Rank::Sixth.relative_to(us)));
            get_pawn_attacks(from, us).has(to) && (board.colors(!us).has(to) || en_passant)
        }
    };
    let mut found = None;
    for from in board.colored_pieces(us, piece) {
        if from_file.is_some_and(|f| from.file() != f) || from_rank.is_some_and(|r| from.rank() != r) {
            continue;
        }
        if reaches(from) {
            if found.is_some() {
                return None;
            }
            found = Some(from);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen;

    fn san_of(fen_text: &str, uci: &str) -> String {
        let b = fen::parse(fen_text).unwrap();
        let m = crate::notation::parse_uci(&b, uci).unwrap();
        assert!(b.is_legal(m), "{uci} illegal");
        format_san(&b, m, &mut Vec::new())
    }

    #[test]
    fn disambiguation_by_file_rank_and_both() {
        // Rooks on a1 and h1: file disambiguation.
        assert_eq!(san_of("4k3/8/8/8/8/8/4K3/R6R w - - 0 1", "a1d1"), "Rad1");
        // Rooks on a1 and a5: rank disambiguation.
        assert_eq!(san_of("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a1a3"), "R1a3");
        // Queens on a1, a3 and c1 all reach b2: both.
        assert_eq!(san_of("4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", "a1b2"), "Qa1b2");
        // A pinned rival does not count: Nc3 is pinned, so Ne2 needs no letter.
        assert_eq!(san_of("4k3/8/8/8/1b6/2N5/8/4K1N1 w - - 0 1", "g1e2"), "Ne2");
    }

    #[test]
    fn captures_promotion_castling_and_suffixes() {
        assert_eq!(san_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), "exd6");
        assert_eq!(san_of("7k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8q"), "e8=Q+");
        assert_eq!(san_of("7k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8n"), "e8=N");
        assert_eq!(san_of("6k1/5ppp/8/8/8/8/8/R3K3 w Q - 0 1", "a1a8"), "Ra8#");
        assert_eq!(san_of("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1"), "O-O");
        assert_eq!(san_of("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8"), "O-O-O");
    }

    #[test]
    fn reads_lenient_san_and_refuses_wrong_san() {
        let b = Board::default();
        assert_eq!(crate::notation::format_uci(&b, parse_san(&b, "Nf3").unwrap()), "g1f3");
        assert_eq!(crate::notation::format_uci(&b, parse_san(&b, "e4!?").unwrap()), "e2e4");
        assert!(parse_san(&b, "Nf4").unwrap_err().message.contains("no White knight"));
        assert!(parse_san(&b, "Zf3").unwrap_err().message.contains("not a piece letter"));
        assert!(parse_san(&b, "O-O").unwrap_err().message.contains("not legal"));
        let b = fen::parse("4k3/8/8/8/8/8/4K3/R6R w - - 0 1").unwrap();
        assert!(parse_san(&b, "Rd1").unwrap_err().message.contains("ambiguous"));
        let b = fen::parse("7k/4P3/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(crate::notation::format_uci(&b, parse_san(&b, "e8Q").unwrap()), "e7e8q");
        assert!(parse_san(&b, "e8").unwrap_err().message.contains("must promote"));
    }
}
