//! Static exchange evaluation: does a capture sequence on one square, each
//! side recapturing with its least valuable attacker, gain at least a
//! threshold? Used to order captures and to prune losing ones.

use super::eval::SEE_VALUE;
use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard, Board, Color, Move,
    Piece, Square,
};

fn attackers_to(board: &Board, sq: Square, occ: BitBoard) -> BitBoard {
    let diag = board.pieces(Piece::Bishop) | board.pieces(Piece::Queen);
    let line = board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    ((get_pawn_attacks(sq, Color::White) & board.colored_pieces(Color::Black, Piece::Pawn))
        | (get_pawn_attacks(sq, Color::Black) & board.colored_pieces(Color::White, Piece::Pawn))
        | (get_knight_moves(sq) & board.pieces(Piece::Knight))
        | (get_king_moves(sq) & board.pieces(Piece::King))
        | (get_bishop_moves(sq, occ) & diag)
        | (get_rook_moves(sq, occ) & line))
        & occ
}

/// Is the exchange started by `mv` worth at least `threshold` centipawns?
/// (Castling and quiet moves are judged by whether the piece can be taken.)
pub fn see_ge(board: &Board, mv: Move, threshold: i32) -> bool {
    let us = board.side_to_move();
    let Some(moving) = board.piece_on(mv.from) else { return true };
    if board.colors(us).has(mv.to) {
        return threshold <= 0; // castling
    }
    let captured = match board.piece_on(mv.to) {
        Some(p) => SEE_VALUE[p as usize],
        None if moving == Piece::Pawn && mv.from.file() != mv.to.file() => SEE_VALUE[0],
        None => 0,
    };
    let mut swap = captured - threshold;
    if swap < 0 {
        return false;
    }
    swap = SEE_VALUE[moving as usize] - swap;
    if swap <= 0 {
        return true;
    }
    let mut occ = board.occupied() ^ mv.from.bitboard() ^ mv.to.bitboard();
    if moving == Piece::Pawn && board.piece_on(mv.to).is_none() && mv.from.file() != mv.to.file() {
        // En passant: the taken pawn stands beside the target.
        occ ^= Square::new(mv.to.file(), mv.from.rank()).bitboard();
    }
    let diag = board.pieces(Piece::Bishop) | board.pieces(Piece::Queen);
    let line = board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    let mut attackers = attackers_to(board, mv.to, occ);
    let mut side = us;
    let mut result = true;
    loop {
        side = !side;
        attackers &= occ;
        let mine = attackers & board.colors(side);
        if mine.is_empty() {
            break;
        }
        result = !result;
        // The least valuable attacker recaptures.
        let mut piece = Piece::King;
        let mut from = None;
        for &p in &Piece::ALL {
            if let Some(sq) = (mine & board.pieces(p)).next_square() {
                piece = p;
                from = Some(sq);
                break;
            }
        }
        let Some(from) = from else { break };
        if piece == Piece::King {
            // The king may only take if nothing defends the square.
            return if (attackers & board.colors(!side)).is_empty() { result } else { !result };
        }
        swap = SEE_VALUE[piece as usize] - swap;
        if swap < result as i32 {
            break;
        }
        occ ^= from.bitboard();
        // Sliders behind the piece that just took join in.
        if matches!(piece, Piece::Pawn | Piece::Bishop | Piece::Queen) {
            attackers |= get_bishop_moves(mv.to, occ) & diag;
        }
        if matches!(piece, Piece::Rook | Piece::Queen) {
            attackers |= get_rook_moves(mv.to, occ) & line;
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see(fen: &str, uci: &str, t: i32) -> bool {
        let b = crate::notation::fen::parse(fen).unwrap();
        let m = crate::notation::parse_uci(&b, uci).unwrap();
        see_ge(&b, m, t)
    }

    #[test]
    fn exchanges() {
        // Rook takes an undefended pawn: +100.
        assert!(see("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100));
        // Queen takes a pawn defended by a pawn: loses.
        assert!(!see("4k3/8/3p4/4p3/8/8/8/4QK2 w - - 0 1", "e1e5", 0));
        // Pawn takes a knight defended by a pawn: still wins a piece for a pawn.
        assert!(see("4k3/8/3p4/4n3/3P4/8/8/4K3 w - - 0 1", "d4e5", 200));
        // Knight takes a defended rook: wins the exchange.
        assert!(see("4k3/8/3p4/4r3/8/3N4/8/4K3 w - - 0 1", "d3e5", 150));
        // X-ray: doubled rooks against a single defender win the pawn.
        assert!(see("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 0));
    }
}
