//! The floods of a move (captures, empty bases, dissolving enclosures,
//! grounding) as free functions over the cell slice.
//!
//! The four floods of `rules.rs` share [`flood`]; grounding has its own
//! depth-first kernel. They take the cells, the four orthogonal offsets and
//! their list as separate arguments rather than `&mut Dots`, so the offsets
//! stay in registers, and read and write cells without bounds checks.
//!
//! Every neighbour is written back whether it is taken or not: which
//! neighbours a flood takes is random, and a branch on it mispredicts (a
//! branchy grounding flood made whole random games 8% slower).

use crate::cell::{Cell, Color, Mark};
use crate::scratch::CellList;

/// The cell at `c`. Every index a flood computes is a point of the board or
/// one of its orthogonal neighbours (the sentinel ring), because a flood
/// never steps from a sentinel cell; the debug build checks it.
#[inline(always)]
pub fn get(cells: &[Cell], c: usize) -> Cell {
    debug_assert!(c < cells.len());
    // SAFETY: `c` is inside the padded board (see above).
    unsafe { *cells.get_unchecked(c) }
}

/// Write the cell at `c` (see [`get`]).
#[inline(always)]
pub fn set(cells: &mut [Cell], c: usize, v: Cell) {
    debug_assert!(c < cells.len());
    // SAFETY: `c` is inside the padded board (see `get`).
    unsafe { *cells.get_unchecked_mut(c) = v }
}

/// A breadth-first flood with `list` as its queue: the cells of
/// `list[head..]` are marked `mark` and taken already. Each orthogonal
/// neighbour `v` of a taken cell is taken (marked and queued) when
/// `take(v)`; the flood returns whether `escape(v)` held for any neighbour
/// seen. Both tests must be false for a cell marked `mark`, so no cell is
/// taken twice. Every neighbour is written back, marked or not, so that
/// nothing branches on which neighbours are taken.
#[inline(always)]
pub fn flood(
    cells: &mut [Cell],
    orth: [isize; 4],
    list: &mut CellList,
    mut head: usize,
    mark: Mark,
    take: impl Fn(Cell) -> bool,
    escape: impl Fn(Cell) -> bool,
) -> bool {
    let mut escaped = false;
    while head < list.len() {
        let x = list.get(head) as isize;
        head += 1;
        for o in orth {
            let nb = (x + o) as usize;
            let v = get(cells, nb);
            escaped |= escape(v);
            let t = take(v);
            set(cells, nb, v.with(mark, t));
            list.push_if(nb, t);
        }
    }
    escaped
}

/// Ground `color`'s solid, ungrounded cells connected to `start` (already
/// marked grounded), with `stack` as the flood's stack. Returns how many
/// active dots of `color` and captured dots of `enemy` it grounded.
#[inline]
pub fn ground_from(
    cells: &mut [Cell],
    orth: [isize; 4],
    stack: &mut CellList,
    start: usize,
    color: Color,
    enemy: Color,
) -> (i32, i32) {
    stack.clear();
    stack.push(start);
    let (mut dots, mut points) = (0, 0);
    while let Some(x) = stack.pop() {
        let v = get(cells, x);
        dots += v.is_active(color) as i32;
        points += v.is_captured_dot(enemy) as i32;
        for o in orth {
            let nb = (x as isize + o) as usize;
            let nv = get(cells, nb);
            // The sentinel is never solid, so it is never taken.
            let take = nv.is_ungrounded_solid(color);
            set(cells, nb, nv.grounded_if(take));
            stack.push_if(nb, take);
        }
    }
    (dots, points)
}

/// Whether the point `c` of `color` touches the border or a grounded solid
/// point of `color` (so it is grounded), and whether it touches an
/// ungrounded solid point of `color` (which it would then ground too).
#[inline(always)]
pub fn grounding_contacts(cells: &[Cell], orth: [isize; 4], c: usize, color: Color) -> (bool, bool) {
    let (mut touches, mut lifts) = (false, false);
    for o in orth {
        let nv = get(cells, (c as isize + o) as usize);
        touches |= nv.is_border() | nv.is_grounded_solid(color);
        lifts |= nv.is_ungrounded_solid(color);
    }
    (touches, lifts)
}
