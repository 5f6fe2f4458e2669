//! The transposition table, shared by all search threads without locks.
//!
//! Slots of 16 bytes in buckets of four (one cache line). A slot holds the
//! data word and the key XOR the data: a slot torn by two threads writing at
//! once no longer matches its key and is simply a miss (Hyatt's lockless
//! hashing). Replacement keeps the deeper and the more recent entries.

use cozy_chess::{Move, Piece, Square};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// What a stored score bounds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The exact score.
    Exact,
    /// At least this score (a cut-off).
    Lower,
    /// At most this score.
    Upper,
}

/// What the table holds about a position.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// The best move found, packed (see [`pack`]); 0 for none.
    pub mv: u16,
    /// The score, relative to the node for mates.
    pub score: i16,
    /// The static evaluation.
    pub eval: i16,
    /// The depth searched.
    pub depth: i32,
    /// What the score bounds.
    pub bound: Bound,
}

/// A move packed in 16 bits: from, to, promotion (0 is no move).
pub fn pack(mv: Move) -> u16 {
    let promo = match mv.promotion {
        None => 0,
        Some(Piece::Knight) => 1,
        Some(Piece::Bishop) => 2,
        Some(Piece::Rook) => 3,
        Some(_) => 4,
    };
    (mv.from as u16) | ((mv.to as u16) << 6) | (promo << 12)
}

/// The move of [`pack`]'s value, if any.
pub fn unpack(v: u16) -> Option<Move> {
    if v == 0 {
        return None;
    }
    let promotion = match v >> 12 {
        0 => None,
        1 => Some(Piece::Knight),
        2 => Some(Piece::Bishop),
        3 => Some(Piece::Rook),
        _ => Some(Piece::Queen),
    };
    Some(Move { from: Square::index((v & 63) as usize), to: Square::index(((v >> 6) & 63) as usize), promotion })
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

const BUCKET: usize = 4;

#[repr(align(64))]
#[derive(Default)]
struct Bucket([Slot; BUCKET]);

// The data word: move 0..16, score 16..32, eval 32..48, depth 48..56,
// bound 56..58, age 58..64. Depth is stored plus one so that an empty
// slot (all zero) never looks like a stored entry.
fn encode(mv: u16, score: i32, eval: i32, depth: i32, bound: Bound, age: u8) -> u64 {
    let bound = match bound {
        Bound::Exact => 1,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    (mv as u64)
        | ((score.clamp(-32000, 32000) as i16 as u16 as u64) << 16)
        | ((eval.clamp(-32000, 32000) as i16 as u16 as u64) << 32)
        | (((depth + 1).clamp(1, 255) as u64) << 48)
        | ((bound as u64) << 56)
        | (((age & 63) as u64) << 58)
}

fn decode(d: u64) -> Entry {
    Entry {
        mv: d as u16,
        score: (d >> 16) as u16 as i16,
        eval: (d >> 32) as u16 as i16,
        depth: ((d >> 48) & 255) as i32 - 1,
        bound: match (d >> 56) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        },
    }
}

fn depth_of(d: u64) -> i32 {
    ((d >> 48) & 255) as i32 - 1
}

fn age_of(d: u64) -> u8 {
    (d >> 58) as u8
}

/// The transposition table, shared by the search threads (lock-free).
pub struct Table {
    buckets: Vec<Bucket>,
    mask: usize,
    age: AtomicU8,
}

impl Table {
    /// A table of about `mb` megabytes (a power of two of buckets).
    pub fn new(mb: usize) -> Table {
        let bytes = mb.clamp(1, 4096) * 1024 * 1024;
        let want = bytes / std::mem::size_of::<Bucket>();
        let mut n = 1usize;
        while n * 2 <= want {
            n *= 2;
        }
        let mut buckets = Vec::with_capacity(n);
        buckets.resize_with(n, Bucket::default);
        Table { buckets, mask: n - 1, age: AtomicU8::new(0) }
    }

    /// Empty every slot (between games).
    pub fn clear(&mut self) {
        for b in self.buckets.iter_mut() {
            for s in b.0.iter_mut() {
                *s.check.get_mut() = 0;
                *s.data.get_mut() = 0;
            }
        }
        *self.age.get_mut() = 0;
    }

    /// A new search begins: older entries become the first to replace.
    pub fn new_search(&self) {
        let a = self.age.load(Ordering::Relaxed);
        self.age.store((a + 1) & 63, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        // The high bits pick the bucket; the slot check uses the whole key.
        &self.buckets[(key >> 20) as usize & self.mask]
    }

    /// Start loading the bucket of `key` into the cache, to be probed soon
    /// (a child position's, while its parent still decides about it).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: a prefetch is only a hint to the cache and never faults;
            // SSE is part of every x86_64 target.
            unsafe { std::arch::x86_64::_mm_prefetch(p, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry of `key`, if stored.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        for s in &self.bucket(key).0 {
            let d = s.data.load(Ordering::Relaxed);
            if d != 0 && s.check.load(Ordering::Relaxed) ^ d == key {
                return Some(decode(d));
            }
        }
        None
    }

    /// Store a search result, replacing an older or shallower entry.
    #[inline]
    pub fn store(&self, key: u64, mv: Option<Move>, score: i32, eval: i32, depth: i32, bound: Bound) {
        let age = self.age.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        // The slot of this position, else the least valuable one.
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for (i, s) in bucket.0.iter().enumerate() {
            let d = s.data.load(Ordering::Relaxed);
            if d == 0 || s.check.load(Ordering::Relaxed) ^ d == key {
                victim = i;
                break;
            }
            let stale = (age.wrapping_sub(age_of(d)) & 63) as i32;
            let worth = depth_of(d) - 8 * stale;
            if worth < victim_worth {
                victim_worth = worth;
                victim = i;
            }
        }
        let slot = &bucket.0[victim];
        let old = slot.data.load(Ordering::Relaxed);
        let same = old != 0 && slot.check.load(Ordering::Relaxed) ^ old == key;
        if same && bound != Bound::Exact && depth + 3 < depth_of(old) && age_of(old) == age {
            return; // keep the deeper analysis of the same position
        }
        let mv = match mv {
            Some(m) => pack(m),
            None if same => old as u16,
            None => 0,
        };
        let data = encode(mv, score, eval, depth, bound, age);
        slot.data.store(data, Ordering::Relaxed);
        slot.check.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of the first thousand slots written in this search (UCI hashfull).
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed);
        let mut used = 0;
        let mut seen = 0;
        'outer: for b in &self.buckets {
            for s in &b.0 {
                let d = s.data.load(Ordering::Relaxed);
                if d != 0 && age_of(d) == age {
                    used += 1;
                }
                seen += 1;
                if seen == 1000 {
                    break 'outer;
                }
            }
        }
        used * 1000 / seen.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_misses_are_misses() {
        let t = Table::new(1);
        let mv = Move { from: Square::E2, to: Square::E4, promotion: None };
        t.store(0x1234_5678_9abc_def0, Some(mv), -321, 45, 7, Bound::Lower);
        let e = t.probe(0x1234_5678_9abc_def0).expect("stored");
        assert_eq!((unpack(e.mv), e.score, e.eval, e.depth, e.bound), (Some(mv), -321, 45, 7, Bound::Lower));
        assert!(t.probe(0x1234_5678_9abc_def1).is_none());
        // A qsearch entry (depth 0) and a promotion.
        let promo = Move { from: Square::A7, to: Square::A8, promotion: Some(Piece::Knight) };
        t.store(42 << 20, Some(promo), 5, -5, 0, Bound::Exact);
        let e = t.probe(42 << 20).unwrap();
        assert_eq!((unpack(e.mv), e.depth, e.bound), (Some(promo), 0, Bound::Exact));
    }

    #[test]
    fn a_shallow_result_keeps_the_known_move() {
        let t = Table::new(1);
        let mv = Move { from: Square::G1, to: Square::F3, promotion: None };
        t.store(99, Some(mv), 10, 0, 3, Bound::Exact);
        t.store(99, None, 20, 0, 4, Bound::Upper);
        let e = t.probe(99).unwrap();
        assert_eq!((unpack(e.mv), e.score, e.depth), (Some(mv), 20, 4));
    }
}
