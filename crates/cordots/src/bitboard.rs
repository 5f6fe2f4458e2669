//! Squares, bitboard shifts and the Zobrist keys.
//!
//! Square index = rank * 8 + file, so a1 = 0, h1 = 7, a8 = 56. Bit `s` of a
//! `u64` is square `s`.

use tabula_core::splitmix::SplitMix64;

/// A set of squares, bit `s` for square `s`.
pub type Bitboard = u64;

/// The a-file.
pub const FILE_A: Bitboard = 0x0101_0101_0101_0101;
/// The h-file.
pub const FILE_H: Bitboard = FILE_A << 7;
/// The first rank.
pub const RANK_1: Bitboard = 0xFF;
/// The eighth rank.
pub const RANK_8: Bitboard = RANK_1 << 56;

/// The base row each side targets: White (index 0) aims at rank 8, Black at rank 1.
pub const TARGET_ROW: [Bitboard; 2] = [RANK_8, RANK_1];

/// The set holding square `sq` alone.
#[inline(always)]
pub const fn bit(sq: u8) -> Bitboard {
    1u64 << sq
}

/// Every piece one square north (towards rank 8).
#[inline(always)]
pub const fn north(b: Bitboard) -> Bitboard {
    b << 8
}
/// Every square one step south (towards rank 1).
#[inline(always)]
pub const fn south(b: Bitboard) -> Bitboard {
    b >> 8
}
/// One square east (towards file h); pieces on file h fall off rather than wrap.
#[inline(always)]
pub const fn east(b: Bitboard) -> Bitboard {
    (b << 1) & !FILE_A
}
/// Every square one step west (towards the a-file).
#[inline(always)]
pub const fn west(b: Bitboard) -> Bitboard {
    (b >> 1) & !FILE_H
}

/// Every square orthogonally next to a square of `b`.
#[inline(always)]
pub const fn neighbours(b: Bitboard) -> Bitboard {
    north(b) | south(b) | east(b) | west(b)
}

/// Squares of `b` with `ends` directly on both sides along a rank or a file:
/// the sandwiched ones.
#[inline(always)]
pub const fn sandwiched(b: Bitboard, ends: Bitboard) -> Bitboard {
    b & ((east(ends) & west(ends)) | (north(ends) & south(ends)))
}

/// The four step directions: (square delta, which pieces can step that way
/// given the empty squares).
pub const DIRECTIONS: [i8; 4] = [8, -8, 1, -1];

/// Pieces of `pieces` that can step in direction `d` (index into
/// [`DIRECTIONS`]) onto an empty square.
#[inline(always)]
pub const fn movers(pieces: Bitboard, empty: Bitboard, d: usize) -> Bitboard {
    match d {
        0 => pieces & south(empty),
        1 => pieces & north(empty),
        2 => pieces & west(empty),
        _ => pieces & east(empty),
    }
}

/// A square's name, `a1` to `h8`.
pub fn square_name(sq: u8) -> String {
    let f = (b'a' + sq % 8) as char;
    let r = (b'1' + sq / 8) as char;
    format!("{f}{r}")
}

/// `e4` -> 28. `None` unless the text is exactly a file a–h and a rank 1–8.
pub fn parse_square(text: &str) -> Option<u8> {
    let b = text.as_bytes();
    if b.len() != 2 {
        return None;
    }
    let f = b[0].to_ascii_lowercase();
    let r = b[1];
    if (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r) {
        Some((r - b'1') * 8 + (f - b'a'))
    } else {
        None
    }
}

/// Iterate the squares of a bitboard, lowest first.
#[inline(always)]
pub fn squares(mut b: Bitboard) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if b == 0 {
            None
        } else {
            let s = b.trailing_zeros() as u8;
            b &= b - 1;
            Some(s)
        }
    })
}

/// The index of the `n`-th set bit (0-based) of `b`; `b` has more than `n` bits.
#[inline(always)]
pub fn nth_bit(mut b: Bitboard, n: u32) -> u8 {
    for _ in 0..n {
        b &= b - 1;
    }
    b.trailing_zeros() as u8
}

/// Zobrist keys, fixed at compile time so that hashes are stable across runs.
pub struct Keys {
    /// `[side][kind][square]`
    pub piece: [[[u64; 64]; 2]; 2],
    /// XORed in when Black is to move.
    pub black_to_move: u64,
    /// [side][reserve count 0..=8]
    pub reserve: [[u64; 9]; 2],
}

const fn make_keys() -> Keys {
    let mut keys = Keys { piece: [[[0; 64]; 2]; 2], black_to_move: 0, reserve: [[0; 9]; 2] };
    let mut keys_from = SplitMix64::new(0xC0D0_7500_2026_0001);
    let mut side = 0;
    while side < 2 {
        let mut kind = 0;
        while kind < 2 {
            let mut sq = 0;
            while sq < 64 {
                keys.piece[side][kind][sq] = keys_from.next_u64();
                sq += 1;
            }
            kind += 1;
        }
        let mut n = 0;
        while n < 9 {
            let z = keys_from.next_u64();
            // Count 0 keeps key 0 so an empty reserve costs nothing to hash.
            keys.reserve[side][n] = if n == 0 { 0 } else { z };
            n += 1;
        }
        side += 1;
    }
    keys.black_to_move = keys_from.next_u64();
    keys
}

/// The Zobrist keys.
pub static KEYS: Keys = make_keys();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_do_not_wrap_around_the_board() {
        assert_eq!(east(bit(7)), 0, "h1 has no east neighbour");
        assert_eq!(west(bit(8)), 0, "a2 has no west neighbour");
        assert_eq!(north(bit(63)), 0);
        assert_eq!(south(bit(0)), 0);
        assert_eq!(neighbours(bit(0)), bit(1) | bit(8));
    }

    #[test]
    fn squares_round_trip() {
        for s in 0..64u8 {
            assert_eq!(parse_square(&square_name(s)), Some(s));
        }
        assert_eq!(parse_square("i1"), None);
        assert_eq!(parse_square("a9"), None);
        assert_eq!(parse_square("a"), None);
        assert_eq!(parse_square("é"), None);
    }

    #[test]
    fn sandwich_needs_both_ends_on_one_line() {
        // d4 between c4 and e4: sandwiched; d4 between c4 and d5: not.
        let d4 = bit(27);
        assert_eq!(sandwiched(d4, bit(26) | bit(28)), d4);
        assert_eq!(sandwiched(d4, bit(35) | bit(19)), d4);
        assert_eq!(sandwiched(d4, bit(26) | bit(35)), 0);
        // a1 on the edge with b1 only: the edge does not bracket.
        assert_eq!(sandwiched(bit(0), bit(1)), 0);
    }

    #[test]
    fn nth_bit_picks_in_order() {
        let b = bit(3) | bit(9) | bit(40);
        assert_eq!(nth_bit(b, 0), 3);
        assert_eq!(nth_bit(b, 1), 9);
        assert_eq!(nth_bit(b, 2), 40);
    }
}
