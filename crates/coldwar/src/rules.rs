//! The rules of Cold War: [`ColdWar`] and its `impl Game`.

use crate::notation::{self, square_name};
use tabula_core::splitmix::mix;
use tabula_core::{Game, NoOptions, NotationError, Outcome, Player, Status};

/// A square index: a1 = 0, b1 = 1, c1 = 2, a2 = 3, ... c3 = 8.
pub type Square = u8;

/// One action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// Create a base on an empty square or bolster an own base (`b2`).
    Place(Square),
    /// Move one piece into an empty adjacent square (`b2-b3`).
    Transfer(Square, Square),
    /// Attack an adjacent enemy base (`b2xb3`).
    Attack(Square, Square),
    /// Take over an adjacent enemy base, 3 against 1 (`b2>b3`).
    Conquer(Square, Square),
}

/// The orthogonal neighbours of each square.
pub(crate) const NEIGHBOURS: [&[Square]; 9] =
    [&[1, 3], &[0, 2, 4], &[1, 5], &[0, 4, 6], &[1, 3, 5, 7], &[2, 4, 8], &[3, 7], &[4, 6, 8], &[5, 7]];

/// Games that reach this many plies are drawn (a safety cap).
pub const PLY_CAP: u32 = 500;

/// The number of boards: each of the 9 squares has 7 states.
pub const BOARDS: u32 = 40_353_607;

/// `7^s`: the weight of square `s` in a board index.
pub(crate) const POW7: [u32; 9] = [1, 7, 49, 343, 2401, 16_807, 117_649, 823_543, 5_764_801];

/// Zobrist keys, indexed by square and cell code (1..=6).
const ZOBRIST: [[u64; 7]; 9] = {
    let mut t = [[0u64; 7]; 9];
    let mut s = 0;
    while s < 9 {
        let mut c = 1;
        while c < 7 {
            t[s][c] = mix((s * 7 + c) as u64 + 0xC01D);
            c += 1;
        }
        s += 1;
    }
    t
};
const ZOBRIST_SECOND: u64 = mix(0xC01D_0000);

/// A cell: 0 empty, +n an X base of n pieces, -n an O base of n pieces.
type Cell = i8;

#[inline]
fn owner(c: Cell) -> Option<Player> {
    match c {
        0 => None,
        c if c > 0 => Some(Player::First),
        _ => Some(Player::Second),
    }
}

#[inline]
pub(crate) fn code(c: Cell) -> usize {
    match c {
        0 => 0,
        c if c > 0 => c as usize,
        c => (3 - c) as usize,
    }
}

/// A Cold War game: the board, the side to move and the history needed
/// for the repetition rule.
#[derive(Debug)]
pub struct ColdWar {
    cells: [Cell; 9],
    to_move: Player,
    plies: u32,
    hash: u64,
    /// The board index, kept incrementally (see [`ColdWar::board_index`]).
    index: u32,
    /// Exact keys (board index and side to move) of every position so far,
    /// the start included, for the threefold-repetition rule. Exact keys
    /// rather than hashes, so a hash collision can never end a game.
    history: Vec<u32>,
    status: Status,
    last: Option<Move>,
}

impl Clone for ColdWar {
    fn clone(&self) -> Self {
        ColdWar { history: self.history.clone(), ..*self }
    }
    fn clone_from(&mut self, src: &Self) {
        self.cells = src.cells;
        self.to_move = src.to_move;
        self.plies = src.plies;
        self.hash = src.hash;
        self.index = src.index;
        self.history.clone_from(&src.history);
        self.status = src.status;
        self.last = src.last;
    }
}

/// The cells of a board index (see [`ColdWar::board_index`]).
pub(crate) fn cells_of_index(mut index: u32) -> [Cell; 9] {
    let mut cells = [0i8; 9];
    for c in cells.iter_mut() {
        let k = (index % 7) as i8;
        index /= 7;
        *c = if k <= 3 { k } else { -(k - 3) };
    }
    cells
}

/// The number of legal actions for the side whose bases are positive,
/// without building a move list (the solver counts 40 million boards).
/// Must agree with [`ColdWar::board_moves`]; a test checks it does.
pub(crate) fn count_moves_for_positive(cells: &[Cell; 9]) -> u8 {
    let has_piece = cells.iter().any(|&c| c > 0);
    let mut n = 0u8;
    for s in 0..9 {
        let c = cells[s];
        if c == 0 {
            if !has_piece || NEIGHBOURS[s].iter().any(|&t| cells[t as usize] > 0) {
                n += 1;
            }
        } else if c > 0 {
            n += (c < 3) as u8;
            for &t in NEIGHBOURS[s] {
                let d = cells[t as usize];
                // A transfer into an empty square, or an attack, plus the
                // conquer option at 3 against 1.
                n += (d <= 0) as u8 + (c == 3 && d == -1) as u8;
            }
        }
    }
    n
}

fn adjacent(a: Square, b: Square) -> bool {
    NEIGHBOURS[a as usize].contains(&b)
}

impl ColdWar {
    /// The cell of a square: `(owner, pieces)`.
    pub fn cell(&self, s: Square) -> (Option<Player>, u8) {
        let c = self.cells[s as usize];
        (owner(c), c.unsigned_abs())
    }

    /// The board as a number in base 7 (square a1 lowest), with the cell
    /// codes 0 empty, 1..=3 X, 4..=6 O. Every board has one index below 7^9.
    pub fn board_index(&self) -> u32 {
        self.index
    }

    fn index_from_scratch(cells: &[Cell; 9]) -> u32 {
        cells.iter().rev().fold(0u32, |acc, &c| acc * 7 + code(c) as u32)
    }

    /// The key of the position for the repetition rule: board and side.
    fn repetition_key(&self) -> u32 {
        // 2 * BOARDS < 2^32, so the key is exact.
        self.index * 2 + self.to_move.index() as u32
    }

    /// The board of an index from [`ColdWar::board_index`].
    ///
    /// # Panics
    /// If `index >= BOARDS` (a caller's bug, not user input).
    pub fn from_board_index(index: u32, to_move: Player) -> ColdWar {
        assert!(index < BOARDS, "board index {index} is not below 7^9");
        Self::from_cells(cells_of_index(index), to_move)
    }

    /// A game starting from these cells (+n an X base, -n an O base, a1
    /// first), with `to_move` to play.
    ///
    /// # Panics
    /// If a cell is outside -3..=3 (a caller's bug, not user input).
    pub fn from_cells(cells: [i8; 9], to_move: Player) -> ColdWar {
        assert!(cells.iter().all(|c| (-3..=3).contains(c)), "cells {cells:?} out of range -3..=3");
        let mut g = ColdWar {
            cells,
            to_move,
            plies: 0,
            hash: 0,
            index: Self::index_from_scratch(&cells),
            history: Vec::new(),
            status: Status::Ongoing,
            last: None,
        };
        g.hash = g.hash_from_scratch();
        g.history.push(g.repetition_key());
        g.status = g.judge_board();
        g
    }

    /// A board without history, for bulk work (no allocation): the
    /// repetition rule does not see its start.
    pub(crate) fn bare(index: u32, to_move: Player) -> ColdWar {
        let cells = cells_of_index(index);
        let mut g = ColdWar {
            cells,
            to_move,
            plies: 0,
            hash: 0,
            index,
            history: Vec::new(),
            status: Status::Ongoing,
            last: None,
        };
        g.hash = g.hash_from_scratch();
        g.status = g.judge_board();
        g
    }

    /// The cells as signed counts (+ X, - O), a1 first.
    pub fn cells(&self) -> [i8; 9] {
        self.cells
    }

    /// The last move played, if any.
    pub fn last_move(&self) -> Option<Move> {
        self.last
    }

    fn owns(&self, p: Player, s: Square) -> bool {
        owner(self.cells[s as usize]) == Some(p)
    }

    /// A side that holds all nine squares has won.
    fn judge_board(&self) -> Status {
        for p in Player::BOTH {
            if (0..9).all(|s| self.owns(p, s)) {
                return Status::Over(Outcome::win(p, "holds every square"));
            }
        }
        Status::Ongoing
    }

    fn set(&mut self, s: Square, c: Cell) {
        let old = self.cells[s as usize];
        self.hash ^= ZOBRIST[s as usize][code(old)] ^ ZOBRIST[s as usize][code(c)];
        // Wrapping arithmetic: the sum is exact once every square is set.
        self.index = self
            .index
            .wrapping_add((code(c) as u32).wrapping_mul(POW7[s as usize]))
            .wrapping_sub((code(old) as u32).wrapping_mul(POW7[s as usize]));
        self.cells[s as usize] = c;
    }

    /// `+1` for X, `-1` for O.
    fn sign(p: Player) -> i8 {
        if p == Player::First {
            1
        } else {
            -1
        }
    }

    /// Legal moves without the game-over check (for the solver too).
    pub fn board_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        let me = self.to_move;
        let sign = Self::sign(me);
        let has_piece = self.cells.iter().any(|&c| c * sign > 0);
        for s in 0..9u8 {
            let c = self.cells[s as usize] * sign;
            if c == 0 {
                if !has_piece || NEIGHBOURS[s as usize].iter().any(|&n| self.cells[n as usize] * sign > 0) {
                    out.push(Move::Place(s));
                }
            } else if c > 0 {
                if c < 3 {
                    out.push(Move::Place(s));
                }
                for &t in NEIGHBOURS[s as usize] {
                    let d = self.cells[t as usize] * sign;
                    if d == 0 {
                        out.push(Move::Transfer(s, t));
                    } else if d < 0 {
                        out.push(Move::Attack(s, t));
                        if c == 3 && d == -1 {
                            out.push(Move::Conquer(s, t));
                        }
                    }
                }
            }
        }
    }

    /// Apply a move to the board only (no status, history or ply count).
    pub fn apply_to_board(&mut self, mv: Move) {
        let sign = Self::sign(self.to_move);
        match mv {
            Move::Place(s) => {
                let c = self.cells[s as usize];
                self.set(s, c + sign);
            }
            Move::Transfer(s, t) => {
                let c = self.cells[s as usize];
                self.set(s, c - sign);
                self.set(t, sign);
            }
            Move::Attack(s, t) => {
                let a = self.cells[s as usize].abs();
                let d = self.cells[t as usize].abs();
                if a == d {
                    self.set(s, 0);
                    self.set(t, 0);
                } else if a > d {
                    self.set(s, sign);
                    self.set(t, 0);
                } else {
                    self.set(s, 0);
                    self.set(t, -sign);
                }
            }
            Move::Conquer(s, t) => {
                self.set(s, sign);
                self.set(t, sign);
            }
        }
        self.to_move = self.to_move.other();
        self.hash ^= ZOBRIST_SECOND;
    }

    /// How many squares `p` holds.
    pub fn squares_of(&self, p: Player) -> u32 {
        let sign = Self::sign(p);
        self.cells.iter().filter(|&&c| c * sign > 0).count() as u32
    }

    /// Does the side that just moved hold every square?
    pub fn mover_holds_all(&self) -> bool {
        let mover = self.to_move.other();
        (0..9).all(|s| self.owns(mover, s))
    }
}

impl Game for ColdWar {
    type Move = Move;
    type Options = NoOptions;
    const ID: &'static str = "coldwar";
    const NAME: &'static str = "Cold War";
    const PLAYERS: [&'static str; 2] = ["x", "o"];

    fn new(_options: &NoOptions) -> Self {
        Self::from_cells([0; 9], Player::First)
    }

    fn from_position(position: &str, _options: &NoOptions) -> Result<Self, NotationError> {
        let (cells, to_move) = notation::parse_position(position)?;
        Ok(Self::from_cells(cells, to_move))
    }

    fn position(&self) -> Option<String> {
        Some(notation::write_position(&self.cells, self.to_move))
    }

    fn options(&self) -> &NoOptions {
        &NoOptions
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        if self.status.is_over() {
            out.clear();
        } else {
            self.board_moves(out);
        }
    }

    fn play(&mut self, mv: Move) {
        self.apply_to_board(mv);
        self.plies += 1;
        self.last = Some(mv);
        let key = self.repetition_key();
        self.history.push(key);
        let mover = self.to_move.other();
        self.status = if self.mover_holds_all() {
            Status::Over(Outcome::win(mover, "holds every square"))
        } else if self.history.iter().filter(|&&k| k == key).count() >= 3 {
            Status::Over(Outcome::draw("threefold repetition"))
        } else if self.plies >= PLY_CAP {
            Status::Over(Outcome::draw("500-ply cap"))
        } else {
            Status::Ongoing
        };
    }

    fn status(&self) -> Status {
        self.status
    }

    fn plies(&self) -> u32 {
        self.plies
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let mut h = if self.to_move == Player::Second { ZOBRIST_SECOND } else { 0 };
        for (s, &c) in self.cells.iter().enumerate() {
            h ^= ZOBRIST[s][code(c)];
        }
        h
    }

    fn parse_move(&self, text: &str) -> Result<Move, NotationError> {
        notation::parse_move(text)
    }

    fn format_move(&self, mv: Move) -> String {
        notation::format_move(mv)
    }

    fn explain_illegal(&self, mv: Move) -> String {
        let me = self.to_move;
        let sign = Self::sign(me);
        let name = |s: Square| square_name(s);
        let who = |s: Square| match owner(self.cells[s as usize]) {
            None => "empty".to_string(),
            Some(p) => {
                format!("an {} base of {}", if p == Player::First { "X" } else { "O" }, self.cells[s as usize].abs())
            }
        };
        let own_source = |s: Square| -> Option<String> {
            (!self.owns(me, s)).then(|| format!("{} is {}, not one of your bases", name(s), who(s)))
        };
        match mv {
            Move::Place(s) => {
                let c = self.cells[s as usize] * sign;
                if c < 0 {
                    format!("{} is {}; attack it from an adjacent base instead", name(s), who(s))
                } else if c == 3 {
                    format!("the base on {} already holds 3 pieces", name(s))
                } else {
                    format!("{} is not orthogonally adjacent to any of your bases", name(s))
                }
            }
            Move::Transfer(a, b) | Move::Attack(a, b) | Move::Conquer(a, b) => {
                if let Some(e) = own_source(a) {
                    return e;
                }
                if !adjacent(a, b) {
                    return format!("{} and {} are not orthogonally adjacent", name(a), name(b));
                }
                let d = self.cells[b as usize] * sign;
                match mv {
                    Move::Transfer(..) => format!("a transfer needs an empty target, and {} is {}", name(b), who(b)),
                    Move::Attack(..) => format!("{} is {}, not an enemy base", name(b), who(b)),
                    _ if d >= 0 => format!("{} is {}, not an enemy base", name(b), who(b)),
                    _ => format!(
                        "conquer needs 3 pieces against 1, here it is {} against {}",
                        self.cells[a as usize].abs(),
                        self.cells[b as usize].abs()
                    ),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pos(text: &str) -> ColdWar {
        ColdWar::from_position(text, &NoOptions).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// Play `moves` (checked), returning the position after them.
    fn after(text: &str, moves: &[&str]) -> ColdWar {
        let mut g = pos(text);
        for m in moves {
            let mv = g.check_move(m).unwrap_or_else(|e| panic!("{m} in {:?}: {e}", g.position()));
            g.play(mv);
        }
        g
    }

    fn position_after(text: &str, moves: &[&str]) -> String {
        after(text, moves).position().unwrap()
    }

    /// The reason a move is refused.
    fn refusal(text: &str, mv: &str) -> String {
        match pos(text).check_move(mv) {
            Ok(m) => panic!("{mv} is legal in {text} ({m:?})"),
            Err(e) => e.to_string(),
        }
    }

    fn legal(text: &str) -> Vec<String> {
        let g = pos(text);
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let mut names: Vec<String> = moves.into_iter().map(|m| g.format_move(m)).collect();
        names.sort();
        names
    }

    #[test]
    fn equal_bases_destroy_each_other() {
        for n in 1..=3 {
            let start = format!("X{n}O{n}./.../... X");
            assert_eq!(position_after(&start, &["a3xb3"]), ".../.../... O");
        }
        assert_eq!(position_after("X1../O1../... O", &["a2xa3"]), ".../.../... X");
    }

    #[test]
    fn a_bigger_attacker_keeps_one_piece() {
        assert_eq!(position_after("X2O1./.../... X", &["a3xb3"]), "X1../.../... O");
        assert_eq!(position_after("X3O2./.../... X", &["a3xb3"]), "X1../.../... O");
        assert_eq!(position_after("X3O1./.../... X", &["a3xb3"]), "X1../.../... O");
    }

    #[test]
    fn attacking_a_bigger_base_costs_the_attacker() {
        // Difference of 1 and of 2, the defender bigger: the attacking
        // square empties, the defender keeps one piece.
        assert_eq!(position_after("X1O2./.../... X", &["a3xb3"]), ".O1./.../... O");
        assert_eq!(position_after("X2O3./.../... X", &["a3xb3"]), ".O1./.../... O");
        assert_eq!(position_after("X1O3./.../... X", &["a3xb3"]), ".O1./.../... O");
        assert_eq!(position_after("O1X3./.../... O", &["a3xb3"]), ".X1./.../... X");
    }

    #[test]
    fn three_against_one_may_attack_or_conquer() {
        assert_eq!(position_after("X3O1./.../... X", &["a3xb3"]), "X1../.../... O");
        assert_eq!(position_after("X3O1./.../... X", &["a3>b3"]), "X1X1./.../... O");
        assert_eq!(position_after(".../.X1./.O3. O", &["b1>b2"]), ".../.O1./.O1. X");
        assert!(legal("X3O1./.../... X").contains(&"a3>b3".to_string()));
    }

    #[test]
    fn conquer_is_refused_unless_three_against_one() {
        for (board, a, d) in [("X3O2./.../... X", 3, 2), ("X2O1./.../... X", 2, 1), ("X1O3./.../... X", 1, 3)] {
            let why = refusal(board, "a3>b3");
            assert!(why.contains(&format!("3 pieces against 1, here it is {a} against {d}")), "{why}");
        }
        // The defender cannot conquer, even 3 against 1: O cannot conquer
        // on X's turn, and X1 cannot conquer O3.
        assert!(refusal("X1O3./.../... X", "b3>a3").contains("not one of your bases"));
        assert!(refusal("X3X1./.../... X", "a3>b3").contains("not an enemy base"));
        assert!(refusal("X3.O1/.../... X", "a3>c3").contains("not orthogonally adjacent"));
        let moves = legal("X3O2./O2../... X");
        assert!(moves.iter().all(|m| !m.contains('>')), "{moves:?}");
        assert!(moves.contains(&"a3xb3".into()) && moves.contains(&"a3xa2".into()));
    }

    #[test]
    fn a_side_without_pieces_may_place_anywhere_empty() {
        let all = ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"];
        assert_eq!(legal(".../.../... X"), all);
        // X has nothing left; O's bases do not restrict X.
        assert_eq!(legal("O1../.../..O3 X"), ["a1", "a2", "b1", "b2", "b3", "c2", "c3"]);
        assert!(refusal("O1../.../... X", "a3").contains("attack it"));
    }

    #[test]
    fn placing_needs_orthogonal_adjacency_to_an_own_base() {
        // X on b2: bolster b2 or create on its four orthogonal neighbours.
        let moves = legal(".../.X1./O1.. X");
        let places: Vec<&String> = moves.iter().filter(|m| m.len() == 2).collect();
        assert_eq!(places, ["a2", "b1", "b2", "b3", "c2"]);
        assert!(refusal(".../.X1./... X", "a1").contains("a1 is not orthogonally adjacent"));
        assert!(refusal(".../.X1./... X", "c3").contains("not orthogonally adjacent"));
        // O's base next to a1 does not let X place there.
        assert!(refusal("X1../O1../... X", "a1").contains("not orthogonally adjacent"));
        // Attacks are orthogonal too.
        assert!(refusal(".../.X3./O1.. X", "b2xa1").contains("b2 and a1 are not orthogonally adjacent"));
    }

    #[test]
    fn bolstering_stops_at_three() {
        assert_eq!(position_after("X2../.../... X", &["a3"]), "X3../.../... O");
        assert!(refusal("X3../.../... X", "a3").contains("already holds 3 pieces"));
    }

    #[test]
    fn transfer_only_into_an_adjacent_empty_square() {
        assert_eq!(position_after("X2../.../... X", &["a3-b3"]), "X1X1./.../... O");
        // Moving the last piece out leaves the source empty.
        assert_eq!(position_after("X1../.../... X", &["a3-a2"]), ".../X1../... O");
        assert!(refusal("X2X1./.../... X", "a3-b3").contains("needs an empty target, and b3 is an X base of 1"));
        assert!(refusal("X2O1./.../... X", "a3-b3").contains("needs an empty target, and b3 is an O base of 1"));
        assert!(refusal("X2../.../... X", "a3-b2").contains("not orthogonally adjacent"));
        assert!(refusal("X2../.../... X", "a3-c3").contains("not orthogonally adjacent"));
        assert!(refusal("O2../.../... X", "a3-b3").contains("a3 is an O base of 2, not one of your bases"));
        assert!(refusal(".../.../... X", "a3-b3").contains("a3 is empty"));
    }

    #[test]
    fn the_ninth_square_wins_at_once() {
        let g = after("X1X1X1/X1X1X1/X1X1. X", &["c1"]);
        assert_eq!(g.status(), Status::Over(Outcome::win(Player::First, "holds every square")));
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        assert!(moves.is_empty());
        assert!(g.check_move("a1").unwrap_err().to_string().contains("game is over"));
        // Eight squares are not enough, even with more pieces.
        let g = after("X3X3X3/X3X3X3/X3X3O1 X", &["b1>c1"]);
        assert_eq!(g.status().outcome().unwrap().winner, Some(Player::First));
        let g = after("X3X3X3/X3X3X3/X3X3O1 X", &["b1xc1"]);
        assert_eq!(g.status(), Status::Ongoing);
        // O wins the same way.
        let g = after("O1O1O1/O1O1O1/O1O2. O", &["b1-c1"]);
        assert_eq!(g.status().outcome().unwrap().winner, Some(Player::Second));
    }

    #[test]
    fn a_loaded_finished_board_is_over() {
        for (text, winner) in [("X1X1X1/X1X2X1/X1X1X3 O", Player::First), ("O1O1O1/O1O2O1/O1O1O3 X", Player::Second)] {
            let g = pos(text);
            assert_eq!(g.status(), Status::Over(Outcome::win(winner, "holds every square")));
        }
        assert_eq!(pos("X1X1X1/X1X2X1/X1X1. O").status(), Status::Ongoing);
    }

    #[test]
    fn the_third_occurrence_is_a_draw() {
        let start = "X1../.../..O1 X";
        let cycle = ["a3-b3", "c1-b1", "b3-a3", "b1-c1"];
        let mut g = pos(start);
        for round in 0..2 {
            for (i, m) in cycle.iter().enumerate() {
                assert_eq!(g.status(), Status::Ongoing, "round {round} move {i}");
                let mv = g.check_move(m).unwrap();
                g.play(mv);
            }
        }
        // The start position has now stood there three times.
        assert_eq!(g.position().unwrap(), start);
        assert_eq!(g.status(), Status::Over(Outcome::draw("threefold repetition")));
        // The same board with the other side to move is another position.
        let mut g = pos(start);
        for m in ["a3-b3", "c1-b1", "b3-a3", "b1-c1", "a3-b3", "c1-b1", "b3-a3"] {
            let mv = g.check_move(m).unwrap();
            g.play(mv);
        }
        assert_eq!(g.status(), Status::Ongoing);
    }

    #[test]
    fn a_game_reaching_500_plies_is_drawn() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        let mut moves = Vec::new();
        // Random games usually wander until the cap; find one that does.
        for _ in 0..50 {
            let mut g = ColdWar::new(&NoOptions);
            while !g.status().is_over() {
                assert!(g.plies() < PLY_CAP);
                g.legal_moves(&mut moves);
                g.play(moves[rng.random_range(0..moves.len())]);
            }
            if g.status() == Status::Over(Outcome::draw("500-ply cap")) {
                assert_eq!(g.plies(), PLY_CAP);
                return;
            }
        }
        panic!("no random game reached the cap");
    }

    #[test]
    fn malformed_moves_say_what_is_wrong() {
        let g = ColdWar::new(&NoOptions);
        for (text, expected) in [
            ("", "empty move"),
            ("d1", "'d1' is not a square"),
            ("a4", "'a4' is not a square"),
            ("b2b3", "'b2b3' is not a square"),
            ("a1-", "'' is not a square"),
            ("a1xz9", "'z9' is not a square"),
            ("é2", "is not a square"),
        ] {
            let e = g.check_move(text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text:?}: {e}");
        }
        assert_eq!(g.parse_move("B2>C2").unwrap(), Move::Conquer(4, 5));
        assert_eq!(g.parse_move(" a1xa2 ").unwrap(), Move::Attack(0, 3));
    }

    #[test]
    fn malformed_positions_say_what_is_wrong() {
        for (text, expected) in [
            ("X3.O1/.X1./...", "has no side to move"),
            ("X3.O1/.X1./... Z", "side to move 'Z'"),
            (".../... X", "2 ranks instead of 3"),
            ("..../.../... X", "rank 3 has more than three squares"),
            ("../.../... X", "rank 3 has 2 squares"),
            ("X4../.../... X", "X on rank 3 needs a count from 1 to 3"),
            ("X../.../... X", "needs a count"),
            ("..O/.../... X", "needs a count"),
            ("Q../.../... X", "'Q' on rank 3 is not"),
            ("", "no side to move"),
        ] {
            let e = ColdWar::from_position(text, &NoOptions).unwrap_err().to_string();
            assert!(e.contains(expected), "{text:?}: {e}");
        }
    }

    #[test]
    fn positions_and_board_indices_round_trip() {
        let g = pos("X3.O1/.X1./... O");
        assert_eq!(g.position().unwrap(), "X3.O1/.X1./... O");
        assert_eq!(g.cell(6), (Some(Player::First), 3));
        assert_eq!(g.cell(8), (Some(Player::Second), 1));
        assert_eq!(g.cell(4), (Some(Player::First), 1));
        let back = ColdWar::from_board_index(g.board_index(), Player::Second);
        assert_eq!(back.position(), g.position());
        assert_eq!(ColdWar::new(&NoOptions).board_index(), 0);
        assert_eq!(ColdWar::from_board_index(BOARDS - 1, Player::First).position().unwrap(), "O3O3O3/O3O3O3/O3O3O3 X");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn the_board_index_follows_every_move(index in 0..BOARDS, seed in any::<u64>()) {
            use rand::{Rng, SeedableRng};
            let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
            let mut g = ColdWar::from_board_index(index, Player::First);
            let mut moves = Vec::new();
            for _ in 0..100 {
                g.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                g.play(moves[rng.random_range(0..moves.len())]);
                prop_assert_eq!(g.board_index(), ColdWar::index_from_scratch(&g.cells));
            }
        }

    }
}
