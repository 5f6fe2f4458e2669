//! A tapered evaluation: material and piece-square tables blended between
//! middlegame and endgame by the material left, plus mobility, king safety,
//! pawn structure and a mop-up term so bare-king endings are won within the
//! 100-ply counter. Scores are in centipawns from the side to move.
//!
//! The piece-square tables are built from a few simple shapes
//! (centralisation, advancement, king shelter) rather than tuned tables.

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard, Board, Color, File,
    Piece, Rank, Square,
};
use std::sync::OnceLock;

/// Middlegame and endgame values of P, N, B, R, Q, K.
pub const VALUE_MG: [i32; 6] = [100, 320, 335, 480, 960, 0];
/// Piece values in the endgame (see [`VALUE_MG`]).
pub const VALUE_EG: [i32; 6] = [120, 300, 320, 540, 1010, 0];
/// A piece's value for move ordering and pruning.
pub const SEE_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 20000];

const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
const PHASE_MAX: i32 = 24;

struct Tables {
    /// [piece][square from White's side] -> (mg, eg), material included.
    pst: [[(i32, i32); 64]; 6],
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(build_tables)
}

#[allow(clippy::needless_range_loop)] // every table is filled for the same square
fn build_tables() -> Tables {
    let mut pst = [[(0, 0); 64]; 6];
    for sq in 0..64 {
        let f = (sq % 8) as i32;
        let r = (sq / 8) as i32;
        // Distance from the centre, 0 (d4..e5) to 6 (corners).
        let fc = if f < 4 { 3 - f } else { f - 4 };
        let rc = if r < 4 { 3 - r } else { r - 4 };
        let centre = fc + rc;
        let pawn_mg = [0, 0, 4, 10, 22, 40, 70, 0][r as usize]
            + if (3..=4).contains(&f) && (3..=4).contains(&r) { 18 } else { 0 }
            - if (3..=4).contains(&f) && r == 1 { 8 } else { 0 };
        let pawn_eg = [0, 0, 8, 20, 38, 65, 105, 0][r as usize];
        pst[0][sq] = (pawn_mg, pawn_eg);
        let rim = if f == 0 || f == 7 || r == 0 || r == 7 { 12 } else { 0 };
        pst[1][sq] = (24 - 8 * centre - rim, 18 - 6 * centre);
        let diag = if f == r || f + r == 7 { 8 } else { 0 };
        pst[2][sq] = (12 - 4 * centre + diag - if r == 0 { 8 } else { 0 }, 10 - 4 * centre);
        let seventh = if r == 6 { 20 } else { 0 };
        let central_file = if (2..=5).contains(&f) { 6 } else { 0 };
        pst[3][sq] = (seventh + central_file, if r == 6 { 12 } else { 0 });
        pst[4][sq] = (6 - 2 * centre, 12 - 5 * centre);
        let shelter = match (r, f) {
            (0, 6) | (0, 1) => 30,
            (0, 2) | (0, 7) | (0, 0) => 18,
            (0, _) => 0,
            (1, 6) | (1, 1) | (1, 7) | (1, 0) => 0,
            _ => -25 * r,
        };
        pst[5][sq] = (shelter.max(-90), 30 - 10 * centre);
    }
    for (p, table) in pst.iter_mut().enumerate() {
        for e in table.iter_mut() {
            e.0 += VALUE_MG[p];
            e.1 += VALUE_EG[p];
        }
    }
    Tables { pst }
}

#[inline]
fn relative(sq: Square, color: Color) -> usize {
    match color {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    }
}

const PASSED_MG: [i32; 8] = [0, 5, 10, 18, 32, 55, 90, 0];
const PASSED_EG: [i32; 8] = [0, 10, 18, 35, 60, 100, 150, 0];

fn file_mask(f: File) -> BitBoard {
    f.bitboard()
}

fn passed_mask(sq: Square, color: Color) -> BitBoard {
    let f = sq.file();
    let files = f.bitboard() | f.adjacent();
    let mut ahead = BitBoard::EMPTY;
    let r = sq.rank() as usize;
    for rr in 0..8 {
        let in_front = match color {
            Color::White => rr > r,
            Color::Black => rr < r,
        };
        if in_front {
            ahead |= Rank::index(rr).bitboard();
        }
    }
    files & ahead
}

/// The evaluation of `board` for the side to move, in centipawns.
pub fn evaluate(board: &Board) -> i32 {
    let t = tables();
    let mut mg = [0i32; 2];
    let mut eg = [0i32; 2];
    let mut phase = 0;
    let occ = board.occupied();
    let pawns = board.pieces(Piece::Pawn);
    let mut pawn_attacks = [BitBoard::EMPTY; 2];
    for color in [Color::White, Color::Black] {
        for sq in board.colored_pieces(color, Piece::Pawn) {
            pawn_attacks[color as usize] |= get_pawn_attacks(sq, color);
        }
    }
    let mut king_attack = [0i32; 2]; // pressure on each side's king zone
    let mut king_attackers = [0i32; 2];
    for color in [Color::White, Color::Black] {
        let c = color as usize;
        let own = board.colors(color);
        let their_king_zone = {
            let k = board.king(!color);
            get_king_moves(k) | k.bitboard()
        };
        let safe = !own & !pawn_attacks[1 - c];
        for &piece in &Piece::ALL {
            let p = piece as usize;
            for sq in board.colored_pieces(color, piece) {
                let (a, b) = t.pst[p][relative(sq, color)];
                mg[c] += a;
                eg[c] += b;
                phase += PHASE_WEIGHT[p];
                let attacks = match piece {
                    Piece::Knight => get_knight_moves(sq),
                    Piece::Bishop => get_bishop_moves(sq, occ),
                    Piece::Rook => get_rook_moves(sq, occ),
                    Piece::Queen => get_bishop_moves(sq, occ) | get_rook_moves(sq, occ),
                    _ => continue,
                };
                let mobility = (attacks & safe).len() as i32;
                let (wm, we, centre) = match piece {
                    Piece::Knight => (4, 4, 4),
                    Piece::Bishop => (5, 5, 6),
                    Piece::Rook => (2, 4, 6),
                    _ => (1, 2, 12),
                };
                mg[c] += wm * (mobility - centre);
                eg[c] += we * (mobility - centre);
                let hits = (attacks & their_king_zone).len() as i32;
                if hits > 0 {
                    king_attackers[c] += 1;
                    king_attack[c] += hits * [0, 2, 2, 3, 5, 0][p];
                }
                if piece == Piece::Rook {
                    let file = file_mask(sq.file());
                    if (file & pawns).is_empty() {
                        mg[c] += 25;
                        eg[c] += 10;
                    } else if (file & board.colored_pieces(color, Piece::Pawn)).is_empty() {
                        mg[c] += 12;
                        eg[c] += 6;
                    }
                }
            }
        }
        if board.colored_pieces(color, Piece::Bishop).len() >= 2 {
            mg[c] += 30;
            eg[c] += 50;
        }
        // Pawn structure.
        let ours = board.colored_pieces(color, Piece::Pawn);
        let theirs = board.colored_pieces(!color, Piece::Pawn);
        for sq in ours {
            let f = sq.file();
            if (f.adjacent() & ours).is_empty() {
                mg[c] -= 10;
                eg[c] -= 15;
            }
            if (file_mask(f) & ours).len() > 1 {
                mg[c] -= 6;
                eg[c] -= 12;
            }
            if (passed_mask(sq, color) & theirs).is_empty() {
                let rr = relative(sq, color) / 8;
                mg[c] += PASSED_MG[rr];
                eg[c] += PASSED_EG[rr];
                // A passer whose path is blocked is worth less.
                let front = match color {
                    Color::White => sq.try_offset(0, 1),
                    Color::Black => sq.try_offset(0, -1),
                };
                if front.is_some_and(|s| occ.has(s)) {
                    eg[c] -= PASSED_EG[rr] / 3;
                }
            }
        }
        // King shelter: own pawns just in front of the king.
        let k = board.king(color);
        let shelter_files = k.file().bitboard() | k.file().adjacent();
        let kr = relative(k, color) / 8;
        if kr <= 1 {
            let near = match color {
                Color::White => Rank::index((kr + 1).min(7)).bitboard() | Rank::index((kr + 2).min(7)).bitboard(),
                Color::Black => {
                    Rank::index(7 - (kr + 1).min(7)).bitboard() | Rank::index(7 - (kr + 2).min(7)).bitboard()
                }
            };
            let shield = (shelter_files & near & ours).len() as i32;
            mg[c] += 12 * shield.min(3);
        }
    }
    // King danger grows faster than linearly with the attack.
    for c in 0..2 {
        if king_attackers[c] >= 2 {
            let a = king_attack[c];
            mg[c] += a * a / 4;
        }
    }
    let phase = phase.min(PHASE_MAX);
    let mg_score = mg[0] - mg[1];
    let eg_score = eg[0] - eg[1] + mop_up(board, eg[0] - eg[1]);
    let mut score = (mg_score * phase + eg_score * (PHASE_MAX - phase)) / PHASE_MAX;
    // Drawish: a side up only a minor piece without pawns cannot mate.
    let white_strong = score > 0;
    let strong = if white_strong { Color::White } else { Color::Black };
    if board.colored_pieces(strong, Piece::Pawn).is_empty() {
        let minor_only = (board.colors(strong) & (board.pieces(Piece::Rook) | board.pieces(Piece::Queen))).is_empty()
            && (board.colors(strong) & (board.pieces(Piece::Knight) | board.pieces(Piece::Bishop))).len() <= 1;
        if minor_only {
            score /= 8;
        }
    }
    let tempo = 10;
    match board.side_to_move() {
        Color::White => score + tempo,
        Color::Black => -score + tempo,
    }
}

/// Drive the lone king to the edge and bring ours close, so a won ending is
/// mated before the counter runs out.
fn mop_up(board: &Board, eg_diff: i32) -> i32 {
    if eg_diff.abs() < 400 {
        return 0;
    }
    let (strong, weak) = if eg_diff > 0 { (Color::White, Color::Black) } else { (Color::Black, Color::White) };
    if !board.colored_pieces(weak, Piece::Pawn).is_empty() {
        return 0;
    }
    let wk = board.king(weak);
    let sk = board.king(strong);
    let f = wk.file() as i32;
    let r = wk.rank() as i32;
    let centre = (if f < 4 { 3 - f } else { f - 4 }) + (if r < 4 { 3 - r } else { r - 4 });
    let dist = (wk.file() as i32 - sk.file() as i32).abs() + (wk.rank() as i32 - sk.rank() as i32).abs();
    let bonus = 12 * centre + 6 * (14 - dist);
    if strong == Color::White {
        bonus
    } else {
        -bonus
    }
}

/// Does `color` have pieces other than pawns and the king (null-move safety)?
pub fn has_non_pawn_material(board: &Board, color: Color) -> bool {
    !(board.colors(color) & !(board.pieces(Piece::Pawn) | board.pieces(Piece::King))).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_is_balanced_and_colours_mirror() {
        let start = Board::default();
        assert_eq!(evaluate(&start), 10, "only the tempo bonus at the start");
        let w: Board = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".parse().unwrap();
        let b: Board = "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1".parse().unwrap();
        assert_eq!(evaluate(&w), evaluate(&b));
        let up_a_queen: Board = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1".parse().unwrap();
        assert!(evaluate(&up_a_queen) > 800);
    }
}
