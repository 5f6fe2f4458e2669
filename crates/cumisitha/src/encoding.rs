//! Cumisitha's integer actions and observation planes (see
//! `tabula_core::encoding` and `docs/python.md`).
//!
//! **Actions** (1924, in absolute board coordinates; square index
//! `a1 = 0, b1 = 1, …, h8 = 63`):
//! - `0..1792`: every (from, to) pair where `to` is a queen line or a
//!   knight jump away from `from`, ordered by from square, then to square.
//!   Castling is the king's two-square step (`e1g1`), and a pawn reaching
//!   the last rank this way promotes to a queen.
//! - `1792..1924`: the under-promotions: the 22 White pawn steps from
//!   rank 7 to rank 8 and then the 22 Black steps from rank 2 to rank 1,
//!   each ordered by from square then to square, times the piece (knight,
//!   bishop, rook): `1792 + 3 * step + piece`.
//!
//! This is the compact move set of Leela Chess Zero (queen lines, knight
//! jumps, under-promotions), kept in absolute coordinates so that an
//! action names the same move for both sides.
//!
//! **Observation**: 20 planes of 8×8 (row 0 is rank 1, column 0 file a):
//! the pieces and castling rights by colour, then whose turn it is, both as
//! a colour and as seen by `player`: see [`PLANES`].

use crate::rules;
use crate::rules::Cumisitha;
use cozy_chess::{BitBoard, Color, File, Move, Piece, Rank, Square};
use tabula_core::encoding::Encoding;
use tabula_core::{Game, NoOptions, Player};

/// The observation planes, in order. The pieces and castling rights are by
/// colour, as in OpenSpiel's chess, so a move changes only the few squares
/// it touches (planes of the mover's and the opponent's pieces would trade
/// places every ply); the last two planes say whose turn it is and, with
/// it, which colour `player` plays.
pub const PLANES: [&str; 20] = [
    "White pawns",
    "White knights",
    "White bishops",
    "White rooks",
    "White queens",
    "White king",
    "Black pawns",
    "Black knights",
    "Black bishops",
    "Black rooks",
    "Black queens",
    "Black king",
    "White short castling right (all ones or zeros)",
    "White long castling right",
    "Black short castling right",
    "Black long castling right",
    "en passant target square (only when the capture is legal)",
    "100-ply counter / 100",
    "ones when White is to move",
    "ones when player is to move",
];

/// Actions of the queen-line and knight-jump pairs.
const PAIRS: usize = 1792;
/// Under-promotion steps per colour.
const PROMOTION_STEPS: usize = 22;
/// The size of the action space.
pub const ACTIONS: usize = PAIRS + 2 * PROMOTION_STEPS * 3;
const NONE: u16 = u16::MAX;
/// The most legal moves of any chess position (218, a known result).
const MAX_LEGAL_MOVES: usize = 218;

const fn is_pair(from: usize, to: usize) -> bool {
    if from == to {
        return false;
    }
    let (ff, fr) = ((from % 8) as i32, (from / 8) as i32);
    let (tf, tr) = ((to % 8) as i32, (to / 8) as i32);
    let (df, dr) = ((tf - ff).abs(), (tr - fr).abs());
    df == 0 || dr == 0 || df == dr || (df == 1 && dr == 2) || (df == 2 && dr == 1)
}

/// `PAIR_ACTION[from][to]`: the action of a pair, or `NONE`.
const PAIR_ACTION: [[u16; 64]; 64] = {
    let mut t = [[NONE; 64]; 64];
    let mut n = 0u16;
    let mut from = 0;
    while from < 64 {
        let mut to = 0;
        while to < 64 {
            if is_pair(from, to) {
                t[from][to] = n;
                n += 1;
            }
            to += 1;
        }
        from += 1;
    }
    assert!(n as usize == PAIRS);
    t
};

/// `(from, to)` of each pair action.
const PAIR_SQUARES: [(u8, u8); PAIRS] = {
    let mut t = [(0u8, 0u8); PAIRS];
    let mut from = 0;
    while from < 64 {
        let mut to = 0;
        while to < 64 {
            let a = PAIR_ACTION[from][to];
            if a != NONE {
                t[a as usize] = (from as u8, to as u8);
            }
            to += 1;
        }
        from += 1;
    }
    t
};

/// `(from, to)` of each under-promotion step: White's, then Black's.
const PROMOTION_SQUARES: [(u8, u8); 2 * PROMOTION_STEPS] = {
    let mut t = [(0u8, 0u8); 2 * PROMOTION_STEPS];
    let mut n = 0;
    let mut colour = 0;
    while colour < 2 {
        let (from_rank, to_rank) = if colour == 0 { (6, 7) } else { (1, 0) };
        let mut file = 0i32;
        while file < 8 {
            let mut df = -1i32;
            while df <= 1 {
                let tf = file + df;
                if tf >= 0 && tf < 8 {
                    t[n] = ((from_rank * 8 + file) as u8, (to_rank * 8 + tf) as u8);
                    n += 1;
                }
                df += 1;
            }
            file += 1;
        }
        colour += 1;
    }
    assert!(n == 2 * PROMOTION_STEPS);
    t
};

const UNDER: [Piece; 3] = [Piece::Knight, Piece::Bishop, Piece::Rook];

fn promotion_step(from: u8, to: u8) -> Option<usize> {
    PROMOTION_SQUARES.iter().position(|&p| p == (from, to))
}

impl Cumisitha {
    /// The square a move is shown on: castling as the king's two-square step.
    fn shown_to(&self, mv: Move) -> Square {
        if rules::is_castle(self.board(), mv) {
            let f = if mv.to.file() > mv.from.file() { File::G } else { File::C };
            Square::new(f, mv.from.rank())
        } else {
            mv.to
        }
    }
}

impl Encoding for Cumisitha {
    fn observation_planes() -> &'static [&'static str] {
        &PLANES
    }

    fn num_distinct_actions(_options: &NoOptions) -> usize {
        ACTIONS
    }

    fn observation_shape(_options: &NoOptions) -> [usize; 3] {
        [PLANES.len(), 8, 8]
    }

    fn max_game_length(_options: &NoOptions) -> Option<u32> {
        // Only a capture (at most 30) or a pawn step (at most 6 per pawn)
        // resets the counter, and 100 plies without one end the game.
        Some((30 + 16 * 6 + 1) * rules::COUNTER_LIMIT as u32)
    }

    fn max_legal_actions(_options: &NoOptions) -> usize {
        // The most legal moves any chess position has (a known result);
        // positions reached from the start are chess positions.
        MAX_LEGAL_MOVES
    }

    fn action_of(&self, mv: Move) -> Option<u32> {
        let from = mv.from as usize;
        let to = self.shown_to(mv) as usize;
        match mv.promotion {
            None | Some(Piece::Queen) => {
                let a = PAIR_ACTION[from][to];
                (a != NONE).then_some(a as u32)
            }
            Some(p) => {
                let piece = UNDER.iter().position(|&u| u == p)?;
                let step = promotion_step(from as u8, to as u8)?;
                Some((PAIRS + 3 * step + piece) as u32)
            }
        }
    }

    fn move_of(&self, action: u32) -> Option<Move> {
        let board = self.board();
        let us = board.side_to_move();
        let a = action as usize;
        if a >= ACTIONS {
            return None;
        }
        let (from, to, promotion) = if a < PAIRS {
            let (f, t) = PAIR_SQUARES[a];
            (Square::index(f as usize), Square::index(t as usize), None)
        } else {
            let step = (a - PAIRS) / 3;
            // White's steps come first; each side can only make its own.
            if (step < PROMOTION_STEPS) != (us == Color::White) {
                return None;
            }
            let (f, t) = PROMOTION_SQUARES[step];
            (Square::index(f as usize), Square::index(t as usize), Some(UNDER[(a - PAIRS) % 3]))
        };
        if board.color_on(from) != Some(us) {
            return None;
        }
        // A move onto an own piece is never legal; cozy-chess would read a
        // king's such move as castling, which has its own action.
        if board.color_on(to) == Some(us) {
            return None;
        }
        let piece = board.piece_on(from)?;
        let last = Rank::Eighth.relative_to(us);
        if promotion.is_some() && piece != Piece::Pawn {
            return None;
        }
        let promotion = match promotion {
            None if piece == Piece::Pawn && to.rank() == last => Some(Piece::Queen),
            p => p,
        };
        // The king's two-square step along its home rank is castling, which
        // cozy-chess writes as the king taking its own rook.
        let home = Rank::First.relative_to(us);
        if piece == Piece::King && from.rank() == home && to.rank() == home {
            let df = to.file() as i32 - from.file() as i32;
            if df.abs() == 2 {
                let rights = board.castle_rights(us);
                let rook = if df > 0 { rights.short } else { rights.long };
                return rook.map(|f| Move { from, to: Square::new(f, home), promotion: None });
            }
        }
        Some(Move { from, to, promotion })
    }

    fn write_observation(&self, player: Player, out: &mut [f32]) {
        let board = self.board();
        // Every plane is written once: the sparse ones cleared and marked,
        // the constant ones filled (no clearing of the whole buffer first).
        out[..12 * 64].fill(0.0);
        for (side, colour) in Color::ALL.into_iter().enumerate() {
            for (k, piece) in Piece::ALL.into_iter().enumerate() {
                let plane = &mut out[(side * 6 + k) * 64..][..64];
                for sq in board.colored_pieces(colour, piece) {
                    plane[sq as usize] = 1.0;
                }
            }
            let rights = board.castle_rights(colour);
            for (j, right) in [rights.short, rights.long].into_iter().enumerate() {
                out[(12 + side * 2 + j) * 64..][..64].fill(ones_if(right.is_some()));
            }
        }
        out[16 * 64..17 * 64].fill(0.0);
        if let Some(target) = en_passant_target(board) {
            out[16 * 64 + target as usize] = 1.0;
        }
        out[17 * 64..18 * 64].fill(board.halfmove_clock() as f32 / rules::COUNTER_LIMIT as f32);
        out[18 * 64..19 * 64].fill(ones_if(board.side_to_move() == Color::White));
        out[19 * 64..20 * 64].fill(ones_if(self.to_move() == player));
    }

    const INCREMENTAL_OBSERVATION: bool = true;

    fn update_observation(&self, player: Player, before: &Self, before_player: Player, out: &mut [f32]) {
        // Write only what changed: a plane's squares that left or joined
        // its bitboard (two to four for a move), and the constant planes
        // whose value changed.
        let (board, old) = (self.board(), before.board());
        for (side, colour) in Color::ALL.into_iter().enumerate() {
            for (k, piece) in Piece::ALL.into_iter().enumerate() {
                let plane = &mut out[(side * 6 + k) * 64..][..64];
                let (now, was) = (board.colored_pieces(colour, piece), old.colored_pieces(colour, piece));
                for sq in was - now {
                    plane[sq as usize] = 0.0;
                }
                for sq in now - was {
                    plane[sq as usize] = 1.0;
                }
            }
            let (rights, old_rights) = (board.castle_rights(colour), old.castle_rights(colour));
            for (j, (right, old_right)) in
                [(rights.short, old_rights.short), (rights.long, old_rights.long)].into_iter().enumerate()
            {
                if right.is_some() != old_right.is_some() {
                    out[(12 + side * 2 + j) * 64..][..64].fill(ones_if(right.is_some()));
                }
            }
        }
        let (target, old_target) = (en_passant_target(board), en_passant_target(old));
        if target != old_target {
            if let Some(sq) = old_target {
                out[16 * 64 + sq as usize] = 0.0;
            }
            if let Some(sq) = target {
                out[16 * 64 + sq as usize] = 1.0;
            }
        }
        if board.halfmove_clock() != old.halfmove_clock() {
            out[17 * 64..18 * 64].fill(board.halfmove_clock() as f32 / rules::COUNTER_LIMIT as f32);
        }
        if board.side_to_move() != old.side_to_move() {
            out[18 * 64..19 * 64].fill(ones_if(board.side_to_move() == Color::White));
        }
        let (to_move, was_to_move) = (self.to_move() == player, before.to_move() == before_player);
        if to_move != was_to_move {
            out[19 * 64..20 * 64].fill(ones_if(to_move));
        }
    }

    fn legal_actions(&self, moves: &mut Vec<Move>, actions: &mut Vec<u32>) {
        self.legal_moves(moves);
        self.list_actions(moves, actions);
    }

    fn play_listed(&mut self, mv: Move, moves: &mut Vec<Move>, actions: &mut Vec<u32>) {
        self.play_listed_with(mv, moves, |board, moves| moves_and_actions(board, moves, actions));
        if moves.is_empty() {
            // Over (the counter's draw lists no moves even when there are some).
            actions.clear();
        }
    }
}

/// A constant plane's value: all ones or all zeros.
fn ones_if(on: bool) -> f32 {
    if on {
        1.0
    } else {
        0.0
    }
}

/// The square a pawn can take en passant on, when such a capture is legal.
fn en_passant_target(board: &cozy_chess::Board) -> Option<Square> {
    board.en_passant()?;
    let file = rules::effective_en_passant(board)?;
    Some(Square::new(file, Rank::Sixth.relative_to(board.side_to_move())))
}

/// The action of `mv`, a legal move of a position where `king` is the
/// king of the side to move and `own` its pieces. The default asks
/// `action_of` about each move, which looks up the moving piece; here only
/// king moves onto an own rook (castling) need a second look.
#[inline]
fn listed_action(mv: Move, king: Square, own: BitBoard) -> u32 {
    let (from, mut to) = (mv.from as usize, mv.to);
    if mv.from == king && own.has(to) {
        let f = if to.file() > mv.from.file() { File::G } else { File::C };
        to = Square::new(f, mv.from.rank());
    }
    match mv.promotion {
        None | Some(Piece::Queen) => PAIR_ACTION[from][to as usize] as u32,
        Some(p) => {
            let piece = UNDER.iter().position(|&u| u == p).expect("an under-promotion");
            let step = promotion_step(from as u8, to as u8).expect("a promotion step");
            (PAIRS + 3 * step + piece) as u32
        }
    }
}

/// Every legal chess move of `board` into `moves` (in `rules::chess_moves`'s
/// order) and its action into `actions`, in one pass over the generator's
/// output: a knight, bishop, rook or queen move's action is one table
/// entry of its squares.
fn moves_and_actions(board: &cozy_chess::Board, moves: &mut Vec<Move>, actions: &mut Vec<u32>) {
    moves.clear();
    actions.clear();
    let us = board.side_to_move();
    let (king, own) = (board.king(us), board.colors(us));
    board.generate_moves(|pm| {
        match pm.piece {
            Piece::King | Piece::Pawn => {
                for mv in pm {
                    moves.push(mv);
                    actions.push(listed_action(mv, king, own));
                }
            }
            _ => {
                let row = &PAIR_ACTION[pm.from as usize];
                for to in pm.to {
                    moves.push(Move { from: pm.from, to, promotion: None });
                    actions.push(row[to as usize] as u32);
                }
            }
        }
        false
    });
}

impl Cumisitha {
    /// The actions of `moves`, legal moves of this position, in order.
    fn list_actions(&self, moves: &[Move], actions: &mut Vec<u32>) {
        actions.clear();
        let board = self.board();
        let us = board.side_to_move();
        let (king, own) = (board.king(us), board.colors(us));
        actions.extend(moves.iter().map(|&mv| listed_action(mv, king, own)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::encoding::check_encoding;

    #[test]
    fn the_laws_hold_on_random_games() {
        let start = Cumisitha::new(&NoOptions);
        for seed in 0..20 {
            check_encoding(&start, seed, 400, 25).unwrap();
        }
    }

    #[test]
    fn castling_promotion_and_en_passant_have_actions() {
        // White can castle both ways, promote on b8 (with a capture on a8
        // or c8) and take en passant on d6.
        let fen = "r1n1k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1";
        let g = Cumisitha::from_position(fen, &NoOptions).unwrap();
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let actions: Vec<u32> = moves.iter().map(|&m| g.action_of(m).unwrap()).collect();
        let uci = |a: u32| g.format_move(g.move_of(a).unwrap());
        let names: Vec<String> = actions.iter().map(|&a| uci(a)).collect();
        for expected in ["e1g1", "e1c1", "b7a8q", "b7a8n", "b7a8b", "b7a8r", "b7b8q", "b7c8r", "e5d6"] {
            assert!(names.iter().any(|n| n == expected), "{expected} missing from {names:?}");
        }
        assert_eq!(PAIR_ACTION[4][6] as u32, g.action_of(g.parse_move("e1g1").unwrap()).unwrap());
        let mut obs = vec![0.0; 20 * 64];
        g.write_observation(Player::Second, &mut obs);
        assert_eq!(obs[16 * 64 + 43], 1.0, "d6 is the en passant target");
        assert_eq!(obs[5 * 64 + 4], 1.0, "White's king on e1, whoever looks");
        assert_eq!(obs[11 * 64 + 60], 1.0, "Black's king on e8");
        assert_eq!(obs[18 * 64], 1.0, "White is to move");
        assert_eq!(obs[19 * 64], 0.0, "the second player (Black) is not");
    }

    #[test]
    fn out_of_range_and_foreign_actions_decode_to_nothing() {
        let g = Cumisitha::new(&NoOptions);
        assert_eq!(g.move_of(ACTIONS as u32), None);
        // e7e5 is Black's move; White to move has no piece on e7.
        let a = PAIR_ACTION[52][36] as u32;
        assert_eq!(g.move_of(a), None);
        // Black's under-promotions are not White's.
        assert_eq!(g.move_of((PAIRS + 3 * PROMOTION_STEPS) as u32), None);
    }
}
