//! [`Cumisitha`]: the game state behind Tabula's API.

use crate::rules::{self, canonical_hash, chess_moves, judge, player_of};
use crate::san;
use cozy_chess::{Board, Color, File, Move, Piece, Rank, Square};
use rand::rngs::SmallRng;
use rand::Rng;
use serde_json::{json, Value};
use tabula_core::{Agent, Game, GameMeta, LevelSpec, MoveError, NoOptions, NotationError, Player, Status};

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
}

impl Cumisitha {
    /// A state on a board, judged at once.
    pub fn from_board(board: Board) -> Self {
        let hash = canonical_hash(&board);
        let status = judge(&board);
        Cumisitha { board, hash, status, last: None }
    }

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
            return Err(MoveError::illegal(&self.uci(mv), rules::explain_illegal(&self.board, mv)));
        }
        self.apply(mv);
        Ok(())
    }

    fn apply(&mut self, mv: Move) {
        let shown_to = if rules::is_castle(&self.board, mv) {
            let f = if mv.to.file() > mv.from.file() { File::G } else { File::C };
            Square::new(f, mv.from.rank())
        } else {
            mv.to
        };
        self.board.play_unchecked(mv);
        self.hash = canonical_hash(&self.board);
        self.status = judge(&self.board);
        self.last = Some((mv.from, shown_to));
    }

    /// SAN of a legal move.
    pub fn san(&self, mv: Move) -> String {
        san::format_san(&self.board, mv, &mut Vec::new())
    }

    /// The move in UCI notation.
    pub fn uci(&self, mv: Move) -> String {
        rules::format_uci(&self.board, mv)
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
        let board = if text.eq_ignore_ascii_case("startpos") { Ok(Board::default()) } else { rules::from_fen(text) };
        board.map(Cumisitha::from_board).map_err(NotationError::new)
    }

    fn position(&self) -> Option<String> {
        Some(rules::to_fen(&self.board))
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
        rules::plies_from_board(&self.board)
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
        let t = text.trim();
        let b = t.as_bytes();
        // Letter-digit-letter-digit is UCI even off the board (e2e9), for a precise error.
        let uci_shape = (b.len() == 4 || b.len() == 5)
            && b[0].is_ascii_lowercase()
            && b[1].is_ascii_digit()
            && b[2].is_ascii_lowercase()
            && b[3].is_ascii_digit();
        if uci_shape || t == "0000" {
            rules::parse_uci(&self.board, t).map_err(NotationError::new)
        } else if t.is_empty() {
            Err(NotationError::new("empty move: write it in UCI (e2e4, e7e8q) or SAN (Nf3, O-O)"))
        } else {
            san::parse_san(&self.board, t).map_err(|e| {
                NotationError::new(format!("{e} (moves are written in UCI, e2e4 or e7e8q, or in SAN, Nf3 or O-O)"))
            })
        }
    }

    fn format_move(&self, mv: Move) -> String {
        rules::format_uci(&self.board, mv)
    }

    fn explain_illegal(&self, mv: Move) -> String {
        rules::explain_illegal(&self.board, mv)
    }

    fn random_playout(&mut self, rng: &mut SmallRng, moves: &mut Vec<Move>, max_plies: u32) -> u32 {
        // Judging the board only once per ply (through the move list) and
        // hashing once at the end is what makes this faster than the default.
        let mut n = 0;
        while n < max_plies {
            chess_moves(&self.board, moves);
            if moves.is_empty() || self.board.halfmove_clock() >= rules::COUNTER_LIMIT {
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

fn piece_char(piece: Piece, color: Color) -> char {
    let c = char::from(piece);
    if color == Color::White {
        c.to_ascii_uppercase()
    } else {
        c
    }
}

impl GameMeta for Cumisitha {
    const DESCRIPTION: &'static str = "Chess as Ludii reconstructs the Aymara game: checkmate wins; stalemate and 100 plies without capture or pawn move draw; repetition does not.";

    fn levels() -> Vec<LevelSpec> {
        crate::engine::levels::specs()
    }

    fn default_level() -> &'static str {
        crate::engine::levels::DEFAULT
    }

    fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Self>>> {
        crate::engine::levels::agent(level, seed)
    }

    fn view(&self) -> Value {
        let b = &self.board;
        let mut squares = Vec::with_capacity(64);
        for sq in Square::ALL {
            squares.push(match (b.piece_on(sq), b.color_on(sq)) {
                (Some(p), Some(c)) => json!(piece_char(p, c).to_string()),
                _ => Value::Null,
            });
        }
        let rows: Vec<String> = (0..8)
            .rev()
            .map(|r| {
                (0..8)
                    .map(|f| {
                        let sq = Square::new(File::index(f), Rank::index(r));
                        match (b.piece_on(sq), b.color_on(sq)) {
                            (Some(p), Some(c)) => piece_char(p, c),
                            _ => '.',
                        }
                    })
                    .collect()
            })
            .collect();
        let us = b.side_to_move();
        let check = (!b.checkers().is_empty()).then(|| b.king(us).to_string());
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        let mut scratch = Vec::new();
        let san: serde_json::Map<String, Value> =
            moves.iter().map(|&m| (rules::format_uci(b, m), json!(san::format_san(b, m, &mut scratch)))).collect();
        let fen = rules::to_fen(b);
        let fields: Vec<&str> = fen.split(' ').collect();
        json!({
            "fen": fen,
            "squares": squares,
            "squares_order": "a1,b1,...,h1,a2,...,h8",
            "rows": rows,
            "to_move": if us == Color::White { "white" } else { "black" },
            "check": check,
            "last_move": self.last.map(|(f, t)| json!({"from": f.to_string(), "to": t.to_string()})),
            "castling": fields.get(2),
            "en_passant": rules::effective_en_passant(b).map(|f| Square::new(f, Rank::Sixth.relative_to(us)).to_string()),
            "counter": b.halfmove_clock(),
            "counter_limit": rules::COUNTER_LIMIT,
            "move_number": b.fullmove_number(),
            "san": san,
        })
    }

    fn render_text(&self, color: bool) -> String {
        let b = &self.board;
        let mut out = String::new();
        let check_sq = (!b.checkers().is_empty()).then(|| b.king(b.side_to_move()));
        for r in (0..8).rev() {
            out.push_str(&format!("{} ", r + 1));
            for f in 0..8 {
                let sq = Square::new(File::index(f), Rank::index(r));
                let piece = b.piece_on(sq).zip(b.color_on(sq));
                if color {
                    let light = (r + f) % 2 == 1;
                    let is_last = self.last.is_some_and(|(a, z)| a == sq || z == sq);
                    let bg = if check_sq == Some(sq) {
                        160
                    } else if is_last {
                        if light {
                            186
                        } else {
                            143
                        }
                    } else if light {
                        180
                    } else {
                        137
                    };
                    let cell = match piece {
                        Some((p, c)) => {
                            let glyph = match p {
                                Piece::Pawn => '♟',
                                Piece::Knight => '♞',
                                Piece::Bishop => '♝',
                                Piece::Rook => '♜',
                                Piece::Queen => '♛',
                                Piece::King => '♚',
                            };
                            let fg = if c == Color::White { 231 } else { 16 };
                            format!("\x1b[1;38;5;{fg}m {glyph} ")
                        }
                        None => "   ".to_string(),
                    };
                    out.push_str(&format!("\x1b[48;5;{bg}m{cell}\x1b[0m"));
                } else {
                    let c = piece.map_or('.', |(p, c)| piece_char(p, c));
                    out.push(c);
                    out.push(' ');
                }
            }
            out.push('\n');
        }
        if color {
            out.push_str("   a  b  c  d  e  f  g  h\n");
        } else {
            out.push_str("  a b c d e f g h\n");
        }
        let who = if b.side_to_move() == Color::White { "White" } else { "Black" };
        let mut line = format!("{who} to move, counter {}/{}", b.halfmove_clock(), rules::COUNTER_LIMIT);
        if check_sq.is_some() {
            line.push_str(", in check");
        }
        if let Status::Over(o) = self.status {
            let res = match o.winner {
                Some(Player::First) => "White wins",
                Some(Player::Second) => "Black wins",
                None => "draw",
            };
            line = format!("game over: {res} ({})", o.reason);
        }
        out.push_str(&line);
        out.push('\n');
        out
    }

    fn record_format() -> &'static str {
        "pgn"
    }

    fn display_move(&self, mv: Move) -> String {
        self.san(mv)
    }

    fn export(log: &tabula_core::GameLog) -> Result<String, tabula_core::RecordError> {
        crate::pgn::export(log)
    }

    fn import(text: &str) -> Result<Vec<tabula_core::Replayed<Self>>, tabula_core::RecordError> {
        crate::pgn::import(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::START_FEN;
    use tabula_core::MoveErrorKind;

    fn at(fen: &str) -> Cumisitha {
        Cumisitha::from_position(fen, &NoOptions).unwrap()
    }

    fn play(state: &mut Cumisitha, moves: &[&str]) {
        for m in moves {
            let mv = state.check_move(m).unwrap_or_else(|e| panic!("{m}: {e}"));
            state.play(mv);
        }
    }

    fn over(state: &Cumisitha) -> Option<(Option<Player>, &'static str)> {
        state.status().outcome().map(|o| (o.winner, o.reason))
    }

    #[test]
    fn draw_on_the_hundredth_quiet_ply_and_repetition_plays_on() {
        let mut s = Cumisitha::new(&NoOptions);
        let cycle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        for ply in 0..100 {
            // The start position has now been seen (ply / 4 + 1) times: no repetition rule.
            assert_eq!(s.status(), Status::Ongoing, "ply {ply}");
            play(&mut s, &[cycle[ply % 4]]);
        }
        assert_eq!(over(&s), Some((None, rules::REASON_COUNTER)));
        assert_eq!(s.counter(), 100);
        let mut moves = Vec::new();
        s.legal_moves(&mut moves);
        assert!(moves.is_empty());
        assert_eq!(s.check_move("e2e4").unwrap_err().kind, MoveErrorKind::GameOver);
    }

    #[test]
    fn mate_on_the_hundredth_ply_wins() {
        let mut s = at("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80");
        assert_eq!(s.status(), Status::Ongoing);
        play(&mut s, &["a1a8"]);
        assert_eq!(over(&s), Some((Some(Player::First), rules::REASON_CHECKMATE)));
        let mut s = at("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80");
        play(&mut s, &["a1a7"]);
        assert_eq!(over(&s), Some((None, rules::REASON_COUNTER)));
        // A capture or pawn move on that ply resets the counter instead.
        let mut s = at("6k1/5ppp/8/8/8/8/7P/R5K1 w - - 99 80");
        play(&mut s, &["h2h3"]);
        assert_eq!(s.status(), Status::Ongoing);
    }

    #[test]
    fn stalemate_draws_and_checkmate_wins() {
        let mut s = at("k7/8/3Q4/8/8/8/8/4K3 w - - 0 1");
        play(&mut s, &["d6c7"]);
        assert_eq!(over(&s), Some((None, rules::REASON_STALEMATE)));
        // Fool's mate.
        let mut s = Cumisitha::new(&NoOptions);
        play(&mut s, &["f3", "e5", "g4", "Qh4#"]);
        assert_eq!(over(&s), Some((Some(Player::Second), rules::REASON_CHECKMATE)));
    }

    #[test]
    fn bare_kings_play_on_until_the_counter() {
        let mut s = at("8/8/4k3/8/8/4K3/8/8 w - - 0 1");
        let cycle = ["e3d3", "e6d6", "d3e3", "d6e6"];
        for ply in 0..100 {
            assert_eq!(s.status(), Status::Ongoing, "ply {ply}");
            play(&mut s, &[cycle[ply % 4]]);
        }
        assert_eq!(over(&s), Some((None, rules::REASON_COUNTER)));
    }

    #[test]
    fn loaded_positions_are_judged_at_once() {
        assert_eq!(over(&at("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")), Some((None, rules::REASON_STALEMATE)));
        assert_eq!(over(&at("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")), Some((Some(Player::First), rules::REASON_CHECKMATE)));
        assert_eq!(over(&at("4k3/8/8/8/8/8/8/R3K3 w - - 100 90")), Some((None, rules::REASON_COUNTER)));
        let s = at("4k3/8/8/8/8/8/8/R3K3 w - - 150 90");
        assert_eq!(over(&s), Some((None, rules::REASON_COUNTER)));
        // Mate is judged before the counter.
        assert_eq!(
            over(&at("7k/6Q1/6K1/8/8/8/8/8 b - - 100 90")),
            Some((Some(Player::First), rules::REASON_CHECKMATE))
        );
    }

    #[test]
    fn fen_round_trips_and_en_passant_is_written_only_when_legal() {
        let s = Cumisitha::new(&NoOptions);
        assert_eq!(s.position().unwrap(), START_FEN);
        assert_eq!(s.plies(), 0);
        let mut s2 = s.clone();
        play(&mut s2, &["e2e4"]);
        // No black pawn can take on e3.
        assert_eq!(s2.position().unwrap(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(s2.plies(), 1);
        let with_ep = at("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
        assert_eq!(with_ep.hash(), s2.hash());
        assert_eq!(with_ep.position(), s2.position());
        let mut s3 = at("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
        play(&mut s3, &["c2c4"]);
        assert!(s3.position().unwrap().contains(" b KQkq c3 0 3"), "{:?}", s3.position());
        assert_eq!(s3.plies(), 5);
        play(&mut s3, &["d4c3"]);
        assert_eq!(s3.position().unwrap(), "rnbqkbnr/ppp1pppp/8/8/4P3/2p5/PP1P1PPP/RNBQKBNR w KQkq - 0 4");
        // Four-field FEN gets clocks 0 1.
        assert_eq!(at("4k3/8/8/8/8/8/8/4K3 w - -").position().unwrap(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(at("startpos").position().unwrap(), START_FEN);
    }

    #[test]
    fn bad_fens_get_clear_errors() {
        let cases: &[(&str, &str)] = &[
            ("", "6 fields"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "7 ranks"),
            ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "not a count"),
            ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 ('ppppppp') covers 7 files"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1", "more than 8 files"),
            ("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "'x' is not a piece letter"),
            ("rnbqqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "Black has 0 kings"),
            ("4k3/8/8/8/8/8/8/4K2P w - - 0 1", "pawn stands on h1"),
            ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", "'w' or 'b'"),
            ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "needs a White rook on h1"),
            ("4k3/8/8/8/8/8/8/3K3R w K - 0 1", "needs the White king on e1"),
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkqk - 0 1", "names 'k' twice"),
            ("4k3/8/8/8/8/8/8/4K3 w X - 0 1", "'X' is not one of"),
            ("4k3/8/8/8/8/8/8/4K3 w - e3 0 1", "impossible with White to move"),
            ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "needs a Black pawn on e5"),
            ("4k3/8/8/8/8/8/8/4K3 w - z9 0 1", "a square such as e3"),
            ("4k3/8/8/8/8/8/8/4K3 w - - -1 1", "half-move clock"),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", "starts at 1"),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 x", "move number is a whole number"),
            ("4k3/8/8/8/8/8/8/R3K3 b - - 0 1", "Black is in check but it is Black's turn"),
            ("3Rk3/8/8/8/8/8/8/4K3 w - - 0 1", "Black is in check but it is White's turn"),
        ];
        for (fen, want) in cases {
            match Cumisitha::from_position(fen, &NoOptions) {
                Ok(_) => {
                    if !want.contains("Black's turn") {
                        panic!("'{fen}' was accepted")
                    }
                }
                Err(e) => assert!(e.message.contains(want), "'{fen}': '{}' lacks '{want}'", e.message),
            }
        }
    }

    #[test]
    fn moves_read_in_uci_and_san_and_illegal_ones_are_explained() {
        let s = Cumisitha::new(&NoOptions);
        assert_eq!(s.format_move(s.parse_move("Nf3").unwrap()), "g1f3");
        assert_eq!(s.format_move(s.parse_move("e2e4").unwrap()), "e2e4");
        let why = |s: &Cumisitha, m: &str| s.check_move(m).unwrap_err().to_string();
        assert!(why(&s, "e2e5").contains("a pawn on e2 cannot move to e5"));
        assert!(why(&s, "e7e5").contains("is Black's, and White is to move"));
        assert!(why(&s, "e3e4").contains("there is no piece on e3"));
        assert!(why(&s, "g1g3").contains("a knight on g1 cannot move to g3"));
        assert!(why(&s, "d1d2").contains("occupied by White's own pawn"));
        assert!(why(&s, "e1g1").contains("castle") || why(&s, "e1g1").contains("between"));
        assert!(why(&s, "e2e9").contains("not a square"));
        assert!(why(&s, "e2e4x").contains("not a promotion piece"));
        assert!(why(&s, "0000").contains("null move"));
        assert!(why(&s, "").contains("empty move"));
        let s = at("4k3/4P3/8/8/8/8/8/4K3 w - - 0 1");
        assert!(s.check_move("e7e8").is_err());
        let s = at("7k/4P3/8/8/8/8/8/4K3 w - - 0 1");
        assert!(why(&s, "e7e8").contains("must promote"));
        assert_eq!(s.format_move(s.check_move("e7e8q").unwrap()), "e7e8q");
        let s = at("4k3/8/8/8/8/8/8/r3K2R w K - 0 1");
        assert!(why(&s, "e1g1").contains("out of check"));
        let s = at("4k3/8/8/8/8/8/8/R3K2R w K - 0 1");
        assert!(why(&s, "e1c1").contains("can no longer castle queen-side"));
        let s = at("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        assert_eq!(s.format_move(s.check_move("O-O-O").unwrap()), "e1c1");
        let s = at("4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1");
        assert!(why(&s, "d2d3").contains("would leave the White king in check"));
    }

    #[test]
    fn view_and_text_show_the_board() {
        let mut s = Cumisitha::new(&NoOptions);
        play(&mut s, &["e2e4"]);
        let v = s.view();
        assert_eq!(v["squares"][28], "P");
        assert_eq!(v["last_move"]["to"], "e4");
        assert_eq!(v["rows"][0], "rnbqkbnr");
        assert_eq!(v["san"]["g8f6"], "Nf6");
        let t = s.render_text(false);
        assert!(t.contains("8 r n b q k b n r"));
        assert!(t.contains("Black to move"));
        assert!(s.render_text(true).contains("\x1b["));
    }
}
