//! The Cumisitha rules layer on top of cozy-chess: chess moves, Ludii's end
//! rules (mate, stalemate, the 100-ply counter; no repetition and no
//! insufficient-material rule), canonical hashing and FEN.

use crate::fen;
use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_pawn_quiets, get_rook_moves, Board,
    Color, File, Move, Piece, Rank, Square,
};
use tabula_core::{Outcome, Player, Status};

/// The standard chess start position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Plies without a capture or a pawn move after which the game is drawn.
pub const COUNTER_LIMIT: u8 = 100;

/// Reason strings, short and lower-case as the API asks.
pub const REASON_CHECKMATE: &str = "checkmate";
pub const REASON_STALEMATE: &str = "stalemate";
pub const REASON_COUNTER: &str = "100-ply counter";

/// The game's verdict on a board: mate is tested before the counter, so a
/// ply that both mates and reaches 100 wins.
pub fn judge(board: &Board) -> Status {
    let has_move = board.generate_moves(|_| true);
    if !has_move {
        if board.checkers().is_empty() {
            Status::Over(Outcome::draw(REASON_STALEMATE))
        } else {
            Status::Over(Outcome::win(player_of(!board.side_to_move()), REASON_CHECKMATE))
        }
    } else if board.halfmove_clock() >= COUNTER_LIMIT {
        Status::Over(Outcome::draw(REASON_COUNTER))
    } else {
        Status::Ongoing
    }
}

pub fn player_of(color: Color) -> Player {
    match color {
        Color::White => Player::First,
        Color::Black => Player::Second,
    }
}

pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

pub fn piece_name(piece: Piece) -> &'static str {
    match piece {
        Piece::Pawn => "pawn",
        Piece::Knight => "knight",
        Piece::Bishop => "bishop",
        Piece::Rook => "rook",
        Piece::Queen => "queen",
        Piece::King => "king",
    }
}

/// The en passant file only when an en passant capture is actually legal:
/// cozy-chess records the file after every double step, FEN (our way) and
/// the position hash only when it matters.
pub fn effective_en_passant(board: &Board) -> Option<File> {
    let file = board.en_passant()?;
    let us = board.side_to_move();
    let target = Square::new(file, Rank::Sixth.relative_to(us));
    let attackers = get_pawn_attacks(target, !us) & board.colored_pieces(us, Piece::Pawn);
    attackers.into_iter().any(|from| board.is_legal(Move { from, to: target, promotion: None })).then_some(file)
}

/// The position hash with the en passant file only when a capture is legal,
/// so equal positions (and equal FEN strings) hash equally.
pub fn canonical_hash(board: &Board) -> u64 {
    if board.en_passant().is_some() && effective_en_passant(board).is_some() {
        board.hash()
    } else {
        board.hash_without_ep()
    }
}

/// Is this move castling? cozy-chess writes castling as the king taking its
/// own rook.
#[inline]
pub fn is_castle(board: &Board, mv: Move) -> bool {
    board.colors(board.side_to_move()).has(mv.to) && board.piece_on(mv.from) == Some(Piece::King)
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
pub fn parse_uci(board: &Board, text: &str) -> Result<Move, String> {
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

/// Every legal chess move (ignoring whether the game is over).
pub fn chess_moves(board: &Board, out: &mut Vec<Move>) {
    out.clear();
    board.generate_moves(|pm| {
        out.extend(pm);
        false
    });
}

/// Why a well-formed move is not legal on `board`, as specifically as we
/// can tell.
pub fn explain_illegal(board: &Board, mv: Move) -> String {
    let us = board.side_to_move();
    let Some(piece) = board.piece_on(mv.from) else {
        return format!("there is no piece on {}", mv.from);
    };
    let owner = board.color_on(mv.from).unwrap_or(us);
    if owner != us {
        return format!(
            "the {} on {} is {}'s, and {} is to move",
            piece_name(piece),
            mv.from,
            color_name(owner),
            color_name(us)
        );
    }
    if is_castle(board, mv) {
        return explain_castle(board, mv);
    }
    let last_rank = Rank::Eighth.relative_to(us);
    if let Some(p) = mv.promotion {
        if piece != Piece::Pawn || mv.to.rank() != last_rank {
            return format!(
                "only a pawn reaching the last rank promotes, so '{}' takes no promotion letter",
                char::from(p)
            );
        }
    } else if piece == Piece::Pawn && mv.to.rank() == last_rank {
        return format!("a pawn reaching the last rank must promote: add q, r, b or n (e.g. {}{}q)", mv.from, mv.to);
    }
    if board.colors(us).has(mv.to) {
        return format!(
            "{} is occupied by {}'s own {}",
            mv.to,
            color_name(us),
            board.piece_on(mv.to).map_or("piece", piece_name)
        );
    }
    let occupied = board.occupied();
    let reach = match piece {
        Piece::Pawn => {
            let mut r = get_pawn_quiets(mv.from, us, occupied);
            r |= get_pawn_attacks(mv.from, us) & board.colors(!us);
            if let Some(f) = board.en_passant() {
                let ep = Square::new(f, Rank::Sixth.relative_to(us));
                r |= get_pawn_attacks(mv.from, us) & ep.bitboard();
            }
            r
        }
        Piece::Knight => get_knight_moves(mv.from),
        Piece::Bishop => get_bishop_moves(mv.from, occupied),
        Piece::Rook => get_rook_moves(mv.from, occupied),
        Piece::Queen => get_bishop_moves(mv.from, occupied) | get_rook_moves(mv.from, occupied),
        Piece::King => get_king_moves(mv.from),
    };
    if !reach.has(mv.to) {
        if piece == Piece::King && mv.from.rank() == mv.to.rank() && mv.from.file() == File::E {
            return "castling needs the king on its home square e1/e8 moving two squares to g or c".into();
        }
        return format!("a {} on {} cannot move to {}", piece_name(piece), mv.from, mv.to);
    }
    if board.checkers().is_empty() {
        format!("it would leave the {} king in check", color_name(us))
    } else {
        format!("the {} king is in check and this move does not get it out of check", color_name(us))
    }
}

fn explain_castle(board: &Board, mv: Move) -> String {
    let us = board.side_to_move();
    let short = mv.to.file() > mv.from.file();
    let side = if short { "king-side" } else { "queen-side" };
    let rights = board.castle_rights(us);
    let right = if short { rights.short } else { rights.long };
    if right != Some(mv.to.file()) {
        return format!(
            "{} can no longer castle {side} (the king or that rook has moved or was taken)",
            color_name(us)
        );
    }
    if !board.checkers().is_empty() {
        return "the king cannot castle out of check".into();
    }
    let rank = mv.from.rank();
    let files: &[File] = if short { &[File::F, File::G] } else { &[File::B, File::C, File::D] };
    if files.iter().any(|&f| board.occupied().has(Square::new(f, rank))) {
        return "the squares between the king and the rook must be empty to castle".into();
    }
    "the king may not pass through or land on an attacked square".into()
}

/// Where a game record or the FEN move number puts us: plies since the
/// start of a standard game.
pub fn plies_from_board(board: &Board) -> u32 {
    (board.fullmove_number() as u32 - 1) * 2 + (board.side_to_move() == Color::Black) as u32
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
pub fn from_fen(text: &str) -> Result<Board, String> {
    fen::parse(text)
}
