//! Scratch lists for the floods of one move: not part of the position,
//! sized once when a position is made so no move allocates.

/// A list of cells with room for every cell of the board, so a flood can
/// write each neighbour and keep it by moving the end only when it is
/// taken: which neighbours a flood takes is random, and branches on it
/// mispredict (they were the largest cost of a playout).
#[derive(Debug, Default)]
pub struct CellList {
    items: Vec<u16>,
    len: usize,
}

impl CellList {
    /// Make room for `cells` entries (a cell enters a list at most once per
    /// move, so that is enough, plus one slot for a write that is not kept).
    #[inline]
    pub fn make_room(&mut self, cells: usize) {
        if self.items.len() <= cells {
            self.items.resize(cells + 1, 0);
        }
    }
    /// Empty the list.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }
    /// How many cells it holds.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }
    /// The `i`-th cell.
    #[inline(always)]
    pub fn get(&self, i: usize) -> usize {
        self.items[i] as usize
    }
    /// Add a cell.
    #[inline(always)]
    pub fn push(&mut self, c: usize) {
        self.items[self.len] = c as u16;
        self.len += 1;
    }
    /// Take the last cell.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<usize> {
        self.len = self.len.checked_sub(1)?;
        Some(self.items[self.len] as usize)
    }
    /// Write `c` after the end and keep it when `keep` (without a branch).
    #[inline(always)]
    pub fn push_if(&mut self, c: usize, keep: bool) {
        self.items[self.len] = c as u16;
        self.len += keep as usize;
    }
}

/// The lists a move's floods use.
#[derive(Debug, Default)]
pub struct Scratch {
    /// Cells of the pieces flooded by `take_piece` (marked [`crate::cell::Mark::Piece`]).
    pub marked: CellList,
    /// Cells whose scratch marks must be cleared after the move.
    pub taken: CellList,
    /// A region flooded by `dissolve`.
    pub comp: CellList,
    /// Cells that just became solid, for grounding.
    pub fresh: CellList,
    /// The grounding flood's stack.
    pub stack: CellList,
}

impl Scratch {
    /// Lists with room for a board of `cells` cells, made when a position
    /// is made rather than checked on every move.
    pub fn for_cells(cells: usize) -> Scratch {
        let mut scratch = Scratch::default();
        scratch.make_room(cells);
        scratch
    }

    /// Make room in every list for a board of `cells` cells.
    pub fn make_room(&mut self, cells: usize) {
        for list in [&mut self.marked, &mut self.taken, &mut self.comp, &mut self.fresh, &mut self.stack] {
            list.make_room(cells);
        }
    }
}
