//! The transposition table: one entry per slot, always-replace unless the
//! stored entry is deeper and from the current search.

use cozy_chess::{Move, Piece, Square};

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

/// One table entry.
#[derive(Clone, Copy)]
pub struct Entry {
    /// The position's key.
    pub key: u64,
    /// The best move, packed (see [`pack`]).
    pub mv: u16,
    /// The score, relative to the node for mates.
    pub score: i16,
    /// The static evaluation.
    pub eval: i16,
    /// The depth searched.
    pub depth: i8,
    /// What the score bounds.
    pub bound: Bound,
    /// The search that wrote it.
    pub age: u8,
}

impl Entry {
    const EMPTY: Entry = Entry { key: 0, mv: 0, score: 0, eval: 0, depth: -1, bound: Bound::Upper, age: 0 };
}

/// A move packed in 16 bits: from, to, promotion.
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

/// The transposition table.
pub struct Table {
    entries: Vec<Entry>,
    mask: usize,
    /// The current search's age, for replacement.
    pub age: u8,
}

impl Table {
    /// A table of about `mb` megabytes (a power of two of entries).
    pub fn new(mb: usize) -> Table {
        let bytes = mb.clamp(1, 4096) * 1024 * 1024;
        let want = bytes / std::mem::size_of::<Entry>();
        let mut n = 1usize;
        while n * 2 <= want {
            n *= 2;
        }
        Table { entries: vec![Entry::EMPTY; n], mask: n - 1, age: 0 }
    }

    /// Forget every entry.
    pub fn clear(&mut self) {
        self.entries.fill(Entry::EMPTY);
        self.age = 0;
    }

    /// The entry of `key`, if stored.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = self.entries[key as usize & self.mask];
        (e.key == key && e.depth >= 0).then_some(e)
    }

    /// Store a search result, replacing an older or shallower entry.
    #[inline]
    pub fn store(&mut self, key: u64, mv: Option<Move>, score: i32, eval: i32, depth: i32, bound: Bound) {
        let slot = &mut self.entries[key as usize & self.mask];
        if slot.key == key || slot.age != self.age || depth as i8 >= slot.depth - 2 || bound == Bound::Exact {
            let mv = match mv {
                Some(m) => pack(m),
                None if slot.key == key => slot.mv,
                None => 0,
            };
            *slot = Entry {
                key,
                mv,
                score: score.clamp(-32000, 32000) as i16,
                eval: eval.clamp(-32000, 32000) as i16,
                depth: depth.clamp(0, 127) as i8,
                bound,
                age: self.age,
            };
        }
    }

    /// Permille of the first thousand slots in use this search (UCI hashfull).
    pub fn hashfull(&self) -> u32 {
        let n = self.entries.len().min(1000);
        self.entries[..n].iter().filter(|e| e.depth >= 0 && e.age == self.age).count() as u32 * 1000 / n as u32
    }
}
