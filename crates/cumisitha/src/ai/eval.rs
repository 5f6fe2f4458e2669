//! The evaluation: a sum of weighted features (material, piece-square
//! tables, mobility, pawn structure, passed pawns, threats, king safety),
//! each weight a middlegame/endgame pair blended by the material left, plus
//! two fixed terms outside the weights: a mop-up term so that bare-king
//! endings are won within the 100-ply counter, and a scale-down of endings
//! a lone minor piece cannot win. Scores are in centipawns from the side to
//! move.
//!
//! The weights live in [`super::params`], tuned by Texel's method
//! (`scripts/cumisitha-texel.sh`): every feature is linear in its weight,
//! so [`trace`] can list a position's features for the tuner.

use super::params::WEIGHTS;
use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_rook_moves, BitBoard, Board, Color, Piece, Square,
};

/// A piece's value for move ordering and pruning.
pub const SEE_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 20000];

const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
/// The phase of the full starting material.
pub const PHASE_MAX: i32 = 24;

/// A middlegame and an endgame value packed in one integer, so that sums
/// of both are one addition.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct S(i32);

impl S {
    /// Zero in both phases.
    pub const ZERO: S = S(0);

    /// Pack a middlegame and an endgame value.
    pub const fn new(mg: i32, eg: i32) -> S {
        S(eg.wrapping_shl(16).wrapping_add(mg))
    }
    /// The middlegame value.
    #[inline]
    pub const fn mg(self) -> i32 {
        self.0 as i16 as i32
    }
    /// The endgame value.
    #[inline]
    pub const fn eg(self) -> i32 {
        (self.0.wrapping_add(0x8000) >> 16) as i16 as i32
    }
}

impl std::ops::Add for S {
    type Output = S;
    #[inline]
    fn add(self, o: S) -> S {
        S(self.0.wrapping_add(o.0))
    }
}
impl std::ops::AddAssign for S {
    #[inline]
    fn add_assign(&mut self, o: S) {
        self.0 = self.0.wrapping_add(o.0);
    }
}
impl std::ops::Sub for S {
    type Output = S;
    #[inline]
    fn sub(self, o: S) -> S {
        S(self.0.wrapping_sub(o.0))
    }
}
impl std::ops::Mul<i32> for S {
    type Output = S;
    #[inline]
    fn mul(self, k: i32) -> S {
        S(self.0.wrapping_mul(k))
    }
}

// The layout of the weights: each feature group's first index (see GROUPS).
/// First index of the `material` weights.
pub const MATERIAL: usize = 0;
/// First index of the `pst` weights.
pub const PST: usize = MATERIAL + 6;
/// First index of the `mob_knight` weights.
pub const MOB_KNIGHT: usize = PST + 6 * 64;
/// First index of the `mob_bishop` weights.
pub const MOB_BISHOP: usize = MOB_KNIGHT + 9;
/// First index of the `mob_rook` weights.
pub const MOB_ROOK: usize = MOB_BISHOP + 14;
/// First index of the `mob_queen` weights.
pub const MOB_QUEEN: usize = MOB_ROOK + 15;
/// First index of the `passed` weights.
pub const PASSED: usize = MOB_QUEEN + 28;
/// First index of the `passed_free` weights.
pub const PASSED_FREE: usize = PASSED + 8;
/// First index of the `passer_king_own` weights.
pub const PASSER_KING_OWN: usize = PASSED_FREE + 8;
/// First index of the `passer_king_theirs` weights.
pub const PASSER_KING_THEIRS: usize = PASSER_KING_OWN + 8;
/// First index of the `isolated` weights.
pub const ISOLATED: usize = PASSER_KING_THEIRS + 8;
/// First index of the `doubled` weights.
pub const DOUBLED: usize = ISOLATED + 1;
/// First index of the `backward` weights.
pub const BACKWARD: usize = DOUBLED + 1;
/// First index of the `phalanx` weights.
pub const PHALANX: usize = BACKWARD + 1;
/// First index of the `supported` weights.
pub const SUPPORTED: usize = PHALANX + 8;
/// First index of the `rook_open` weights.
pub const ROOK_OPEN: usize = SUPPORTED + 8;
/// First index of the `rook_semi_open` weights.
pub const ROOK_SEMI_OPEN: usize = ROOK_OPEN + 1;
/// First index of the `bishop_pair` weights.
pub const BISHOP_PAIR: usize = ROOK_SEMI_OPEN + 1;
/// First index of the `knight_outpost` weights.
pub const KNIGHT_OUTPOST: usize = BISHOP_PAIR + 1;
/// First index of the `bishop_outpost` weights.
pub const BISHOP_OUTPOST: usize = KNIGHT_OUTPOST + 1;
/// First index of the `bad_bishop` weights.
pub const BAD_BISHOP: usize = BISHOP_OUTPOST + 1;
/// First index of the `threat_by_pawn` weights.
pub const THREAT_BY_PAWN: usize = BAD_BISHOP + 1;
/// First index of the `threat_by_minor` weights.
pub const THREAT_BY_MINOR: usize = THREAT_BY_PAWN + 6;
/// First index of the `threat_by_rook` weights.
pub const THREAT_BY_ROOK: usize = THREAT_BY_MINOR + 6;
/// First index of the `hanging` weights.
pub const HANGING: usize = THREAT_BY_ROOK + 6;
/// First index of the `safe_check` weights.
pub const SAFE_CHECK: usize = HANGING + 1;
/// First index of the `king_attack` weights.
pub const KING_ATTACK: usize = SAFE_CHECK + 4;
/// First index of the `shield` weights.
pub const SHIELD: usize = KING_ATTACK + KING_ATTACK_UNITS;
/// First index of the `storm` weights.
pub const STORM: usize = SHIELD + 3;
/// First index of the `tempo` weights.
pub const TEMPO: usize = STORM + 8;
/// The number of weights.
pub const NUM_WEIGHTS: usize = TEMPO + 1;

/// The king-attack table's length: attack units 0 to 47.
pub const KING_ATTACK_UNITS: usize = 48;
/// Attack units per square of the king zone a piece hits (N, B, R, Q).
const ATTACK_UNIT: [i32; 6] = [0, 2, 2, 3, 5, 0];

/// Each feature group's name, first index and length, for the tuner's
/// output.
pub const GROUPS: &[(&str, usize, usize)] = &[
    ("material (P, N, B, R, Q, K)", MATERIAL, 6),
    ("pawn squares (a1..h8, from the side's own view)", PST, 64),
    ("knight squares", PST + 64, 64),
    ("bishop squares", PST + 128, 64),
    ("rook squares", PST + 192, 64),
    ("queen squares", PST + 256, 64),
    ("king squares", PST + 320, 64),
    ("knight mobility (safe squares 0..8)", MOB_KNIGHT, 9),
    ("bishop mobility (0..13)", MOB_BISHOP, 14),
    ("rook mobility (0..14)", MOB_ROOK, 15),
    ("queen mobility (0..27)", MOB_QUEEN, 28),
    ("passed pawn by rank", PASSED, 8),
    ("passed pawn with a free path, by rank", PASSED_FREE, 8),
    ("passed pawn: own king's distance to its stop square, by rank", PASSER_KING_OWN, 8),
    ("passed pawn: the enemy king's distance to its stop square, by rank", PASSER_KING_THEIRS, 8),
    ("isolated pawn", ISOLATED, 1),
    ("doubled pawn", DOUBLED, 1),
    ("backward pawn", BACKWARD, 1),
    ("pawn beside a pawn, by rank", PHALANX, 8),
    ("pawn defended by a pawn, by rank", SUPPORTED, 8),
    ("rook on an open file", ROOK_OPEN, 1),
    ("rook on a half-open file", ROOK_SEMI_OPEN, 1),
    ("bishop pair", BISHOP_PAIR, 1),
    ("knight outpost", KNIGHT_OUTPOST, 1),
    ("bishop outpost", BISHOP_OUTPOST, 1),
    ("own pawns on the bishop's colour", BAD_BISHOP, 1),
    ("pawn attacks a piece (P, N, B, R, Q, K)", THREAT_BY_PAWN, 6),
    ("knight or bishop attacks a piece", THREAT_BY_MINOR, 6),
    ("rook attacks a piece", THREAT_BY_ROOK, 6),
    ("attacked and undefended piece", HANGING, 1),
    ("safe checks (N, B, R, Q)", SAFE_CHECK, 4),
    ("king attack by attack units", KING_ATTACK, KING_ATTACK_UNITS),
    ("king shield pawn one ahead, two ahead, none", SHIELD, 3),
    ("enemy pawn storming the king, by its rank", STORM, 8),
    ("side to move", TEMPO, 1),
];

/// The weights as packed scores.
static W: [S; NUM_WEIGHTS] = {
    let mut w = [S::ZERO; NUM_WEIGHTS];
    let mut i = 0;
    while i < NUM_WEIGHTS {
        w[i] = S::new(WEIGHTS[i].0 as i32, WEIGHTS[i].1 as i32);
        i += 1;
    }
    w
};

/// Where the features of a position go: nowhere when playing, into a list
/// when tuning.
pub trait Trace {
    /// Feature `index` counted `n` more times for `white` (or Black).
    fn add(&mut self, index: usize, white: bool, n: i32);
}

/// The trace of normal play: does nothing.
pub struct NoTrace;

impl Trace for NoTrace {
    #[inline(always)]
    fn add(&mut self, _: usize, _: bool, _: i32) {}
}

/// A position's features for the tuner: each weight's count for White
/// minus Black.
pub struct Features {
    /// One count per weight, White's minus Black's.
    pub counts: Vec<i32>,
}

impl Trace for Features {
    fn add(&mut self, index: usize, white: bool, n: i32) {
        self.counts[index] += if white { n } else { -n };
    }
}

const FILE_A: u64 = 0x0101_0101_0101_0101;
const NOT_FILE_A: u64 = !FILE_A;
const NOT_FILE_H: u64 = !(FILE_A << 7);
const DARK_SQUARES: u64 = 0xAA55_AA55_AA55_AA55;

#[inline]
fn pawn_attacks(pawns: u64, white: bool) -> u64 {
    if white {
        ((pawns & NOT_FILE_A) << 7) | ((pawns & NOT_FILE_H) << 9)
    } else {
        ((pawns & NOT_FILE_A) >> 9) | ((pawns & NOT_FILE_H) >> 7)
    }
}

#[inline]
fn fill_up(mut b: u64) -> u64 {
    b |= b << 8;
    b |= b << 16;
    b | b << 32
}

#[inline]
fn fill_down(mut b: u64) -> u64 {
    b |= b >> 8;
    b |= b >> 16;
    b | b >> 32
}

/// Squares strictly in front of `b` (towards the opponent).
#[inline]
fn front_span(b: u64, white: bool) -> u64 {
    if white {
        fill_up(b << 8)
    } else {
        fill_down(b >> 8)
    }
}

#[inline]
fn adjacent_files(b: u64) -> u64 {
    ((b & NOT_FILE_A) >> 1) | ((b & NOT_FILE_H) << 1)
}

#[inline]
fn relative_rank(sq: Square, white: bool) -> usize {
    let r = sq.rank() as usize;
    if white {
        r
    } else {
        7 - r
    }
}

#[inline]
fn relative_square(sq: Square, white: bool) -> usize {
    if white {
        sq as usize
    } else {
        sq as usize ^ 56
    }
}

#[inline]
fn distance(a: Square, b: Square) -> i32 {
    let df = (a.file() as i32 - b.file() as i32).abs();
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    df.max(dr)
}

#[inline]
fn squares(b: u64) -> impl Iterator<Item = Square> {
    BitBoard(b).into_iter()
}

/// Per side, what its pieces attack.
#[derive(Default)]
struct Attacks {
    all: u64,
    pawn: u64,
    minor: u64,
    rook: u64,
    by: [u64; 6],
}

/// Weight `index` counted `n` times for `white`.
macro_rules! term {
    ($acc:expr, $t:expr, $white:expr, $index:expr, $n:expr) => {{
        let (i, n) = ($index, $n);
        $acc += W[i] * n;
        $t.add(i, $white, n);
    }};
    ($acc:expr, $t:expr, $white:expr, $index:expr) => {{
        let i = $index;
        $acc += W[i];
        $t.add(i, $white, 1);
    }};
}

/// The weighted features, White minus Black, and the game phase.
fn features<T: Trace>(board: &Board, t: &mut T) -> (S, i32) {
    let occ = board.occupied().0;
    let white_pawns = board.colored_pieces(Color::White, Piece::Pawn).0;
    let black_pawns = board.colored_pieces(Color::Black, Piece::Pawn).0;
    let pawns = [white_pawns, black_pawns];
    let pawn_att = [pawn_attacks(white_pawns, true), pawn_attacks(black_pawns, false)];
    let kings = [board.king(Color::White), board.king(Color::Black)];
    let zones =
        [get_king_moves(kings[0]).0 | kings[0].bitboard().0, get_king_moves(kings[1]).0 | kings[1].bitboard().0];
    let mut att = [Attacks::default(), Attacks::default()];
    let mut total = [S::ZERO; 2];
    let mut phase = 0;
    let mut units = [0i32; 2];
    let mut attackers = [0i32; 2];

    for c in 0..2 {
        let white = c == 0;
        let color = if white { Color::White } else { Color::Black };
        let own = board.colors(color).0;
        let mut acc = S::ZERO;
        let mobility_area = !own & !pawn_att[1 - c];
        let their_zone = zones[1 - c];
        // Squares the enemy's pawns can never attack: outposts.
        let their_pawn_span = if white { fill_down(pawn_att[1]) } else { fill_up(pawn_att[0]) };
        att[c].pawn = pawn_att[c];
        att[c].by[0] = pawn_att[c];
        for &piece in &Piece::ALL {
            let p = piece as usize;
            let bb = board.colored_pieces(color, piece).0;
            for sq in squares(bb) {
                term!(acc, t, white, MATERIAL + p);
                term!(acc, t, white, PST + p * 64 + relative_square(sq, white));
                phase += PHASE_WEIGHT[p];
                let attacks = match piece {
                    Piece::Pawn => continue,
                    Piece::Knight => get_knight_moves(sq).0,
                    Piece::Bishop => get_bishop_moves(sq, board.occupied()).0,
                    Piece::Rook => get_rook_moves(sq, board.occupied()).0,
                    Piece::Queen => (get_bishop_moves(sq, board.occupied()) | get_rook_moves(sq, board.occupied())).0,
                    Piece::King => {
                        att[c].by[5] |= zones[c] & !kings[c].bitboard().0;
                        continue;
                    }
                };
                att[c].by[p] |= attacks;
                let mobility = (attacks & mobility_area).count_ones() as usize;
                let hits = (attacks & their_zone).count_ones() as i32;
                if hits > 0 {
                    attackers[c] += 1;
                    units[c] += hits * ATTACK_UNIT[p];
                }
                let sq_bb = sq.bitboard().0;
                match piece {
                    Piece::Knight => {
                        term!(acc, t, white, MOB_KNIGHT + mobility);
                        let r = relative_rank(sq, white);
                        if (3..=5).contains(&r) && sq_bb & pawn_att[c] != 0 && sq_bb & their_pawn_span == 0 {
                            term!(acc, t, white, KNIGHT_OUTPOST);
                        }
                    }
                    Piece::Bishop => {
                        term!(acc, t, white, MOB_BISHOP + mobility);
                        let r = relative_rank(sq, white);
                        if (3..=5).contains(&r) && sq_bb & pawn_att[c] != 0 && sq_bb & their_pawn_span == 0 {
                            term!(acc, t, white, BISHOP_OUTPOST);
                        }
                        let same_colour = if sq_bb & DARK_SQUARES != 0 { DARK_SQUARES } else { !DARK_SQUARES };
                        let n = (pawns[c] & same_colour).count_ones() as i32;
                        if n > 0 {
                            term!(acc, t, white, BAD_BISHOP, n);
                        }
                    }
                    Piece::Rook => {
                        term!(acc, t, white, MOB_ROOK + mobility);
                        let file = FILE_A << (sq as usize & 7);
                        if file & (white_pawns | black_pawns) == 0 {
                            term!(acc, t, white, ROOK_OPEN);
                        } else if file & pawns[c] == 0 {
                            term!(acc, t, white, ROOK_SEMI_OPEN);
                        }
                    }
                    _ => term!(acc, t, white, MOB_QUEEN + mobility),
                }
            }
        }
        att[c].minor = att[c].by[1] | att[c].by[2];
        att[c].rook = att[c].by[3];
        att[c].all = att[c].by.iter().fold(0, |a, &b| a | b);
        if board.colored_pieces(color, Piece::Bishop).len() >= 2 {
            term!(acc, t, white, BISHOP_PAIR);
        }
        total[c] = acc;
    }

    for c in 0..2 {
        let white = c == 0;
        let color = if white { Color::White } else { Color::Black };
        let mut acc = S::ZERO;
        let ours = pawns[c];
        let theirs = pawns[1 - c];
        let them = board.colors(!color).0;

        // Pawn structure.
        let own_attack_span = front_span(pawn_att[c], white) | pawn_att[c];
        for sq in squares(ours) {
            let b = sq.bitboard().0;
            let r = relative_rank(sq, white);
            let file = FILE_A << (sq as usize & 7);
            let isolated = adjacent_files(file) & ours == 0;
            if isolated {
                term!(acc, t, white, ISOLATED);
            }
            if front_span(b, white) & ours != 0 {
                term!(acc, t, white, DOUBLED);
            }
            let stop = if white { b << 8 } else { b >> 8 };
            if !isolated && stop & pawn_att[1 - c] != 0 && stop & own_attack_span == 0 {
                term!(acc, t, white, BACKWARD);
            }
            if adjacent_files(b) & ours != 0 {
                term!(acc, t, white, PHALANX + r);
            }
            if b & pawn_att[c] != 0 {
                term!(acc, t, white, SUPPORTED + r);
            }
            if front_span(b | adjacent_files(b), white) & theirs == 0 {
                term!(acc, t, white, PASSED + r);
                if front_span(b, white) & occ == 0 {
                    term!(acc, t, white, PASSED_FREE + r);
                }
                if stop != 0 {
                    let stop_sq = Square::index(stop.trailing_zeros() as usize);
                    term!(acc, t, white, PASSER_KING_OWN + r, distance(kings[c], stop_sq));
                    term!(acc, t, white, PASSER_KING_THEIRS + r, distance(kings[1 - c], stop_sq));
                }
            }
        }

        // Threats against the enemy's pieces.
        let their = |p: Piece| board.colored_pieces(!color, p).0;
        for &piece in &Piece::ALL[..5] {
            let p = piece as usize;
            let victims = their(piece);
            if p > 0 {
                let n = (victims & att[c].pawn).count_ones() as i32;
                if n > 0 {
                    term!(acc, t, white, THREAT_BY_PAWN + p, n);
                }
            }
            let n = (victims & att[c].minor).count_ones() as i32;
            if n > 0 {
                term!(acc, t, white, THREAT_BY_MINOR + p, n);
            }
            let n = (victims & att[c].rook).count_ones() as i32;
            if n > 0 {
                term!(acc, t, white, THREAT_BY_ROOK + p, n);
            }
        }
        let hanging = (them & !board.pieces(Piece::King).0 & att[c].all & !att[1 - c].all).count_ones() as i32;
        if hanging > 0 {
            term!(acc, t, white, HANGING, hanging);
        }

        // King attack: safe checks and pressure on the king's zone.
        let king = kings[1 - c];
        let safe = !board.colors(color).0 & !att[1 - c].all;
        let diag = get_bishop_moves(king, board.occupied()).0;
        let line = get_rook_moves(king, board.occupied()).0;
        let checks = [
            get_knight_moves(king).0 & att[c].by[1],
            diag & att[c].by[2],
            line & att[c].by[3],
            (diag | line) & att[c].by[4],
        ];
        for (k, b) in checks.iter().enumerate() {
            let n = (b & safe).count_ones() as i32;
            if n > 0 {
                term!(acc, t, white, SAFE_CHECK + k, n);
            }
        }
        if attackers[c] >= 2 {
            let u = (units[c] as usize).min(KING_ATTACK_UNITS - 1);
            term!(acc, t, white, KING_ATTACK + u);
        }

        // Our own king's shelter and the enemy pawns storming it.
        let k = kings[c];
        let kr = relative_rank(k, white);
        let kf = k.file() as i32;
        for f in (kf - 1).max(0)..=(kf + 1).min(7) {
            let file = FILE_A << f;
            let in_front = file & front_span(k.bitboard().0, white);
            let shield = in_front & ours;
            let nearest = if white { shield.trailing_zeros() } else { 63u32.wrapping_sub(shield.leading_zeros()) };
            let shield_rank = if shield == 0 { 8 } else { relative_rank(Square::index(nearest as usize), white) };
            let index = match shield_rank.saturating_sub(kr) {
                1 => 0,
                2 => 1,
                _ => 2,
            };
            term!(acc, t, white, SHIELD + index);
            let storm = in_front & theirs;
            if storm != 0 {
                let nearest = if white { storm.trailing_zeros() } else { 63 - storm.leading_zeros() };
                term!(acc, t, white, STORM + relative_rank(Square::index(nearest as usize), white));
            }
        }
        total[c] += acc;
    }
    let stm_white = board.side_to_move() == Color::White;
    let mut score = total[0] - total[1];
    if stm_white {
        term!(score, t, true, TEMPO);
    } else {
        score += W[TEMPO] * -1;
        t.add(TEMPO, false, 1);
    }
    (score, phase.min(PHASE_MAX))
}

/// Blend the middlegame and endgame scores, add the mop-up term and scale
/// endings a lone minor piece cannot win; White's view.
fn finish(board: &Board, s: S, phase: i32) -> i32 {
    let eg = s.eg() + mop_up(board, s.eg());
    let mut score = (s.mg() * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;
    score = score * scale(board, score) / 8;
    score
}

/// Out of 8: how much of the score a side can hope to win.
fn scale(board: &Board, white_view: i32) -> i32 {
    let strong = if white_view > 0 { Color::White } else { Color::Black };
    if board.colored_pieces(strong, Piece::Pawn).is_empty() {
        let own = board.colors(strong);
        let minor_only = (own & (board.pieces(Piece::Rook) | board.pieces(Piece::Queen))).is_empty()
            && (own & (board.pieces(Piece::Knight) | board.pieces(Piece::Bishop))).len() <= 1;
        if minor_only {
            return 1;
        }
    }
    8
}

/// The evaluation of `board` for the side to move, in centipawns.
pub fn evaluate(board: &Board) -> i32 {
    let (s, phase) = features(board, &mut NoTrace);
    let score = finish(board, s, phase);
    match board.side_to_move() {
        Color::White => score,
        Color::Black => -score,
    }
}

/// What the tuner needs of a position: its features (White minus Black),
/// the phase, the scale (out of 8) and the fixed mop-up term (endgame,
/// White's view), and the evaluation in White's view.
pub struct Traced {
    /// The feature counts.
    pub features: Features,
    /// The game phase, 0 (endgame) to `PHASE_MAX` (middlegame).
    pub phase: i32,
    /// The endgame scale, out of 8.
    pub scale: i32,
    /// The fixed mop-up term (endgame, White's view).
    pub mop_up: i32,
    /// The evaluation in White's view.
    pub white_eval: i32,
}

/// Trace the evaluation of `board`.
pub fn trace(board: &Board) -> Traced {
    let mut f = Features { counts: vec![0; NUM_WEIGHTS] };
    let (s, phase) = features(board, &mut f);
    let eg = s.eg() + mop_up(board, s.eg());
    let blended = (s.mg() * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;
    Traced {
        features: f,
        phase,
        scale: scale(board, blended),
        mop_up: mop_up(board, s.eg()),
        white_eval: finish(board, s, phase),
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

    fn mirror(fen: &str) -> Board {
        // Swap colours and flip the board: the evaluation must not change.
        let b: Board = fen.parse().unwrap();
        let mut rows: Vec<String> = b.to_string().split(' ').next().unwrap().split('/').map(str::to_string).collect();
        rows.reverse();
        let placement: Vec<String> = rows
            .iter()
            .map(|r| {
                r.chars()
                    .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                    .collect()
            })
            .collect();
        let stm = if b.side_to_move() == Color::White { "b" } else { "w" };
        format!("{} {stm} - - 0 1", placement.join("/")).parse().unwrap()
    }

    #[test]
    fn packed_scores_keep_both_halves() {
        for (mg, eg) in [(0, 0), (5, -7), (-300, 250), (-1, -1), (1200, -32000)] {
            let s = S::new(mg, eg);
            assert_eq!((s.mg(), s.eg()), (mg, eg));
        }
        let a = S::new(10, -20) + S::new(-30, 5) * 3;
        assert_eq!((a.mg(), a.eg()), (-80, -5));
    }

    #[test]
    fn colours_mirror_and_material_counts() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8",
            "8/5pk1/6p1/3P4/1r6/5PP1/R5K1/8 w - - 0 40",
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        ] {
            let b: Board = fen.parse().unwrap();
            assert_eq!(evaluate(&b), evaluate(&mirror(fen)), "{fen}");
        }
        let up_a_queen: Board = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1".parse().unwrap();
        assert!(evaluate(&up_a_queen) > 700);
        let start = Board::default();
        assert!(evaluate(&start).abs() < 60, "{}", evaluate(&start));
    }

    #[test]
    fn the_trace_reproduces_the_evaluation() {
        for fen in [
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8",
            "8/5pk1/6p1/3P4/1r6/5PP1/R5K1/8 b - - 0 40",
            "6k1/8/8/8/8/8/1Q6/4K3 w - - 0 1",
        ] {
            let b: Board = fen.parse().unwrap();
            let tr = trace(&b);
            let mut mg = 0;
            let mut eg = 0;
            for (i, &n) in tr.features.counts.iter().enumerate() {
                mg += WEIGHTS[i].0 as i32 * n;
                eg += WEIGHTS[i].1 as i32 * n;
            }
            let eg = eg + tr.mop_up;
            let blended = (mg * tr.phase + eg * (PHASE_MAX - tr.phase)) / PHASE_MAX * tr.scale / 8;
            assert_eq!(blended, tr.white_eval, "{fen}");
            let stm = if b.side_to_move() == Color::White { 1 } else { -1 };
            assert_eq!(stm * tr.white_eval, evaluate(&b), "{fen}");
        }
    }
}
