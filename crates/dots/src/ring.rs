//! The ring of eight points around a point, and what the engine reads from
//! it: the separate groups of free neighbours a new dot leaves (one
//! lookup in a table built at compile time) and the steps of a contour walk.
//!
//! Ring order is clockwise with y up: N, NE, E, SE, S, SW, W, NW; bit `i`
//! of a ring mask is ring point `i`.

/// The x step of each ring direction.
pub const DX: [i32; 8] = [0, 1, 1, 1, 0, -1, -1, -1];
/// The y step of each ring direction.
pub const DY: [i32; 8] = [1, 1, 0, -1, -1, -1, 0, 1];
/// After stepping in ring direction `j`, the direction (from the new point)
/// of the last non-wall point passed in the rotation: ring[j-1] - ring[j].
pub const BACKTRACK: [usize; 8] = [6, 6, 0, 0, 2, 2, 4, 4];
/// The orthogonal directions (N, E, S, W), the four a region connects by.
pub const ORTHOGONAL: [usize; 4] = [0, 2, 4, 6];

/// The offsets of the ring directions in a padded board with rows of
/// `stride` cells (y grows with the index).
pub const fn offsets(stride: usize) -> [isize; 8] {
    let s = stride as isize;
    [s, s + 1, 1, 1 - s, -s, -s - 1, -1, s - 1]
}

/// For each 8-bit mask of wall points around a point, the separate groups
/// of non-wall orthogonal neighbours: `[count, dirs..]`. Two orthogonal
/// neighbours are in one group when the ring points between them hold no
/// wall, so they stay connected once the point is filled. Entries 5..9
/// give, for each group, a wall point of the wall segment that follows it
/// clockwise (the segment between it and the next group).
pub static RING_GROUPS: [[u8; 9]; 256] = build_ring_groups();

const fn ring_wall(m: usize, i: usize) -> bool {
    (m >> (i & 7)) & 1 == 1
}

const fn build_ring_groups() -> [[u8; 9]; 256] {
    let mut table = [[0u8; 9]; 256];
    let mut m = 0usize;
    while m < 256 {
        // An orthogonal non-wall neighbour not linked to the previous one.
        let mut start = 8;
        let mut k = 0;
        while k < 4 {
            let i = 2 * k;
            if !ring_wall(m, i) && (ring_wall(m, i + 6) || ring_wall(m, i + 7)) {
                start = i;
                break;
            }
            k += 1;
        }
        if start == 8 {
            if !ring_wall(m, 0) {
                table[m][0] = 1;
                table[m][1] = 0;
            }
        } else {
            let mut count = 0;
            let mut k = 0;
            while k < 4 {
                let i = (start + 2 * k) % 8;
                if !ring_wall(m, i) {
                    let linked = k > 0 && !ring_wall(m, i + 6) && !ring_wall(m, i + 7);
                    if !linked {
                        table[m][1 + count] = i as u8;
                        count += 1;
                    }
                }
                k += 1;
            }
            table[m][0] = count as u8;
            let mut g = 0;
            while g < count {
                let mut j = table[m][1 + g] as usize + 1;
                while !ring_wall(m, j) {
                    j += 1;
                }
                table[m][5 + g] = (j % 8) as u8;
                g += 1;
            }
        }
        m += 1;
    }
    table
}

/// Where a contour walk stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// Still walking.
    Tracing,
    /// The walk closed around its piece: the piece is enclosed.
    Enclosed,
    /// The piece reaches the border.
    Open,
    /// Another walk found this piece to be its own.
    Merged,
}

/// A contour walk in progress (see `Dots::advance`): Moore tracing of the
/// wall around one piece of a region, from the point just played.
#[derive(Debug, Clone, Copy)]
pub struct Trace {
    /// The wall point the walk stands on.
    pub cur: usize,
    /// The ring direction (from `cur`) of the last non-wall point passed.
    pub back: usize,
    /// Coordinates of `cur`, for the signed area.
    pub x: i32,
    /// See `x`.
    pub y: i32,
    /// Twice the signed area swept so far.
    pub area: i32,
    /// The first direction taken from the start point (8 before any).
    pub first: u8,
    /// Ring points of the start point passed so far (their groups are this piece).
    pub seen: u8,
    /// Where the walk stands.
    pub state: Walk,
}

impl Default for Trace {
    fn default() -> Self {
        Trace { cur: 0, back: 0, x: 0, y: 0, area: 0, first: 8, seen: 0, state: Walk::Merged }
    }
}

impl Trace {
    /// A walk from cell `c` (in a board of rows of `stride` cells) whose
    /// piece lies in ring direction `dir`.
    pub fn start(c: usize, dir: usize, stride: usize) -> Trace {
        let (x, y) = ((c % stride) as i32, (c / stride) as i32);
        Trace { cur: c, back: dir, x, y, area: 0, first: 8, seen: 0, state: Walk::Tracing }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_of_free_neighbours() {
        // No wall: one group.
        assert_eq!(RING_GROUPS[0][0], 1);
        // Walls N and S (bits 0 and 4): E and W are separate groups.
        let m = 0b0001_0001;
        assert_eq!(&RING_GROUPS[m][..3], &[2, 2, 6]);
        // Walled on all four orthogonal sides: no free neighbour.
        assert_eq!(RING_GROUPS[0x55][0], 0);
    }
}
