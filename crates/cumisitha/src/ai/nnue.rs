//! A small efficiently updatable neural network (NNUE) for the evaluation:
//! 768 inputs (piece, colour, square) seen from each side, one hidden layer
//! of [`HIDDEN`] neurons per side with a squared clipped ReLU, and one output.
//!
//! The hidden layer of each side is an [`Accumulator`] that a move updates by
//! adding and subtracting a few weight columns (the pieces that moved), so an
//! evaluation costs one small dot product. The weights are trained here from
//! the engine's own games by `scripts/cumisitha-nnue.sh`
//! (examples/nnue_train.rs) and compiled in from `nnue.bin`.
//!
//! ```
//! use cozy_chess::Board;
//! use tabula_cumisitha::ai::nnue::{network, Accumulator};
//!
//! let board = Board::default();
//! let acc = Accumulator::from_board(network(), &board);
//! // The start position is level: the score for the side to move is small.
//! assert!(network().evaluate(&acc, board.side_to_move()).abs() < 100);
//! ```

use cozy_chess::{Board, Color, Piece, Square};
use std::sync::OnceLock;

/// Inputs per side: 2 colours × 6 pieces × 64 squares.
pub const INPUTS: usize = 768;
/// Hidden neurons per side.
pub const HIDDEN: usize = 128;
/// The scale of the hidden layer: a float activation of 1.0 is `QA`.
pub const QA: i32 = 255;
/// The scale of the output weights.
pub const QB: i32 = 64;
/// The output times `SCALE` is centipawns (the trainer's sigmoid is
/// `1 / (1 + e^(-cp / SCALE))`).
pub const SCALE: i32 = 400;
/// The first eight bytes of a network file.
pub const MAGIC: &[u8; 8] = b"TBNNUE01";

/// The index of a piece's input as seen from `perspective`: its colour
/// relative to that side (ours first), its kind, and its square flipped
/// vertically for Black, so both sides see the board from their own side.
///
/// ```
/// use cozy_chess::{Color, Piece, Square};
/// use tabula_cumisitha::ai::nnue::feature;
///
/// // White's e2 pawn seen by White is Black's e7 pawn seen by Black.
/// assert_eq!(
///     feature(Color::White, Color::White, Piece::Pawn, Square::E2),
///     feature(Color::Black, Color::Black, Piece::Pawn, Square::E7),
/// );
/// ```
#[inline(always)]
pub fn feature(perspective: Color, color: Color, piece: Piece, square: Square) -> usize {
    let theirs = (color != perspective) as usize;
    let sq = match perspective {
        Color::White => square as usize,
        Color::Black => square as usize ^ 56,
    };
    (theirs * 6 + piece as usize) * 64 + sq
}

/// The weights, quantised.
#[derive(Clone)]
pub struct Network {
    /// Per input, its column of hidden weights (scaled by `QA`).
    feature_weights: Box<[[i16; HIDDEN]; INPUTS]>,
    /// Hidden biases (scaled by `QA`).
    feature_bias: [i16; HIDDEN],
    /// Output weights: the side to move's half, then the other side's
    /// (scaled by `QB`).
    output_weights: [i16; 2 * HIDDEN],
    /// Output bias (scaled by `QA * QB`).
    output_bias: i32,
}

/// Why a network file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    /// The file does not start with [`MAGIC`].
    #[error("not a Tabula NNUE file (expected the magic {expected:?})")]
    Magic {
        /// The expected magic.
        expected: String,
    },
    /// The file's hidden size differs from this build's.
    #[error("the network has {found} hidden neurons; this build expects {HIDDEN}")]
    Hidden {
        /// The size in the file.
        found: usize,
    },
    /// The file's length does not match its header.
    #[error("the network file is {found} bytes long; expected {expected}")]
    Length {
        /// The actual length.
        found: usize,
        /// The length the header implies.
        expected: usize,
    },
    /// An output weight is outside ±127, the bound the output's 16-bit
    /// products rely on (the trainer clips to it).
    #[error("output weight {index} is {value}; output weights must lie within ±127")]
    OutputWeight {
        /// Its index among the `2 × HIDDEN` output weights.
        index: usize,
        /// Its value.
        value: i16,
    },
}

/// All-zero feature weights, on the heap (too large for the stack).
fn zeroed_columns() -> Box<[[i16; HIDDEN]; INPUTS]> {
    vec![[0i16; HIDDEN]; INPUTS].into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!())
}

/// The byte length of a network file of this build's shape.
pub const FILE_BYTES: usize = 8 + 4 + 2 * (INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN) + 4;

impl Network {
    /// Read a network: `MAGIC`, the hidden size (u32), then little-endian
    /// i16 feature weights (input-major), feature biases, output weights,
    /// and the i32 output bias.
    ///
    /// ```
    /// use tabula_cumisitha::ai::nnue::{Network, NetworkError};
    ///
    /// assert!(matches!(Network::from_bytes(b"nonsense"), Err(NetworkError::Magic { .. })));
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        if bytes.len() < 12 || &bytes[..8] != MAGIC {
            return Err(NetworkError::Magic { expected: String::from_utf8_lossy(MAGIC).into_owned() });
        }
        let hidden = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        if hidden != HIDDEN {
            return Err(NetworkError::Hidden { found: hidden });
        }
        if bytes.len() != FILE_BYTES {
            return Err(NetworkError::Length { found: bytes.len(), expected: FILE_BYTES });
        }
        let mut words = bytes[12..].chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut feature_weights = zeroed_columns();
        for column in feature_weights.iter_mut() {
            for w in column.iter_mut() {
                *w = words.next().unwrap_or(0);
            }
        }
        let mut feature_bias = [0i16; HIDDEN];
        for b in feature_bias.iter_mut() {
            *b = words.next().unwrap_or(0);
        }
        let mut output_weights = [0i16; 2 * HIDDEN];
        for (index, w) in output_weights.iter_mut().enumerate() {
            *w = words.next().unwrap_or(0);
            if !(-127..=127).contains(w) {
                return Err(NetworkError::OutputWeight { index, value: *w });
            }
        }
        let tail = &bytes[FILE_BYTES - 4..];
        let output_bias = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
        Ok(Network { feature_weights, feature_bias, output_weights, output_bias })
    }

    /// Write the network in the format [`Network::from_bytes`] reads.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FILE_BYTES);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(HIDDEN as u32).to_le_bytes());
        let words = self.feature_weights.iter().flatten().chain(&self.feature_bias).chain(&self.output_weights);
        for w in words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.output_bias.to_le_bytes());
        out
    }

    /// A network from float weights as the trainer keeps them: `w1` input
    /// major (`INPUTS × HIDDEN`), `b1`, `w2` (`2 × HIDDEN`), `b2`. Output
    /// weights are clipped to ±127/`QB` so the output's products fit.
    pub fn quantise(w1: &[f32], b1: &[f32], w2: &[f32], b2: f32) -> Network {
        let q = |x: f32, s: i32, lim: i32| (x * s as f32).round().clamp(-lim as f32, lim as f32) as i16;
        let mut feature_weights = zeroed_columns();
        for (i, column) in feature_weights.iter_mut().enumerate() {
            for (h, w) in column.iter_mut().enumerate() {
                *w = q(w1[i * HIDDEN + h], QA, i16::MAX as i32);
            }
        }
        let mut feature_bias = [0i16; HIDDEN];
        for (h, b) in feature_bias.iter_mut().enumerate() {
            *b = q(b1[h], QA, i16::MAX as i32);
        }
        let mut output_weights = [0i16; 2 * HIDDEN];
        for (h, w) in output_weights.iter_mut().enumerate() {
            *w = q(w2[h], QB, 127);
        }
        let output_bias = (b2 * (QA * QB) as f32).round() as i32;
        Network { feature_weights, feature_bias, output_weights, output_bias }
    }

    /// The evaluation in centipawns for the side to move, `stm`.
    #[inline]
    pub fn evaluate(&self, acc: &Accumulator, stm: Color) -> i32 {
        let (us, them) = (&acc.values[stm as usize], &acc.values[!stm as usize]);
        // Each half fits in 32 bits; their sum and its scaling, with every
        // activation and weight at its bound, might not.
        let sum = half(us, &self.output_weights[..HIDDEN]) as i64 + half(them, &self.output_weights[HIDDEN..]) as i64;
        // The squared activations are scaled by QA², the weights by QB.
        ((sum / QA as i64 + self.output_bias as i64) * SCALE as i64 / (QA * QB) as i64) as i32
    }
}

/// One side's half of the output: Σ screlu(v) × w, where screlu(v) is
/// clamp(v, 0, QA)², computed as (v × w) × v so the first product stays
/// in 16 bits (|w| ≤ 127, v ≤ 255) and the sum in 32. Written with the
/// first product in `i16` and the second widened from two `i16`s so the
/// compiler turns it into 16-bit multiplies and pair-summing `pmaddwd`
/// (baseline x86-64 has no 32-bit vector multiply; the `i32` form was
/// emulated with `pmuludq` and shuffles).
#[inline(always)]
fn half(values: &[i16; HIDDEN], weights: &[i16]) -> i32 {
    let mut sum = 0i32;
    for (v, w) in values.iter().zip(&weights[..HIDDEN]) {
        let v = (*v).clamp(0, QA as i16);
        let vw = v.wrapping_mul(*w);
        sum = sum.wrapping_add(vw as i32 * v as i32);
    }
    sum
}

/// The hidden layer of both sides (White's view, then Black's) for one
/// position.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct Accumulator {
    values: [[i16; HIDDEN]; 2],
}

impl Accumulator {
    /// The accumulator of `board`, from scratch.
    pub fn from_board(net: &Network, board: &Board) -> Accumulator {
        let mut acc = Accumulator { values: [net.feature_bias; 2] };
        for color in [Color::White, Color::Black] {
            for piece in Piece::ALL {
                for sq in board.colored_pieces(color, piece) {
                    acc.add(net, color, piece, sq);
                }
            }
        }
        acc
    }

    /// Add a piece to both sides' views.
    #[inline(always)]
    fn add(&mut self, net: &Network, color: Color, piece: Piece, sq: Square) {
        for side in [Color::White, Color::Black] {
            let column = &net.feature_weights[feature(side, color, piece, sq)];
            for (v, w) in self.values[side as usize].iter_mut().zip(column) {
                *v = v.wrapping_add(*w);
            }
        }
    }

    /// Remove a piece from both sides' views.
    #[inline(always)]
    fn sub(&mut self, net: &Network, color: Color, piece: Piece, sq: Square) {
        for side in [Color::White, Color::Black] {
            let column = &net.feature_weights[feature(side, color, piece, sq)];
            for (v, w) in self.values[side as usize].iter_mut().zip(column) {
                *v = v.wrapping_sub(*w);
            }
        }
    }

    /// The accumulator of `after`, from this one of `before`: whatever
    /// move (or null move) led from one to the other, only the pieces that
    /// differ are updated.
    ///
    /// The changed pieces are gathered first. A quiet move (one piece
    /// added, one removed) and a capture (one added, two removed) are then
    /// applied in one pass per side that reads this accumulator and writes
    /// the new one, instead of copying it and then updating the copy once
    /// per piece: the update runs at every node, and the extra passes over
    /// memory were most of its cost.
    #[inline]
    pub fn update(&self, net: &Network, before: &Board, after: &Board) -> Accumulator {
        // At most two pieces appear (castling) and two disappear (castling,
        // or a capture by a promotion: pawn and victim); the null move
        // changes none. The counts go on past two, to see boards that are
        // further apart.
        let mut added = [(Color::White, Piece::Pawn, Square::A1); 2];
        let mut removed = [(Color::White, Piece::Pawn, Square::A1); 2];
        let (mut n_added, mut n_removed) = (0, 0);
        for color in [Color::White, Color::Black] {
            // Every change of a colour's pieces moves one of its squares
            // (a move, a capture, a promotion), so a colour whose squares
            // are the same has the same pieces.
            if (before.colors(color) ^ after.colors(color)).is_empty() {
                continue;
            }
            for piece in Piece::ALL {
                let was = before.colored_pieces(color, piece);
                let now = after.colored_pieces(color, piece);
                for sq in was & !now {
                    if let Some(slot) = removed.get_mut(n_removed) {
                        *slot = (color, piece, sq);
                    }
                    n_removed += 1;
                }
                for sq in now & !was {
                    if let Some(slot) = added.get_mut(n_added) {
                        *slot = (color, piece, sq);
                    }
                    n_added += 1;
                }
            }
        }
        match (n_added, n_removed) {
            (1, 1) | (1, 2) => {
                let mut acc = Accumulator { values: [[0; HIDDEN]; 2] };
                for side in [Color::White, Color::Black] {
                    let column = |(color, piece, sq): (Color, Piece, Square)| {
                        &net.feature_weights[feature(side, color, piece, sq)]
                    };
                    let (old, new) = (&self.values[side as usize], &mut acc.values[side as usize]);
                    let (a, r) = (column(added[0]), column(removed[0]));
                    if n_removed == 1 {
                        for i in 0..HIDDEN {
                            new[i] = old[i].wrapping_add(a[i]).wrapping_sub(r[i]);
                        }
                    } else {
                        let r2 = column(removed[1]);
                        for i in 0..HIDDEN {
                            new[i] = old[i].wrapping_add(a[i]).wrapping_sub(r[i]).wrapping_sub(r2[i]);
                        }
                    }
                }
                acc
            }
            // Castling, the null move: rare enough to patch a copy.
            (0..=2, 0..=2) => {
                let mut acc = *self;
                for &(color, piece, sq) in &added[..n_added] {
                    acc.add(net, color, piece, sq);
                }
                for &(color, piece, sq) in &removed[..n_removed] {
                    acc.sub(net, color, piece, sq);
                }
                acc
            }
            // Not a single move apart (never in the search): rebuild.
            _ => Accumulator::from_board(net, after),
        }
    }
}

/// The network compiled into this build.
pub fn network() -> &'static Network {
    static NET: OnceLock<Network> = OnceLock::new();
    NET.get_or_init(|| {
        Network::from_bytes(include_bytes!("nnue.bin")).unwrap_or_else(|e| panic!("the built-in nnue.bin: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_network_reads_and_writes_back() {
        let net = network();
        assert_eq!(net.to_bytes(), include_bytes!("nnue.bin").to_vec());
        let short = &net.to_bytes()[..FILE_BYTES - 1];
        assert_eq!(
            Network::from_bytes(short).err(),
            Some(NetworkError::Length { found: FILE_BYTES - 1, expected: FILE_BYTES })
        );
        let mut other = net.to_bytes();
        other[8] = 64;
        assert_eq!(Network::from_bytes(&other).err(), Some(NetworkError::Hidden { found: 64 }));
        // The last output weight, just before the 4-byte bias.
        let mut other = net.to_bytes();
        other[FILE_BYTES - 6..FILE_BYTES - 4].copy_from_slice(&128i16.to_le_bytes());
        assert_eq!(
            Network::from_bytes(&other).err(),
            Some(NetworkError::OutputWeight { index: 2 * HIDDEN - 1, value: 128 })
        );
    }

    #[test]
    fn updates_match_a_fresh_accumulator_along_a_game() {
        let net = network();
        // En passant, castling on both sides, a promotion with capture and
        // a null move.
        let mut board: Board = "r3k2r/pPpp1ppp/8/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 1".parse().unwrap();
        let mut acc = Accumulator::from_board(net, &board);
        for mv in ["d5e6", "e8g8", "e1g1", "d7d5", "b7a8q", "null", "a8b8"] {
            let next = if mv == "null" {
                board.null_move().unwrap()
            } else {
                let mut b = board.clone();
                b.play(cozy_chess::util::parse_uci_move(&b, mv).unwrap());
                b
            };
            acc = acc.update(net, &board, &next);
            let fresh = Accumulator::from_board(net, &next);
            assert_eq!(acc.values, fresh.values, "after {mv}");
            assert_eq!(net.evaluate(&acc, next.side_to_move()), net.evaluate(&fresh, next.side_to_move()));
            board = next;
        }
        // A plain capture, then a promotion without one.
        let mut board: Board = "4k3/1P6/8/3p4/4P3/8/8/4K3 w - - 0 1".parse().unwrap();
        let mut acc = Accumulator::from_board(net, &board);
        for mv in ["e4d5", "e8d7", "b7b8n"] {
            let mut next = board.clone();
            next.play(cozy_chess::util::parse_uci_move(&next, mv).unwrap());
            acc = acc.update(net, &board, &next);
            assert_eq!(acc.values, Accumulator::from_board(net, &next).values, "after {mv}");
            board = next;
        }
        // Positions more than one move apart are rebuilt, not patched.
        let far: Board = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1".parse().unwrap();
        let acc = Accumulator::from_board(net, &Board::default()).update(net, &Board::default(), &far);
        assert_eq!(acc.values, Accumulator::from_board(net, &far).values);
    }

    #[test]
    fn the_evaluation_is_the_same_for_mirrored_positions() {
        let net = network();
        let a: Board = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8".parse().unwrap();
        let b: Board = "r2qkb1r/pp2bppp/2n2n2/2pp4/3P4/2N1PN2/PP2BPPP/R1BQ1RK1 b kq - 0 8".parse().unwrap();
        let (ea, eb) = (Accumulator::from_board(net, &a), Accumulator::from_board(net, &b));
        assert_eq!(net.evaluate(&ea, a.side_to_move()), net.evaluate(&eb, b.side_to_move()));
        let up_a_queen: Board = "4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1".parse().unwrap();
        assert!(net.evaluate(&Accumulator::from_board(net, &up_a_queen), Color::White) > 400);
    }

    #[test]
    fn a_saturated_network_does_not_overflow() {
        // Every hidden value at its clamp and every output weight at ±127:
        // the largest sums the output can see.
        for sign in [1.0, -1.0] {
            let net = Network::quantise(
                &vec![1.0; INPUTS * HIDDEN],
                &vec![1.0; HIDDEN],
                &vec![sign; 2 * HIDDEN],
                sign * 1000.0,
            );
            let board = Board::default();
            let eval = net.evaluate(&Accumulator::from_board(&net, &board), Color::White);
            assert_eq!(eval.signum(), sign as i32, "{eval}");
        }
    }
}
