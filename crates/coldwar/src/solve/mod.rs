//! The strong solution of Cold War by retrograde analysis.
//!
//! Every board (7^9 of them) is solved for both sides to move. The rules
//! are the same for X and O with the colours swapped, so a position with O
//! to move has the value of the colour-swapped board with X to move: the
//! table keeps one byte per board, for X to move, and answers for O through
//! the swap. That halves both the time and the memory.
//!
//! The solve counts each position's legal moves, then walks back from the
//! finished boards layer by layer (distance 0, 1, 2, ...) with un-moves: a
//! position with a lost child is won (first found = fastest), a position
//! whose last undecided move is answered by a win is lost (last found =
//! slowest). Whatever is never decided can be held forever: a draw. The
//! repetition rule and the 500-ply cap are not part of the solution.

pub mod cache;
pub mod report;
pub mod tool;

use crate::rules::{cells_of_index, code, count_moves_for_positive, ColdWar, Move, BOARDS, NEIGHBOURS, POW7};
use std::sync::atomic::{AtomicU8, Ordering};
use tabula_core::{Game, Player};

/// The game-theoretic value of a position for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins.
    Win,
    /// The side to move loses.
    Loss,
    /// Neither side can force a win.
    Draw,
}

impl Value {
    /// `win`, `loss` or `draw`.
    pub fn as_str(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Loss => "loss",
            Value::Draw => "draw",
        }
    }
}

/// A value and its distance in plies: for a win the fewest plies up to and
/// including the mover's winning action, for a loss the most plies until
/// the opponent's winning action, 0 for a draw. A finished board has
/// distance 0 (a loss for the side to move, or a win if the side to move
/// already holds every square, which only a loaded position can show).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Eval {
    /// Win, loss or draw for the side to move.
    pub value: Value,
    /// Plies to the end with best play: fewest to a win, most to a loss, 0 for a draw.
    pub plies: u32,
}

impl Eval {
    /// A draw.
    pub const DRAW: Eval = Eval { value: Value::Draw, plies: 0 };

    /// The value for the side that moved into a position of this value.
    pub fn for_parent(self) -> Eval {
        match self.value {
            Value::Win => Eval { value: Value::Loss, plies: self.plies + 1 },
            Value::Loss => Eval { value: Value::Win, plies: self.plies + 1 },
            Value::Draw => Eval::DRAW,
        }
    }
}

/// Table byte: undecided, i.e. a draw once the solve is over.
const DRAW_BYTE: u8 = 0;
/// Table byte: the side to move already holds every square.
const WON_BYTE: u8 = 255;
/// The largest distance a byte can hold (bytes 1..=254 are distance + 1).
const MAX_DISTANCE: u32 = 253;

/// The byte of a decided distance: even distances are losses for the side
/// to move (0 = already lost), odd ones wins.
fn distance_byte(d: u32) -> u8 {
    assert!(d <= MAX_DISTANCE, "distance {d} does not fit the table's byte encoding");
    (d + 1) as u8
}

fn decode(byte: u8) -> Eval {
    match byte {
        DRAW_BYTE => Eval::DRAW,
        WON_BYTE => Eval { value: Value::Win, plies: 0 },
        b => {
            let d = b as u32 - 1;
            let value = if d % 2 == 1 { Value::Win } else { Value::Loss };
            Eval { value, plies: d }
        }
    }
}

/// The index of a board with the colours swapped.
fn swapped_index(cells: &[i8; 9]) -> u32 {
    (0..9).map(|s| code(-cells[s]) as u32 * POW7[s]).sum()
}

fn index_of(cells: &[i8; 9]) -> u32 {
    (0..9).map(|s| code(cells[s]) as u32 * POW7[s]).sum()
}

/// The solution: one byte per board, for X to move.
pub struct Table {
    bytes: Vec<u8>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Table({} boards)", self.bytes.len())
    }
}

/// Why a byte string is not a table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadTable(pub String);

impl Table {
    /// Solve every board. `progress(done, total)` is called now and then
    /// (from the calling thread) to report work in positions.
    pub fn build(progress: &mut dyn FnMut(u64, u64)) -> Table {
        Table { bytes: solve(progress) }
    }

    /// A table from its bytes (as [`Table::as_bytes`] gives them). Every
    /// byte value is a possible entry, so only the length can be checked
    /// here; the cache file's checksum guards the contents.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Table, BadTable> {
        if bytes.len() != BOARDS as usize {
            return Err(BadTable(format!("{} entries instead of {BOARDS}", bytes.len())));
        }
        Ok(Table { bytes })
    }

    /// The table's bytes, one per board (see [`Table`]).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The table's bytes, for the disk cache.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The value of a board with `to_move` to play.
    pub fn eval_cells(&self, cells: &[i8; 9], to_move: Player) -> Eval {
        let index = match to_move {
            Player::First => index_of(cells),
            Player::Second => swapped_index(cells),
        };
        decode(self.bytes[index as usize])
    }

    /// The value of a game's board for its side to move (its history, the
    /// repetition rule and the ply cap play no part).
    pub fn eval(&self, game: &ColdWar) -> Eval {
        self.eval_cells(&game.cells(), game.to_move())
    }

    /// Every legal move of the board with the value it gives the mover.
    /// Empty when the board is finished.
    pub fn move_evals(&self, game: &ColdWar) -> Vec<(Move, Eval)> {
        let board = ColdWar::from_cells(game.cells(), game.to_move());
        let mut moves = Vec::new();
        board.legal_moves(&mut moves);
        moves
            .into_iter()
            .map(|m| {
                let mut child = board.clone();
                child.apply_to_board(m);
                (m, self.eval(&child).for_parent())
            })
            .collect()
    }

    /// The best moves: for a win the fastest wins, for a loss the longest
    /// losses, for a draw the drawing moves. Empty on a finished board.
    pub fn best_moves(&self, game: &ColdWar) -> Vec<Move> {
        let here = self.eval(game);
        self.move_evals(game).into_iter().filter(|&(_, e)| e == here).map(|(m, _)| m).collect()
    }

    /// Counts over every board with X to move; by the colour swap the
    /// counts with O to move are the same.
    pub fn census(&self) -> TableCensus {
        let mut c = TableCensus::default();
        for &b in &self.bytes {
            c.count(decode(b));
        }
        c
    }
}

/// Counts of the whole table (see [`Table::census`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TableCensus {
    /// Boards won by the side to move.
    pub wins: u64,
    /// Boards lost by the side to move.
    pub losses: u64,
    /// Drawn boards.
    pub draws: u64,
    /// The most plies any won position needs (with best defence).
    pub longest_win: u32,
    /// The most plies any lost position lasts.
    pub longest_loss: u32,
}

impl TableCensus {
    /// Count one position of this value.
    pub fn count(&mut self, e: Eval) {
        match e.value {
            Value::Win => {
                self.wins += 1;
                self.longest_win = self.longest_win.max(e.plies);
            }
            Value::Loss => {
                self.losses += 1;
                self.longest_loss = self.longest_loss.max(e.plies);
            }
            Value::Draw => self.draws += 1,
        }
    }
}

/// How many threads the solve uses.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4)
}

/// View a byte slice as atomics so that threads can share it.
fn as_atomic(bytes: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: AtomicU8 has the size and alignment of u8, and the unique
    // borrow guarantees no non-atomic access while the view lives.
    unsafe { &*(bytes as *mut [u8] as *const [AtomicU8]) }
}

/// The solve itself: returns one byte per board for X to move.
fn solve(progress: &mut dyn FnMut(u64, u64)) -> Vec<u8> {
    let n = BOARDS as usize;
    let total = 2 * BOARDS as u64; // counting pass + positions decided
    let threads = threads();
    let mut values = vec![DRAW_BYTE; n];
    let mut counts = vec![0u8; n];

    // Pass 1: count the moves of every board; the finished ones start the
    // walk back (distance 0).
    let chunk = n.div_ceil(threads);
    let mut frontier: Vec<u32> = std::thread::scope(|scope| {
        let handles: Vec<_> = values
            .chunks_mut(chunk)
            .zip(counts.chunks_mut(chunk))
            .enumerate()
            .map(|(k, (vals, cnts))| {
                scope.spawn(move || {
                    let start = (k * chunk) as u32;
                    let mut cells = cells_of_index(start);
                    let mut lost = Vec::new();
                    for i in 0..vals.len() {
                        if cells.iter().all(|&c| c > 0) {
                            vals[i] = WON_BYTE;
                        } else if cells.iter().all(|&c| c < 0) {
                            vals[i] = distance_byte(0);
                            lost.push(start + i as u32);
                        } else {
                            cnts[i] = count_moves_for_positive(&cells);
                        }
                        next_cells(&mut cells);
                    }
                    lost
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a solver thread panicked")).collect()
    });
    let mut done = BOARDS as u64;
    progress(done, total);

    let values_atomic = as_atomic(&mut values);
    let counts_atomic = as_atomic(&mut counts);
    let mut distance = 0u32;
    while !frontier.is_empty() {
        done += frontier.len() as u64;
        progress(done, total);
        let layer_lost = distance & 1 == 0;
        let next_byte = distance_byte(distance + 1);
        let part = frontier.len().div_ceil(threads).max(1);
        frontier = std::thread::scope(|scope| {
            let handles: Vec<_> = frontier
                .chunks(part)
                .map(|slice| {
                    scope.spawn(move || {
                        let mut next = Vec::new();
                        for &q in slice {
                            for_each_parent(q, |p| {
                                let p = p as usize;
                                if layer_lost {
                                    // The parent can move into a lost position.
                                    if values_atomic[p]
                                        .compare_exchange(DRAW_BYTE, next_byte, Ordering::Relaxed, Ordering::Relaxed)
                                        .is_ok()
                                    {
                                        next.push(p as u32);
                                    }
                                } else if values_atomic[p].load(Ordering::Relaxed) == DRAW_BYTE
                                    && counts_atomic[p].fetch_sub(1, Ordering::Relaxed) == 1
                                {
                                    // Its last move was answered by a win. In
                                    // this layer only this path decides a
                                    // position, so the store cannot race.
                                    values_atomic[p].store(next_byte, Ordering::Relaxed);
                                    next.push(p as u32);
                                }
                            });
                        }
                        next
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().expect("a solver thread panicked")).collect()
        });
        distance += 1;
    }
    progress(total, total);
    values
}

/// The next board in index order (an odometer in base 7).
fn next_cells(cells: &mut [i8; 9]) {
    for c in cells.iter_mut() {
        let k = code(*c);
        if k < 6 {
            *c = if k < 3 {
                *c + 1
            } else if k == 3 {
                -1
            } else {
                *c - 1
            };
            return;
        }
        *c = 0;
    }
}

/// Call `f` with the index of every X-to-move board P, once per legal move
/// m of P, such that m leads to the position `q` stands for. `q` is a
/// board with X to move, i.e. (colours swapped) the board C after an X
/// move with O to move. Each (P, m) is produced exactly once, matching the
/// move counts of pass 1; a test checks this against forward moves.
// Inlined into the solver's loop, so that `f` (called from ten places) is
// inlined too: out of line, a full solve took about 5% more CPU time
// (6.76 s against 6.43 s, median of ten interleaved runs).
#[inline(always)]
pub(crate) fn for_each_parent(q: u32, mut f: impl FnMut(u32)) {
    let mut c = cells_of_index(q);
    for x in c.iter_mut() {
        *x = -*x;
    }
    let base = index_of(&c);
    let x_everywhere = c.iter().all(|&x| x > 0);
    let x_pieces = c.iter().filter(|&&x| x > 0).count();
    for s in 0..9 {
        let cs = c[s];
        let ws = POW7[s];
        match cs {
            1 => {
                // Create on s: X had no piece at all, or a base next to s.
                if x_pieces == 1 || NEIGHBOURS[s].iter().any(|&t| c[t as usize] > 0) {
                    f(base - ws);
                }
                for &t in NEIGHBOURS[s] {
                    let t = t as usize;
                    let ct = c[t];
                    let wt = POW7[t];
                    // Transfer t -> s: t had one more piece.
                    if (0..3).contains(&ct) {
                        f(base - ws + wt);
                    }
                    match ct {
                        // Attack from s won: X a against O d, a > d.
                        0 => {
                            for (a, d) in [(2u32, 1u32), (3, 1), (3, 2)] {
                                f(base + (a - 1) * ws + (3 + d) * wt);
                            }
                        }
                        // Conquer from s: X 3 against O 1 on t.
                        1 => f(base + 2 * ws + 3 * wt),
                        _ => {}
                    }
                }
            }
            // Bolster s; not from a board X already held entirely, which
            // was over.
            2 | 3 if !x_everywhere => f(base - ws),
            0 => {
                for &t in NEIGHBOURS[s] {
                    let t = t as usize;
                    let wt = POW7[t];
                    match c[t] {
                        // Equal bases on s (attacker) and t destroyed.
                        0 => {
                            for k in 1..=3u32 {
                                f(base + k * ws + (3 + k) * wt);
                            }
                        }
                        // Attack from s lost: X a against O d, a < d.
                        -1 => {
                            for (a, d) in [(1u32, 2u32), (1, 3), (2, 3)] {
                                f(base + a * ws + (d - 1) * wt);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use std::collections::HashMap;
    use std::sync::OnceLock;

    fn board_from(s: &str) -> ColdWar {
        ColdWar::from_position(s, &Default::default()).unwrap()
    }

    /// The X-to-move index that stands for `game`'s position.
    fn canonical(game: &ColdWar) -> u32 {
        match game.to_move() {
            Player::First => index_of(&game.cells()),
            Player::Second => swapped_index(&game.cells()),
        }
    }

    #[test]
    fn move_count_matches_the_move_list() {
        let mut rng = SmallRng::seed_from_u64(1);
        let mut moves = Vec::new();
        for _ in 0..200_000 {
            let q = rng.random_range(0..BOARDS);
            let g = ColdWar::from_board_index(q, Player::First);
            g.board_moves(&mut moves);
            assert_eq!(count_moves_for_positive(&g.cells()) as usize, moves.len(), "board {:?}", g.position());
        }
    }

    #[test]
    fn the_odometer_walks_the_indices_in_order() {
        let mut cells = cells_of_index(0);
        for i in 0..100_000u32 {
            assert_eq!(index_of(&cells), i);
            next_cells(&mut cells);
        }
        let mut cells = cells_of_index(BOARDS - 2);
        next_cells(&mut cells);
        assert_eq!(index_of(&cells), BOARDS - 1);
    }

    /// How many moves of X-to-move board `p` lead to the position `q`.
    fn edges(p: u32, q: u32) -> usize {
        let g = ColdWar::from_board_index(p, Player::First);
        if g.status().is_over() {
            return 0;
        }
        let mut moves = Vec::new();
        g.board_moves(&mut moves);
        moves
            .iter()
            .filter(|&&m| {
                let mut c = g.clone();
                c.apply_to_board(m);
                canonical(&c) == q
            })
            .count()
    }

    #[test]
    fn unmoves_are_exactly_the_moves_backwards() {
        let mut rng = SmallRng::seed_from_u64(2);
        let mut moves = Vec::new();
        // Forward: every move of a random board appears among the
        // parents of its result.
        for _ in 0..20_000 {
            let p = rng.random_range(0..BOARDS);
            let g = ColdWar::from_board_index(p, Player::First);
            if g.status().is_over() {
                continue;
            }
            g.board_moves(&mut moves);
            for &m in &moves {
                let mut c = g.clone();
                c.apply_to_board(m);
                let q = canonical(&c);
                let mut found = 0;
                for_each_parent(q, |x| found += (x == p) as usize);
                assert_eq!(found, edges(p, q), "{:?} by {m:?}", g.position());
            }
        }
        // Backward: every parent produced has that many moves into q.
        for _ in 0..20_000 {
            let q = rng.random_range(0..BOARDS);
            let mut parents: HashMap<u32, usize> = HashMap::new();
            for_each_parent(q, |p| *parents.entry(p).or_default() += 1);
            for (&p, &n) in &parents {
                assert!(p < BOARDS);
                assert_eq!(n, edges(p, q), "parent {p} of {q}");
            }
        }
    }

    #[test]
    fn the_byte_encoding_round_trips() {
        assert_eq!(decode(DRAW_BYTE), Eval::DRAW);
        assert_eq!(decode(WON_BYTE), Eval { value: Value::Win, plies: 0 });
        for d in 0..=MAX_DISTANCE {
            let e = decode(distance_byte(d));
            assert_eq!(e.plies, d);
            assert_eq!(e.value, if d % 2 == 1 { Value::Win } else { Value::Loss });
        }
        assert!(Table::from_bytes(vec![0; 10]).unwrap_err().0.contains("10 entries"));
    }

    /// The full table, solved once per test binary. Slow without
    /// optimisation, so the tests that need it run in release builds:
    /// `cargo test --release -p tabula-coldwar`.
    pub(crate) fn full_table() -> &'static Table {
        static TABLE: OnceLock<Table> = OnceLock::new();
        TABLE.get_or_init(|| Table::build(&mut |_, _| {}))
    }

    fn best(table: &Table, position: &str) -> (Eval, Vec<String>) {
        let g = board_from(position);
        let mut best: Vec<String> = table.best_moves(&g).into_iter().map(|m| g.format_move(m)).collect();
        best.sort();
        (table.eval(&g), best)
    }

    fn win(plies: u32) -> Eval {
        Eval { value: Value::Win, plies }
    }

    fn loss(plies: u32) -> Eval {
        Eval { value: Value::Loss, plies }
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "solves the whole game: run with --release")]
    fn finished_boards_are_decided_at_distance_zero() {
        let t = full_table();
        // O to move, X holds every square: lost, nothing to play.
        assert_eq!(best(t, "X1X1X1/X1X1X1/X1X1X1 O"), (loss(0), vec![]));
        assert_eq!(best(t, "O3O1O1/O1O2O1/O1O1O1 X"), (loss(0), vec![]));
        // Only a loaded board shows the mover holding everything: won.
        assert_eq!(best(t, "X1X1X1/X1X3X1/X1X1X2 X"), (win(0), vec![]));
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "solves the whole game: run with --release")]
    fn wins_in_one_by_hand() {
        let t = full_table();
        // X fills the last square c1: by a new base, or by a transfer from
        // b1 that keeps a piece on b1 (c2 holds one piece, so its transfer
        // would empty c2 and not win).
        assert_eq!(best(t, "X1X1X1/X1X1X1/X1X2. X"), (win(1), vec!["b1-c1".into(), "c1".into()]));
        // The same for O with colours swapped.
        assert_eq!(best(t, "O1O1O1/O1O1O1/O1O2. O"), (win(1), vec!["b1-c1".into(), "c1".into()]));
        // Conquering the last enemy base, 3 against 1, wins at once; a
        // plain attack would only empty b2.
        assert_eq!(best(t, "X1X1X1/X3O1X1/X1X1X1 X"), (win(1), vec!["a2>b2".into()]));
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "solves the whole game: run with --release")]
    fn losses_in_two_by_hand() {
        let t = full_table();
        // X has no piece, so its only action is a base on the only empty
        // square, a1; O then conquers it from b1 (3 against 1) and holds
        // every square. Lost in 2.
        assert_eq!(best(t, "O1O1O1/O1O1O1/.O3O1 X"), (loss(2), vec!["a1".into()]));
        // Same board, O to move: O fills a1 at once (a base, or a transfer
        // from b1 that leaves two pieces there).
        assert_eq!(best(t, "O1O1O1/O1O1O1/.O3O1 O"), (win(1), vec!["a1".into(), "b1-a1".into()]));
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "solves the whole game: run with --release")]
    fn every_value_agrees_with_its_children() {
        // The minimax equations, checked on random boards (with each
        // move's value for the mover): a win in d has a move that wins in
        // d and none faster; a loss in d has only losing moves, the
        // slowest losing in d; a draw has a drawing move and no winning one.
        let t = full_table();
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..100_000 {
            let side = if rng.random::<bool>() { Player::First } else { Player::Second };
            let g = ColdWar::from_board_index(rng.random_range(0..BOARDS), side);
            let here = t.eval(&g);
            let children: Vec<Eval> = t.move_evals(&g).into_iter().map(|(_, e)| e).collect();
            let wins = children.iter().filter(|e| e.value == Value::Win).map(|e| e.plies);
            let draws = children.iter().filter(|e| e.value == Value::Draw).count();
            let at = g.position().unwrap();
            if g.status().is_over() {
                assert!(children.is_empty() && here.plies == 0, "{at}");
                continue;
            }
            match here.value {
                Value::Win => assert_eq!(wins.min(), Some(here.plies), "{at}"),
                Value::Loss => {
                    assert_eq!(draws + wins.count(), 0, "{at}");
                    assert_eq!(children.iter().map(|e| e.plies).max(), Some(here.plies), "{at}");
                }
                Value::Draw => assert!(wins.count() == 0 && draws > 0, "{at}"),
            }
        }
    }

    #[test]
    #[cfg_attr(debug_assertions, ignore = "solves the whole game: run with --release")]
    fn the_colours_are_symmetric_and_the_start_is_a_draw() {
        let t = full_table();
        let start = ColdWar::new(&Default::default());
        assert_eq!(t.eval(&start), Eval::DRAW);
        // Every first move keeps the draw.
        assert_eq!(t.best_moves(&start).len(), 9);
        let x = board_from("X3.O1/.X1./... O");
        let o = board_from("O3.X1/.O1./... X");
        assert_eq!(t.eval(&x), t.eval(&o));
    }
}
