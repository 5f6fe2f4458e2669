//! One point of the board as the engine keeps it: a [`Cell`] of 16 bits.
//! This module is the only one that knows which bit means what; the rest
//! of the crate asks a `Cell` questions.
//!
//! Every question is a mask and a comparison, inlined, so the floods and
//! contour walks that call them in their hottest loops stay branch-free:
//! `cell.with(Mark::Visit, take)` sets a mark only when `take` holds, by
//! arithmetic rather than by a jump.

use tabula_core::Player;

/// The colour of a dot as stored: 1 for Blue (the first player), 2 for Red.
pub type Color = u8;

/// Blue, the first player.
pub const BLUE: Color = 1;
/// Red, the second player.
pub const RED: Color = 2;

/// The colour of a player's dots.
#[inline(always)]
pub fn color_of(p: Player) -> Color {
    p.index() as Color + 1
}

/// The player of a colour (1 or 2).
#[inline(always)]
pub fn player_of(color: Color) -> Player {
    Player::from_index(color as usize - 1)
}

/// The other colour.
#[inline(always)]
pub fn enemy_of(color: Color) -> Color {
    3 - color
}

// The bits of a cell.
const DOT_MASK: u16 = 3;
const CAPTURED: u16 = 1 << 2;
const TERR_SHIFT: u16 = 3;
const TERR_MASK: u16 = 3 << TERR_SHIFT;
const ENCL_SHIFT: u16 = 4;
const ENCL_BLUE: u16 = 1 << (ENCL_SHIFT + BLUE as u16);
const ENCL_RED: u16 = 1 << (ENCL_SHIFT + RED as u16);
const GROUNDED: u16 = 1 << 7;
const OUTSIDE: u16 = 1 << 8;
// Bits 9 to 11 are the scratch marks.
/// "Solid for Blue" (an active Blue dot or Blue territory); Red's is the
/// next bit. Redundant with the dot and territory bits, kept so that the
/// grounding floods test solidity with one mask.
const SOLID_SHIFT: u16 = 11;
const SOLID_MASK: u16 = 3 << (SOLID_SHIFT + 1);
/// An empty point outside territories and outside every enclosed region.
const FREE_MASK: u16 = DOT_MASK | TERR_MASK | ENCL_BLUE | ENCL_RED | OUTSIDE;
/// A playable point: empty and outside territories.
const LEGAL_MASK: u16 = DOT_MASK | TERR_MASK | OUTSIDE;

/// Scratch marks the floods of one move set and clear again before the
/// move ends; between moves every cell is clear of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u16)]
pub enum Mark {
    /// In a piece flooded by `take_piece`.
    Piece = 1 << 9,
    /// In the region just taken (captured dots and new territory).
    Taken = 1 << 10,
    /// Visited by `dissolve`.
    Visit = 1 << 11,
}

const MARKS: u16 = Mark::Piece as u16 | Mark::Taken as u16 | Mark::Visit as u16;

/// One point of the board: its dot (and whether it is captured), its
/// territory owner, for each colour whether it lies in an enclosed region
/// of that colour, whether it is grounded, whether it is the sentinel
/// border outside the board, the scratch [`Mark`]s, and for which colour it
/// is solid (kept beside the dot and territory for the grounding floods).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct Cell(u16);

impl Cell {
    /// An empty point of the board.
    pub const EMPTY: Cell = Cell(0);
    /// The sentinel ring around the board.
    pub const BORDER: Cell = Cell(OUTSIDE);

    /// The colour of the dot here, captured or not; 0 when there is none.
    #[inline(always)]
    pub fn dot_color(self) -> Color {
        (self.0 & DOT_MASK) as Color
    }
    /// Whether a dot (of either colour, captured or not) is here.
    #[inline(always)]
    pub fn has_dot(self) -> bool {
        self.0 & DOT_MASK != 0
    }
    /// Whether the dot here is captured.
    #[inline(always)]
    pub fn is_captured(self) -> bool {
        self.0 & CAPTURED != 0
    }
    /// Whether an active (uncaptured) dot of `color` is here.
    #[inline(always)]
    pub fn is_active(self, color: Color) -> bool {
        self.0 & (DOT_MASK | CAPTURED) == color as u16
    }
    /// Whether a captured dot of `color` is here.
    #[inline(always)]
    pub fn is_captured_dot(self, color: Color) -> bool {
        self.0 & (DOT_MASK | CAPTURED) == (color as u16 | CAPTURED)
    }
    /// The territory owner's colour; 0 when none.
    #[inline(always)]
    pub fn territory(self) -> Color {
        ((self.0 & TERR_MASK) >> TERR_SHIFT) as Color
    }
    /// Whether the point is solid for `color`: an active dot of it, or its
    /// territory.
    #[inline(always)]
    pub fn is_solid(self, color: Color) -> bool {
        self.0 & solid_flag(color) != 0
    }
    /// Whether the point is solid for `color` and not yet grounded.
    #[inline(always)]
    pub fn is_ungrounded_solid(self, color: Color) -> bool {
        self.0 & (solid_flag(color) | GROUNDED) == solid_flag(color)
    }
    /// Whether the point is solid for `color` and grounded.
    #[inline(always)]
    pub fn is_grounded_solid(self, color: Color) -> bool {
        self.0 & (solid_flag(color) | GROUNDED) == solid_flag(color) | GROUNDED
    }
    /// Whether the point lies in an enclosed region of `color`.
    #[inline(always)]
    pub fn is_enclosed_by(self, color: Color) -> bool {
        self.0 & enclosed_flag(color) != 0
    }
    /// Whether the point is grounded.
    #[inline(always)]
    pub fn is_grounded(self) -> bool {
        self.0 & GROUNDED != 0
    }
    /// Whether this is the sentinel border, not a point of the board.
    #[inline(always)]
    pub fn is_border(self) -> bool {
        self.0 & OUTSIDE != 0
    }
    /// An empty point outside territories and every enclosed region.
    #[inline(always)]
    pub fn is_free(self) -> bool {
        self.0 & FREE_MASK == 0
    }
    /// Whether a dot can be placed here: empty, on the board, outside
    /// territories.
    #[inline(always)]
    pub fn is_playable(self) -> bool {
        self.0 & LEGAL_MASK == 0
    }
    /// Whether the scratch mark `m` is set.
    #[inline(always)]
    pub fn marked(self, m: Mark) -> bool {
        self.0 & m as u16 != 0
    }
    /// Whether the point is in an enclosed region of `color` or marked `m`.
    #[inline(always)]
    pub fn enclosed_by_or_marked(self, color: Color, m: Mark) -> bool {
        self.0 & (enclosed_flag(color) | m as u16) != 0
    }

    /// This cell with mark `m` set when `on` (without a branch).
    #[inline(always)]
    pub fn with(self, m: Mark, on: bool) -> Cell {
        Cell(self.0 | (on as u16 * m as u16))
    }
    /// This cell with every scratch mark cleared.
    #[inline(always)]
    pub fn without_marks(self) -> Cell {
        Cell(self.0 & !MARKS)
    }
    /// This cell with mark `m` cleared.
    #[inline(always)]
    pub fn without(self, m: Mark) -> Cell {
        Cell(self.0 & !(m as u16))
    }
    /// This cell in (`on`) or out of an enclosed region of `color`.
    #[inline(always)]
    pub fn enclosed(self, color: Color, on: bool) -> Cell {
        let flag = enclosed_flag(color);
        Cell(if on { self.0 | flag } else { self.0 & !flag })
    }
    /// This cell with its dot captured.
    #[inline(always)]
    pub fn captured(self) -> Cell {
        Cell((self.0 | CAPTURED) & !solid_flag(self.dot_color()))
    }
    /// This cell as `color`'s territory.
    #[inline(always)]
    pub fn with_territory(self, color: Color) -> Cell {
        // A territory's dot, if any, is captured: the owner alone is solid.
        Cell((self.0 & !(TERR_MASK | SOLID_MASK)) | ((color as u16) << TERR_SHIFT) | solid_flag(color))
    }
    /// This cell grounded.
    #[inline(always)]
    pub fn grounded(self) -> Cell {
        Cell(self.0 | GROUNDED)
    }
    /// This cell grounded when `on` (without a branch).
    #[inline(always)]
    pub fn grounded_if(self, on: bool) -> Cell {
        Cell(self.0 | (on as u16 * GROUNDED))
    }
    /// This cell no longer grounded.
    #[inline(always)]
    pub fn ungrounded(self) -> Cell {
        Cell(self.0 & !GROUNDED)
    }
    /// This empty cell holding a new dot of `color` (no longer in an
    /// enclosed region of its own colour: the dot is a wall for it).
    #[inline(always)]
    pub fn with_dot(self, color: Color) -> Cell {
        Cell((self.0 & !enclosed_flag(color)) | color as u16 | solid_flag(color))
    }
}

/// The bit saying "solid for `color`"; none for colour 0.
#[inline(always)]
fn solid_flag(color: Color) -> u16 {
    (1 << (SOLID_SHIFT + color as u16)) & SOLID_MASK
}

/// The bit saying "in an enclosed region of `color`".
#[inline(always)]
fn enclosed_flag(color: Color) -> u16 {
    1 << (ENCL_SHIFT + color as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_read_back_what_was_written() {
        let c = Cell::EMPTY.with_dot(RED);
        assert!(c.has_dot() && c.is_active(RED) && !c.is_active(BLUE) && !c.is_playable());
        assert!(c.is_solid(RED) && c.is_ungrounded_solid(RED) && !c.is_solid(BLUE));
        assert!(!c.captured().is_solid(RED), "a captured dot is solid for nobody until its territory is");
        assert!(c.grounded().is_grounded_solid(RED) && !c.grounded().is_ungrounded_solid(RED));
        let c = c.captured().with_territory(BLUE);
        assert!(c.is_captured_dot(RED) && c.territory() == BLUE && c.is_solid(BLUE) && !c.is_solid(RED));
        // Recaptured: Red's territory now, solid for Red alone.
        let r = c.with_territory(RED);
        assert!(r.is_solid(RED) && !r.is_solid(BLUE) && r.territory() == RED);
        let e = Cell::EMPTY.enclosed(BLUE, true);
        assert!(e.is_enclosed_by(BLUE) && !e.is_enclosed_by(RED) && e.is_playable() && !e.is_free());
        assert!(Cell::BORDER.is_border() && !Cell::BORDER.is_playable());
        let m = Cell::EMPTY.with(Mark::Visit, true).with(Mark::Piece, false);
        assert!(m.marked(Mark::Visit) && !m.marked(Mark::Piece));
        assert_eq!(m.without_marks(), Cell::EMPTY);
        assert!(Cell::EMPTY.grounded_if(true).is_grounded() && !Cell::EMPTY.grounded_if(false).is_grounded());
        assert_eq!(player_of(color_of(Player::Second)), Player::Second);
    }
}
