//! The Cumisitha rules on top of cozy-chess: [`Cumisitha`] and its
//! `impl Game`, chess moves with Ludii's end rules (mate, stalemate, the
//! 100-ply counter; no repetition and no insufficient-material rule), and
//! canonical hashing.

use crate::notation::{self, format_uci, san};
use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_pawn_quiets, get_rook_moves, Board,
    Color, File, Move, Piece, Rank, Square,
};
use rand::rngs::SmallRng;
use rand::Rng;
use tabula_core::{Game, MoveError, NoOptions, NotationError, Outcome, Player, Status};

/// The standard chess start position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Plies without a capture or a pawn move after which the game is drawn.
pub const COUNTER_LIMIT: u8 = 100;

/// Reason strings, short and lower-case as the API asks.
pub const REASON_CHECKMATE: &str = "checkmate";
/// See [`REASON_CHECKMATE`].
pub const REASON_STALEMATE: &str = "stalemate";
/// See [`REASON_CHECKMATE`].
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

/// The player of a colour: White moves first.
pub fn player_of(color: Color) -> Player {
    match color {
        Color::White => Player::First,
        Color::Black => Player::Second,
    }
}

/// `White` or `Black`.
pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// A piece's name in lower case.
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

/// A Cumisitha position: a cozy-chess board plus the cached hash and status.
/// Everything the rules need lives in the board (the half-move clock is the
/// counter; there is no repetition rule, so no history is kept).
#[derive(Clone, Debug)]
pub struct Cumisitha {
    board: Board,
    hash: u64,
    status: Status,
    /// The last move as shown (castling as the king's step), for the views.
    last: Option<(Square, Square)>,
    /// The half-move clock as a position gave it, when above 100: the board
    /// holds at most 100 (which already draws), but a position is written
    /// back as it was given.
    counter_beyond: Option<u64>,
}

impl Cumisitha {
    /// A state on a board, judged at once.
    pub fn from_board(board: Board) -> Self {
        let hash = canonical_hash(&board);
        let status = judge(&board);
        Cumisitha { board, hash, status, last: None, counter_beyond: None }
    }

    /// The cozy-chess board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The counter: plies since the last capture or pawn move.
    pub fn counter(&self) -> u8 {
        self.board.halfmove_clock()
    }

    /// Play a move that is legal in chess even if our rules already ended
    /// the game (the counter); used to replay records from elsewhere.
    pub fn play_chess(&mut self, mv: Move) -> Result<(), MoveError> {
        if !self.board.is_legal(mv) {
            return Err(MoveError::illegal(&self.uci(mv), explain_illegal(&self.board, mv)));
        }
        self.apply(mv);
        Ok(())
    }

    fn apply(&mut self, mv: Move) {
        self.move_pieces(mv);
        self.status = judge(&self.board);
    }

    /// Play a move that is legal on the board, except for judging the new
    /// position.
    fn move_pieces(&mut self, mv: Move) {
        let shown_to = if is_castle(&self.board, mv) {
            let f = if mv.to.file() > mv.from.file() { File::G } else { File::C };
            Square::new(f, mv.from.rank())
        } else {
            mv.to
        };
        self.board.play_unchecked(mv);
        self.counter_beyond = match self.board.halfmove_clock() {
            0 => None,
            _ => self.counter_beyond.map(|n| n + 1),
        };
        self.hash = canonical_hash(&self.board);
        self.last = Some((mv.from, shown_to));
    }

    /// Play a move listed by `legal_moves` for this position (not checked
    /// again) and list the new position's legal moves into `moves` with
    /// `generate` (which writes every legal chess move, as [`chess_moves`]
    /// does, and may note more about them), judging the position from
    /// that one generation (as `judge` would).
    pub(crate) fn play_listed_with(
        &mut self,
        mv: Move,
        moves: &mut Vec<Move>,
        generate: impl FnOnce(&Board, &mut Vec<Move>),
    ) {
        self.move_pieces(mv);
        generate(&self.board, moves);
        self.status = if moves.is_empty() {
            if self.board.checkers().is_empty() {
                Status::Over(Outcome::draw(REASON_STALEMATE))
            } else {
                Status::Over(Outcome::win(player_of(!self.board.side_to_move()), REASON_CHECKMATE))
            }
        } else if self.board.halfmove_clock() >= COUNTER_LIMIT {
            moves.clear();
            Status::Over(Outcome::draw(REASON_COUNTER))
        } else {
            Status::Ongoing
        };
    }

    /// SAN of a legal move.
    pub fn san(&self, mv: Move) -> String {
        san::format_san(&self.board, mv, &mut Vec::new())
    }

    /// The last move as shown (castling as the king's step): from and to.
    pub fn last_move(&self) -> Option<(Square, Square)> {
        self.last
    }

    /// The move in UCI notation.
    pub fn uci(&self, mv: Move) -> String {
        format_uci(&self.board, mv)
    }
}

impl PartialEq for Cumisitha {
    fn eq(&self, other: &Self) -> bool {
        self.board == other.board
    }
}

impl Game for Cumisitha {
    type Move = Move;
    type Options = NoOptions;

    const ID: &'static str = "cumisitha";
    const NAME: &'static str = "Cumisitha (Ludii 15)";
    const PLAYERS: [&'static str; 2] = ["white", "black"];

    fn new(_options: &NoOptions) -> Self {
        Cumisitha::from_board(Board::default())
    }

    fn from_position(position: &str, _options: &NoOptions) -> Result<Self, NotationError> {
        let text = position.trim();
        let board = if text.eq_ignore_ascii_case("startpos") { Board::default() } else { notation::from_fen(text)? };
        let mut state = Cumisitha::from_board(board);
        // fen::parse checked the field; above 100 it is kept as given.
        let given = text.split_whitespace().nth(4).and_then(|h| h.parse::<u64>().ok());
        state.counter_beyond = given.filter(|&h| h > 100);
        Ok(state)
    }

    fn position(&self) -> Option<String> {
        let fen = notation::to_fen(&self.board);
        Some(match self.counter_beyond {
            None => fen,
            Some(n) => {
                let mut fields: Vec<String> = fen.split(' ').map(str::to_string).collect();
                if let Some(h) = fields.get_mut(4) {
                    *h = n.to_string();
                }
                fields.join(" ")
            }
        })
    }

    fn options(&self) -> &NoOptions {
        &NoOptions
    }

    fn to_move(&self) -> Player {
        player_of(self.board.side_to_move())
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.status.is_over() {
            return;
        }
        chess_moves(&self.board, out);
    }

    /// Apply a legal move; an illegal one is ignored (the board stays
    /// valid), since callers check with `check_move` first.
    fn play(&mut self, mv: Move) {
        if self.board.is_legal(mv) {
            self.apply(mv);
        }
    }

    fn status(&self) -> Status {
        self.status
    }

    fn plies(&self) -> u32 {
        plies_from_board(&self.board)
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        // Re-reading the FEN rebuilds every Zobrist key from the pieces.
        match Board::from_fen(&self.board.to_string(), false) {
            Ok(b) => canonical_hash(&b),
            Err(_) => 0,
        }
    }

    fn parse_move(&self, text: &str) -> Result<Move, NotationError> {
        notation::parse_move(&self.board, text)
    }

    fn format_move(&self, mv: Move) -> String {
        format_uci(&self.board, mv)
    }

    fn explain_illegal(&self, mv: Move) -> String {
        explain_illegal(&self.board, mv)
    }

    fn random_playout(&mut self, rng: &mut SmallRng, moves: &mut Vec<Move>, max_plies: u32) -> u32 {
        // Judging the board only once per ply (through the move list) and
        // hashing once at the end is what makes this faster than the default.
        let mut n = 0;
        while n < max_plies {
            chess_moves(&self.board, moves);
            if moves.is_empty() || self.board.halfmove_clock() >= COUNTER_LIMIT {
                break;
            }
            let m = moves[rng.random_range(0..moves.len())];
            self.board.play_unchecked(m);
            n += 1;
        }
        self.hash = canonical_hash(&self.board);
        self.status = judge(&self.board);
        self.last = None;
        n
    }
}
