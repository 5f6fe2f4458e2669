//! The Dots engine: a flat board with a sentinel border, captures found
//! locally around the placed dot, incrementally kept enclosure flags,
//! grounding, scores and Zobrist hash.
//!
//! Regions (docs/rules/dots.md): for a player Q, a Q-region is a maximal set
//! of points connected by orthogonal steps holding no active Q dot. We treat
//! the sentinel ring around the board as non-Q points that belong to every
//! open region, so "open" means "reaches the sentinel".
//!
//! What is kept per cell (one `u16`): the dot and whether it is captured,
//! the territory owner, for each player whether the cell lies in an
//! *enclosed* region of that player (`ENCL`), and whether the cell is
//! grounded. Enclosure flags are exact at all times, which makes the
//! "placing into an enemy base" rule and the full-board test O(1). They
//! only change where regions change: when a move splits its own region
//! (a Moore contour trace from the placed dot decides which pieces are
//! enclosed, then only enclosed pieces are flooded) and when dots are
//! captured (only previously enclosed regions next to the capture are
//! flooded). Grounding only ever grows, so it is kept by flooding each cell
//! at most once per game.

use crate::options::{DotsOptions, Format, Stage};
use tabula_core::splitmix::mix;
use tabula_core::{Outcome, Player, Status};

/// A point of the board: the index of its cell in the padded array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(pub u16);

pub(crate) const DOT_MASK: u16 = 3;
pub(crate) const CAPTURED: u16 = 1 << 2;
pub(crate) const TERR_SHIFT: u16 = 3;
pub(crate) const TERR_MASK: u16 = 3 << TERR_SHIFT;
const ENCL_BLUE: u16 = 1 << 5;
const ENCL_RED: u16 = 1 << 6;
pub(crate) const GROUNDED: u16 = 1 << 7;
pub(crate) const OUTSIDE: u16 = 1 << 8;
/// Scratch marks, always clear between moves.
const MARK: u16 = 1 << 9;
const IN_S: u16 = 1 << 10;
const VISIT: u16 = 1 << 11;
const TEMP: u16 = MARK | IN_S | VISIT;

/// An empty point outside territories and outside every enclosed region.
const FREE_MASK: u16 = DOT_MASK | TERR_MASK | ENCL_BLUE | ENCL_RED | OUTSIDE;
/// A playable point: empty and outside territories.
const LEGAL_MASK: u16 = DOT_MASK | TERR_MASK | OUTSIDE;

/// Colours as stored in a cell: 1 blue, 2 red.
#[cfg(test)]
pub(crate) const BLUE: u8 = 1;
#[cfg(test)]
pub(crate) const RED: u8 = 2;

#[inline]
pub(crate) fn color_of(p: Player) -> u8 {
    p.index() as u8 + 1
}
#[inline]
pub(crate) fn player_of(color: u8) -> Player {
    Player::from_index(color as usize - 1)
}
#[inline]
fn encl(color: u8) -> u16 {
    1 << (4 + color)
}
#[inline]
fn is_active(v: u16, color: u8) -> bool {
    v & (DOT_MASK | CAPTURED) == color as u16
}
#[inline]
pub(crate) fn terr_of(v: u16) -> u8 {
    ((v & TERR_MASK) >> TERR_SHIFT) as u8
}
#[inline]
fn is_solid(v: u16, color: u8) -> bool {
    is_active(v, color) | (terr_of(v) == color)
}

/// Ring neighbour order, clockwise with y up: N, NE, E, SE, S, SW, W, NW.
const DX: [i32; 8] = [0, 1, 1, 1, 0, -1, -1, -1];
const DY: [i32; 8] = [1, 1, 0, -1, -1, -1, 0, 1];
/// After stepping in ring direction `j`, the direction (from the new cell)
/// of the last non-wall cell passed in the rotation: ring[j-1] - ring[j].
const BACKTRACK: [usize; 8] = [6, 6, 0, 0, 2, 2, 4, 4];

/// For each 8-bit mask of wall cells around a point (bit i = ring cell i),
/// the separate groups of non-wall orthogonal neighbours: `[count, dirs..]`.
/// Two orthogonal neighbours are in one group when the ring cells between
/// them hold no wall, so they stay connected once the point is filled.
/// Entries 5..9 give, for each group, a wall cell of the wall segment that
/// follows it clockwise (the segment between it and the next group).
const RING_GROUPS: [[u8; 9]; 256] = build_ring_groups();

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

/// Kinds: 0..4 dots (colour-1 + 2*captured), 4..6 territory (owner-1).
#[inline]
fn zkey(cell: usize, kind: usize) -> u64 {
    mix(((cell as u64) << 3) | kind as u64)
}
#[inline]
fn dot_kind(color: u8, captured: bool) -> usize {
    color as usize - 1 + 2 * captured as usize
}
const RED_TO_MOVE_KEY: u64 = 0x5bd1_e995_7f4a_7c15;

const TRACING: u8 = 0;
const ENCLOSED: u8 = 1;
const OPEN: u8 = 2;
const MERGED: u8 = 3;

/// A contour walk in progress (see `Dots::advance`).
#[derive(Debug, Clone, Copy)]
struct Trace {
    cur: usize,
    back: usize,
    x: i32,
    y: i32,
    area: i32,
    first: u8,
    seen: u8,
    state: u8,
}

impl Default for Trace {
    fn default() -> Self {
        Trace { cur: 0, back: 0, x: 0, y: 0, area: 0, first: 8, seen: 0, state: MERGED }
    }
}

impl Trace {
    fn start(c: usize, dir: usize, stride: usize) -> Trace {
        let (x, y) = ((c % stride) as i32, (c / stride) as i32);
        Trace { cur: c, back: dir, x, y, area: 0, first: 8, seen: 0, state: TRACING }
    }
}

/// A list of cells with room for every cell of the board, so a flood can
/// write each neighbour and keep it by moving the end only when it is
/// taken: which neighbours a flood takes is random, and branches on it
/// mispredict (they were the largest cost of a playout).
#[derive(Debug, Default)]
struct CellList {
    items: Vec<u16>,
    len: usize,
}

impl CellList {
    /// Make room for `cells` entries (a cell enters a list at most once per
    /// move, so that is enough, plus one slot for a write that is not kept).
    #[inline]
    fn make_room(&mut self, cells: usize) {
        if self.items.len() <= cells {
            self.items.resize(cells + 1, 0);
        }
    }
    #[inline]
    fn clear(&mut self) {
        self.len = 0;
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn get(&self, i: usize) -> usize {
        self.items[i] as usize
    }
    #[inline]
    fn push(&mut self, c: usize) {
        self.items[self.len] = c as u16;
        self.len += 1;
    }
    #[inline]
    fn pop(&mut self) -> Option<usize> {
        self.len = self.len.checked_sub(1)?;
        Some(self.items[self.len] as usize)
    }
    #[inline]
    fn push_if(&mut self, c: usize, keep: bool) {
        self.items[self.len] = c as u16;
        self.len += keep as usize;
    }
}

/// Scratch lists for floods; not part of the position.
#[derive(Debug, Default)]
struct Scratch {
    /// Cells of the pieces flooded by `take_piece` (MARK set).
    marked: CellList,
    /// Cells whose TEMP marks must be cleared after the move.
    taken: CellList,
    /// A region flooded by `dissolve`.
    comp: CellList,
    /// Cells that just became solid, for grounding.
    fresh: CellList,
    /// The grounding flood's stack.
    stack: CellList,
}

impl Scratch {
    /// Lists with room for a board of `cells` cells, made when a position
    /// is made rather than checked on every move.
    fn for_cells(cells: usize) -> Scratch {
        let mut scratch = Scratch::default();
        scratch.make_room(cells);
        scratch
    }

    fn make_room(&mut self, cells: usize) {
        for list in [&mut self.marked, &mut self.taken, &mut self.comp, &mut self.fresh, &mut self.stack] {
            list.make_room(cells);
        }
    }
}

/// A Dots game in progress.
#[derive(Debug)]
pub struct Dots {
    pub(crate) opts: DotsOptions,
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) stride: usize,
    pub(crate) cells: Vec<u16>,
    /// Playable points (empty, outside territories), in no order.
    legal: Vec<u16>,
    /// Where each cell sits in `legal` (u16::MAX when absent).
    legal_pos: Vec<u16>,
    pub(crate) offsets: [isize; 8],
    /// Per cell and colour, the ring mask of that colour's active dots
    /// around it (bit i: ring cell i), kept on every placement and capture
    /// so contour walks read one byte per step instead of eight cells.
    walls: Vec<[u8; 2]>,
    /// Union-find over dots of one colour linked in 8 directions (never split).
    chain: Vec<u16>,
    pub(crate) to_move: Player,
    pub(crate) plies: u32,
    score: [i32; 2],
    active: [i32; 2],
    grounded_active: [i32; 2],
    grounded_score: [i32; 2],
    /// Empty points outside territories and outside every enclosed region.
    free: i32,
    hash: u64,
    /// Set once a capture left active dots inside an enclosed region of
    /// their opponent (possible only with nested rings); from then on the
    /// engine also floods already-enclosed pieces to honour rule 1 exactly.
    irregular: bool,
    pub(crate) last: Option<Point>,
    scratch: Scratch,
}

impl Clone for Dots {
    fn clone(&self) -> Self {
        let mut d = Dots {
            opts: self.opts,
            width: self.width,
            height: self.height,
            stride: self.stride,
            cells: Vec::new(),
            legal: Vec::new(),
            legal_pos: Vec::new(),
            offsets: self.offsets,
            walls: Vec::new(),
            chain: Vec::new(),
            to_move: self.to_move,
            plies: self.plies,
            score: self.score,
            active: self.active,
            grounded_active: self.grounded_active,
            grounded_score: self.grounded_score,
            free: self.free,
            hash: self.hash,
            irregular: self.irregular,
            last: self.last,
            scratch: Scratch::for_cells(self.cells.len()),
        };
        d.cells.clone_from(&self.cells);
        d.legal.clone_from(&self.legal);
        d.legal_pos.clone_from(&self.legal_pos);
        d.walls.clone_from(&self.walls);
        d.chain.clone_from(&self.chain);
        d
    }

    fn clone_from(&mut self, src: &Self) {
        self.opts = src.opts;
        self.width = src.width;
        self.height = src.height;
        self.stride = src.stride;
        self.cells.clone_from(&src.cells);
        self.legal.clone_from(&src.legal);
        self.legal_pos.clone_from(&src.legal_pos);
        self.walls.clone_from(&src.walls);
        self.chain.clone_from(&src.chain);
        self.scratch.make_room(src.cells.len());
        self.offsets = src.offsets;
        self.to_move = src.to_move;
        self.plies = src.plies;
        self.score = src.score;
        self.active = src.active;
        self.grounded_active = src.grounded_active;
        self.grounded_score = src.grounded_score;
        self.free = src.free;
        self.hash = src.hash;
        self.irregular = src.irregular;
        self.last = src.last;
    }
}

impl Dots {
    /// An empty board (no cross) for these options.
    pub fn empty(opts: &DotsOptions) -> Dots {
        let width = opts.width.clamp(crate::options::MIN_SIDE, crate::options::MAX_SIDE) as usize;
        let height = opts.height.clamp(crate::options::MIN_SIDE, crate::options::MAX_SIDE) as usize;
        let stride = width + 2;
        let n = stride * (height + 2);
        let mut cells = vec![OUTSIDE; n];
        let mut legal = Vec::with_capacity(width * height);
        let mut legal_pos = vec![u16::MAX; n];
        for y in 1..=height {
            for x in 1..=width {
                let c = y * stride + x;
                cells[c] = 0;
                legal_pos[c] = legal.len() as u16;
                legal.push(c as u16);
            }
        }
        let s = stride as isize;
        Dots {
            opts: *opts,
            width,
            height,
            stride,
            cells,
            legal,
            legal_pos,
            offsets: [s, s + 1, 1, 1 - s, -s, -s - 1, -1, s - 1],
            walls: vec![[0; 2]; n],
            chain: (0..n as u16).collect(),
            to_move: Player::First,
            plies: 0,
            score: [0; 2],
            active: [0; 2],
            grounded_active: [0; 2],
            grounded_score: [0; 2],
            free: (width * height) as i32,
            hash: 0,
            irregular: false,
            last: None,
            scratch: Scratch::for_cells(n),
        }
    }

    /// The start position: the cross when the options ask for it.
    pub fn start(opts: &DotsOptions) -> Dots {
        let mut d = Dots::empty(opts);
        if opts.cross {
            let (cx, cy) = (d.width.div_ceil(2), d.height.div_ceil(2));
            for (x, y, p) in [
                (cx, cy, Player::First),
                (cx + 1, cy + 1, Player::First),
                (cx + 1, cy, Player::Second),
                (cx, cy + 1, Player::Second),
            ] {
                let c = d.cell(x, y);
                d.place_setup(p, Point(c as u16));
            }
        }
        d
    }

    #[inline]
    pub fn cell(&self, x: usize, y: usize) -> usize {
        y * self.stride + x
    }
    /// The point at (x, y), 1-based, if on the board.
    pub fn point(&self, x: usize, y: usize) -> Option<Point> {
        (x >= 1 && x <= self.width && y >= 1 && y <= self.height).then(|| Point(self.cell(x, y) as u16))
    }
    /// The 1-based coordinates of a point.
    #[inline]
    pub fn xy(&self, p: Point) -> (usize, usize) {
        let c = p.0 as usize;
        (c % self.stride, c / self.stride)
    }
    pub fn width(&self) -> usize {
        self.width
    }
    pub fn height(&self) -> usize {
        self.height
    }
    pub fn opts(&self) -> &DotsOptions {
        &self.opts
    }
    pub fn scores(&self) -> [i32; 2] {
        self.score
    }
    pub fn last_move(&self) -> Option<Point> {
        self.last
    }

    /// The dot at a point: its owner and whether it is captured.
    pub fn dot_at(&self, p: Point) -> Option<(Player, bool)> {
        let v = *self.cells.get(p.0 as usize)?;
        if v & OUTSIDE != 0 || v & DOT_MASK == 0 {
            return None;
        }
        Some((player_of((v & DOT_MASK) as u8), v & CAPTURED != 0))
    }
    /// Whose territory a point lies in.
    pub fn territory_at(&self, p: Point) -> Option<Player> {
        let v = *self.cells.get(p.0 as usize)?;
        match terr_of(v) {
            0 => None,
            t => Some(player_of(t)),
        }
    }
    /// Whether a point lies in an enclosed region of `q` (an empty base of
    /// `q` when it holds no dot and no territory).
    pub fn enclosed_by(&self, p: Point, q: Player) -> bool {
        self.cells.get(p.0 as usize).is_some_and(|&v| v & OUTSIDE == 0 && v & encl(color_of(q)) != 0)
    }
    /// Whether a solid point (active dot or territory) is grounded.
    pub fn is_grounded(&self, p: Point) -> bool {
        self.cells.get(p.0 as usize).is_some_and(|&v| v & OUTSIDE == 0 && v & GROUNDED != 0)
    }
    /// Whether a point can be played.
    #[inline]
    pub fn is_playable(&self, p: Point) -> bool {
        self.cells.get(p.0 as usize).is_some_and(|&v| v & LEGAL_MASK == 0)
    }
    /// Playable points, in no particular order.
    pub fn playable(&self) -> &[u16] {
        &self.legal
    }
    /// Active dots of a player.
    pub fn active_dots(&self, p: Player) -> i32 {
        self.active[p.index()]
    }
    /// Active dots of a player that are not grounded (U in the rules).
    pub fn ungrounded_dots(&self, p: Player) -> i32 {
        self.active[p.index()] - self.grounded_active[p.index()]
    }
    /// Opponent dots captured in the player's ungrounded territory (R).
    pub fn ungrounded_score(&self, p: Player) -> i32 {
        self.score[p.index()] - self.grounded_score[p.index()]
    }
    /// Empty points outside territories and outside every enclosed region.
    pub fn free_points(&self) -> i32 {
        self.free
    }
    pub fn position_hash(&self) -> u64 {
        self.hash
    }

    /// Whether `leader`'s lead is protected: the trailer could not even
    /// level the score by capturing every ungrounded dot of the leader and
    /// winning back its dots from the leader's ungrounded territory.
    #[inline]
    pub fn lead_protected(&self, leader: Player) -> bool {
        let (l, t) = (leader.index(), leader.other().index());
        let u = self.active[l] - self.grounded_active[l];
        let r = self.score[l] - self.grounded_score[l];
        self.score[t] + u + r < self.score[l]
    }

    pub fn leader(&self) -> Option<Player> {
        let [b, r] = self.score;
        if b > r {
            Some(Player::First)
        } else if r > b {
            Some(Player::Second)
        } else {
            None
        }
    }

    /// The status under the game's own format.
    pub fn compute_status(&self) -> Status {
        self.status_under(self.opts.format, self.opts.stage)
    }

    /// The status if the game were played under `format`/`stage`.
    #[inline]
    pub fn status_under(&self, format: Format, stage: Stage) -> Status {
        let leader = self.leader();
        if self.free == 0 {
            return Status::Over(match leader {
                Some(l) => Outcome::win(l, "board full"),
                None => Outcome::draw("board full"),
            });
        }
        let limit = match format {
            Format::Single => {
                return match leader {
                    Some(l) if self.lead_protected(l) => Status::Over(Outcome::win(l, "protected lead")),
                    _ => Status::Ongoing,
                }
            }
            Format::Express => 240,
            Format::Extended => 360,
            Format::Full => 720,
        };
        if self.plies >= limit {
            return match leader {
                Some(l) if self.plies == limit => Status::Over(Outcome::win(l, "move limit")),
                Some(l) => Status::Over(Outcome::win(l, "golden dot")),
                None if stage == Stage::Group => Status::Over(Outcome::draw("move limit")),
                None => Status::Ongoing,
            };
        }
        if format == Format::Full && self.plies >= 240 {
            if let Some(l) = leader {
                if self.lead_protected(l) {
                    return Status::Over(Outcome::win(l, "protected lead"));
                }
            }
        }
        Status::Ongoing
    }

    /// The hash computed from the board alone.
    pub fn hash_scratch(&self) -> u64 {
        let mut h = if self.to_move == Player::Second { RED_TO_MOVE_KEY } else { 0 };
        for (c, &v) in self.cells.iter().enumerate() {
            if v & OUTSIDE != 0 {
                continue;
            }
            let d = (v & DOT_MASK) as u8;
            if d != 0 {
                h ^= zkey(c, dot_kind(d, v & CAPTURED != 0));
            }
            let t = terr_of(v);
            if t != 0 {
                h ^= zkey(c, 3 + t as usize);
            }
        }
        h
    }

    /// Play a move for the side to move. A point that cannot be played is
    /// ignored (callers check legality first).
    #[inline]
    pub fn play_point(&mut self, p: Point) {
        if !self.is_playable(p) {
            debug_assert!(false, "unplayable point {p:?}");
            return;
        }
        let color = color_of(self.to_move);
        self.place(p.0 as usize, color);
        self.plies += 1;
        self.to_move = self.to_move.other();
        self.hash ^= RED_TO_MOVE_KEY;
        self.last = Some(p);
    }

    /// Place a dot of `who` that is not a move (the cross, SGF setup):
    /// captures are resolved, but the move count and the side to move stay.
    /// Returns false when the point cannot be played.
    pub fn place_setup(&mut self, who: Player, p: Point) -> bool {
        if !self.is_playable(p) {
            return false;
        }
        self.place(p.0 as usize, color_of(who));
        true
    }

    /// Set the side to move (records that do not alternate).
    pub fn set_to_move(&mut self, p: Player) {
        if p != self.to_move {
            self.to_move = p;
            self.hash ^= RED_TO_MOVE_KEY;
        }
    }

    #[inline]
    fn remove_legal(&mut self, c: usize) {
        let i = self.legal_pos[c];
        if i == u16::MAX {
            return;
        }
        let last = self.legal.pop().expect("legal list holds the cell");
        if last as usize != c {
            self.legal[i as usize] = last;
            self.legal_pos[last as usize] = i;
        }
        self.legal_pos[c] = u16::MAX;
    }

    /// Write a cell, keeping the free-point count.
    #[inline]
    fn write(&mut self, c: usize, v: u16) {
        let old = self.cells[c];
        self.free += (v & FREE_MASK == 0) as i32 - (old & FREE_MASK == 0) as i32;
        self.cells[c] = v;
    }

    /// The heart of the engine: `color` places a dot at the empty cell `c`.
    fn place(&mut self, c: usize, color: u8) {
        let enemy = 3 - color;
        let old = self.cells[c];
        let own_region_enclosed = old & encl(color) != 0;
        // The new dot is a wall for its owner: no longer in its own region.
        self.write(c, (old & !encl(color)) | color as u16);
        self.remove_legal(c);
        self.active[color as usize - 1] += 1;
        self.hash ^= zkey(c, dot_kind(color, false));
        self.set_wall(c, color, true);

        let mask = self.ring_mask(c, color) as usize;
        let groups = &RING_GROUPS[mask];
        let count = groups[0] as usize;
        let mut captured = false;
        self.scratch.taken.clear();
        self.scratch.marked.clear();
        self.scratch.fresh.clear();
        if count >= 2 {
            // The chains of the wall segments around the dot, before it
            // links them.
            let mut roots = [usize::MAX; 4];
            for g in 0..count {
                roots[g] = self.find((c as isize + self.offsets[groups[5 + g] as usize]) as usize);
            }
            if own_region_enclosed {
                // Inside an already enclosed region every piece is
                // enclosed; only nested rings (irregular) can leave enemy
                // dots in one.
                if self.irregular {
                    for g in 0..count {
                        let n = (c as isize + self.offsets[groups[1 + g] as usize]) as usize;
                        if self.cells[n] & MARK == 0 {
                            captured |= self.take_piece(n, color);
                        }
                    }
                }
            } else {
                captured = self.split_open_region(c, color, groups, &roots);
            }
            // Hang the new dot and the other chains under the first chain's
            // root, so trees stay shallow (the roots found above are still
            // roots: nothing since has linked chains).
            let top = roots[0];
            for &r in roots.iter().take(count).skip(1) {
                self.chain[r] = top as u16;
            }
            self.chain[c] = top as u16;
        } else if mask != 0 {
            // One wall segment: its dots are one chain already.
            // Hanging the dot under its neighbour is enough: the next find
            // through it halves the path.
            let n = (c as isize + self.offsets[mask.trailing_zeros() as usize]) as usize;
            self.chain[c] = n as u16;
        }
        for i in 0..self.scratch.marked.len() {
            let m = self.scratch.marked.get(i);
            self.cells[m] &= !MARK;
        }
        if captured {
            self.dissolve(enemy);
            self.scratch.fresh.push(c);
            self.ground(color);
        } else if old & encl(enemy) != 0 {
            // Rule 3: a dot placed into an enemy base is captured at once.
            self.fill_enemy_base(c, enemy);
            self.dissolve(color);
            self.ground(enemy);
        } else {
            // A lone new dot: grounded when it touches the border or a
            // grounded point of its owner; a flood is only needed when it
            // also touches ungrounded solid points it now grounds.
            let (touches, lifts) = self.grounding_contacts(c, color);
            if touches {
                if lifts {
                    self.scratch.fresh.push(c);
                    self.ground(color);
                } else {
                    self.cells[c] |= GROUNDED;
                    self.grounded_active[color as usize - 1] += 1;
                }
            }
        }
        for i in 0..self.scratch.taken.len() {
            let m = self.scratch.taken.get(i);
            self.cells[m] &= !TEMP;
        }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.chain[x] as usize != x {
            let up = self.chain[self.chain[x] as usize];
            self.chain[x] = up;
            x = up as usize;
        }
        x
    }

    /// The placed dot at `c` split its (open) region into pieces, one per
    /// group of the ring. Find the enclosed pieces and take them; returns
    /// whether anything was captured.
    ///
    /// A piece can only be enclosed if the dot closes a cycle: some wall
    /// segment's chain meets another segment's chain elsewhere. Chains are
    /// tracked by a union-find that never splits (captured dots stay in
    /// it), so it may see a cycle that is gone, never miss one. Groups on
    /// both sides of a segment whose chain meets no other segment are one
    /// piece. The remaining pieces are traced in lockstep: enclosed pieces
    /// close after their loop length, and exactly one piece is open, so the
    /// last unresolved one is open and its long outer contour is never
    /// walked.
    fn split_open_region(&mut self, c: usize, color: u8, groups: &[u8; 9], roots: &[usize; 4]) -> bool {
        let count = groups[0] as usize;
        // Without two segments on one chain the dot closes no cycle: the
        // common case, decided before any bookkeeping.
        if (1..count).all(|g| (0..g).all(|h| roots[h] != roots[g])) {
            return false;
        }
        // class[g]: the group standing for g's piece.
        let mut class = [0usize, 1, 2, 3];
        for g in 0..count {
            let shared = (0..count).any(|h| h != g && roots[h] == roots[g]);
            if !shared {
                let (a, b) = (class[g], class[(g + 1) % count]);
                for k in class.iter_mut().take(count) {
                    if *k == b {
                        *k = a;
                    }
                }
            }
        }
        let mut traces = [Trace::default(); 4];
        let mut unresolved = 0;
        for g in 0..count {
            if class[g] == g {
                traces[g] = Trace::start(c, groups[1 + g] as usize, self.stride);
                unresolved += 1;
            }
        }
        if unresolved < 2 {
            return false;
        }
        // A single point walled on all four sides is an enclosed piece
        // without a walk: the commonest capture and empty base by far.
        for g in 0..count {
            let n = (c as isize + self.offsets[groups[1 + g] as usize]) as usize;
            if class[g] == g && self.ring_mask(n, color) & 0x55 == 0x55 {
                traces[g].state = ENCLOSED;
                unresolved -= 1;
            }
        }
        let mut open_found = false;
        let mut chunk = 8;
        // Exactly one piece is open, so the walks can stop as soon as the
        // open one is known or only one piece is left unknown.
        let undecided = |unresolved: usize, open_found: bool| unresolved > 1 || (unresolved == 1 && open_found);
        while undecided(unresolved, open_found) && chunk < 1 << 24 {
            for g in 0..count {
                if traces[g].state != TRACING {
                    continue;
                }
                if !undecided(unresolved, open_found) {
                    break;
                }
                self.advance(&mut traces[g], c, color, chunk);
                let seen = traces[g].seen;
                for h in 0..count {
                    if h != g && traces[h].state == TRACING && seen & (1 << groups[1 + h]) != 0 {
                        traces[h].state = MERGED;
                    }
                }
                open_found |= traces[g].state == OPEN;
                unresolved = traces.iter().take(count).filter(|t| t.state == TRACING).count();
            }
            chunk *= 2;
        }
        let mut captured = false;
        for g in 0..count {
            if traces[g].state == ENCLOSED {
                let n = (c as isize + self.offsets[groups[1 + g] as usize]) as usize;
                if self.cells[n] & MARK == 0 {
                    captured |= self.take_piece(n, color);
                }
            }
        }
        captured
    }

    /// Walk up to `steps` steps of the wall of `color` dots around a piece
    /// touching `c`, keeping the piece on the backtrack side (Moore
    /// tracing). When the walk closes, the piece is enclosed exactly when
    /// the loop winds around it (positive signed area).
    fn advance(&self, t: &mut Trace, c: usize, color: u8, steps: usize) {
        for _ in 0..steps {
            // The ring of the current cell as a wall mask, searched from
            // just past the backtrack cell without branching per cell:
            // the walk is the hottest loop of capture detection.
            let ring = self.ring_mask(t.cur, color);
            let from = (t.back + 1) & 7;
            let ahead = ((ring | (ring << 8)) >> from) & 0x7f;
            if ahead == 0 {
                t.state = OPEN;
                return;
            }
            let j = (from + ahead.trailing_zeros() as usize) & 7;
            if t.cur == c {
                // The ring cells passed, back..j, lie in this piece.
                let mut i = t.back;
                while i != j {
                    t.seen |= 1 << i;
                    i = (i + 1) & 7;
                }
                if t.first == 8 {
                    t.first = j as u8;
                } else if j == t.first as usize {
                    t.state = if t.area > 0 { ENCLOSED } else { OPEN };
                    return;
                }
            }
            t.area += t.x * DY[j] - DX[j] * t.y;
            t.x += DX[j];
            t.y += DY[j];
            t.cur = (t.cur as isize + self.offsets[j]) as usize;
            t.back = BACKTRACK[j];
        }
    }

    /// Bit i set when ring cell i of `c` holds an active dot of `color`.
    #[inline]
    fn ring_mask(&self, c: usize, color: u8) -> u32 {
        self.walls[c][color as usize - 1] as u32
    }

    /// The dot of `color` at `c` became active (`on`) or was captured:
    /// update the ring masks of its eight neighbours.
    #[inline]
    fn set_wall(&mut self, c: usize, color: u8, on: bool) {
        let k = color as usize - 1;
        for (i, &o) in self.offsets.iter().enumerate() {
            // Seen from the neighbour, `c` lies in the opposite direction.
            let bit = 1u8 << ((i + 4) & 7);
            let ring = &mut self.walls[(c as isize + o) as usize][k];
            *ring = if on { *ring | bit } else { *ring & !bit };
        }
    }

    /// Flood the enclosed piece of `color`'s region holding `n`. With an
    /// active enemy dot inside it becomes `color`'s territory (true);
    /// otherwise it is an empty base. Either way it is marked enclosed.
    fn take_piece(&mut self, n: usize, color: u8) -> bool {
        let enemy = 3 - color;
        // The marked list is the flood's queue: [start, head) are done.
        let start = self.scratch.marked.len();
        self.cells[n] |= MARK;
        self.scratch.marked.push(n);
        let mut head = start;
        let mut has_enemy = false;
        let mut open = false;
        while head < self.scratch.marked.len() {
            let x = self.scratch.marked.get(head);
            head += 1;
            has_enemy |= is_active(self.cells[x], enemy);
            for d in [0usize, 2, 4, 6] {
                let nb = (x as isize + self.offsets[d]) as usize;
                let v = self.cells[nb];
                let fresh = (v & MARK == 0) & !is_active(v, color);
                open |= fresh & (v & OUTSIDE != 0);
                let take = fresh & (v & OUTSIDE == 0);
                self.cells[nb] = v | (take as u16 * MARK);
                self.scratch.marked.push_if(nb, take);
            }
        }
        if open {
            // Cannot happen for a piece the trace found enclosed; stay safe.
            debug_assert!(false, "enclosed piece reached the border");
            return false;
        }
        let flag = encl(color);
        for i in start..self.scratch.marked.len() {
            let m = self.scratch.marked.get(i);
            let v = self.cells[m];
            if v & flag == 0 {
                self.write(m, v | flag);
            }
        }
        if !has_enemy {
            return false;
        }
        for i in start..self.scratch.marked.len() {
            let m = self.scratch.marked.get(i);
            self.claim(m, color);
            self.cells[m] |= IN_S;
            self.scratch.taken.push(m);
            self.scratch.fresh.push(m);
        }
        true
    }

    /// Make cell `c` territory of `color`: capture an active enemy dot,
    /// move the score of a captured dot to its new owner.
    fn claim(&mut self, c: usize, color: u8) {
        let v = self.cells[c];
        let old_t = terr_of(v);
        let d = (v & DOT_MASK) as u8;
        let mut nv = v;
        if d != 0 {
            if v & CAPTURED == 0 {
                if d != color {
                    nv |= CAPTURED;
                    self.set_wall(c, d, false);
                    self.active[d as usize - 1] -= 1;
                    self.hash ^= zkey(c, dot_kind(d, false)) ^ zkey(c, dot_kind(d, true));
                    self.score[color as usize - 1] += 1;
                }
            } else if old_t != color {
                if old_t != 0 && d != old_t {
                    self.score[old_t as usize - 1] -= 1;
                }
                if d != color {
                    self.score[color as usize - 1] += 1;
                }
            }
        }
        if old_t != color {
            if old_t != 0 {
                self.hash ^= zkey(c, 3 + old_t as usize);
            }
            self.hash ^= zkey(c, 3 + color as usize);
            nv = (nv & !TERR_MASK) | ((color as u16) << TERR_SHIFT);
            if d == 0 && old_t == 0 {
                self.remove_legal(c);
            }
        }
        // A cell that changes hands was never grounded (grounded points
        // cannot be captured); clear the bit for the new owner's sake.
        debug_assert!(v & GROUNDED == 0 || is_solid(v, color), "grounded cell changed owner");
        if !is_solid(v, color) {
            nv &= !GROUNDED;
        }
        self.write(c, nv);
    }

    /// Rule 3: the enemy base holding `c` becomes the enemy's territory,
    /// capturing the dot just placed there.
    fn fill_enemy_base(&mut self, c: usize, enemy: u8) {
        // The taken list is the flood's queue.
        let start = self.scratch.taken.len();
        self.cells[c] |= IN_S;
        self.scratch.taken.push(c);
        let mut head = start;
        while head < self.scratch.taken.len() {
            let x = self.scratch.taken.get(head);
            head += 1;
            for d in [0usize, 2, 4, 6] {
                let nb = (x as isize + self.offsets[d]) as usize;
                let v = self.cells[nb];
                let take = (v & (OUTSIDE | IN_S) == 0) & !is_active(v, enemy);
                self.cells[nb] = v | (take as u16 * IN_S);
                self.scratch.taken.push_if(nb, take);
            }
        }
        for i in start..self.scratch.taken.len() {
            let m = self.scratch.taken.get(i);
            self.claim(m, enemy);
            self.scratch.fresh.push(m);
        }
    }

    /// `victim`'s dots in the cells marked IN_S were just captured, so its
    /// regions merge across them. Recompute the enclosure flag of every
    /// merged region: flood through the captured cells and previously
    /// enclosed cells only; touching any other non-wall cell means open.
    fn dissolve(&mut self, victim: u8) {
        let flag = encl(victim);
        let mut comp = std::mem::take(&mut self.scratch.comp);
        for i in 0..self.scratch.taken.len() {
            let s = self.scratch.taken.get(i);
            if self.cells[s] & VISIT != 0 {
                continue;
            }
            // The comp list is the flood's queue.
            comp.clear();
            comp.push(s);
            self.cells[s] |= VISIT;
            let mut open = false;
            let mut head = 0;
            while head < comp.len() {
                let x = comp.get(head);
                head += 1;
                for d in [0usize, 2, 4, 6] {
                    let nb = (x as isize + self.offsets[d]) as usize;
                    let v = self.cells[nb];
                    // The sentinel holds no flag, so it opens the region.
                    let fresh = (v & VISIT == 0) & !is_active(v, victim);
                    let inside = v & (IN_S | flag) != 0;
                    open |= fresh & !inside;
                    let take = fresh & inside;
                    self.cells[nb] = v | (take as u16 * VISIT);
                    comp.push_if(nb, take);
                }
            }
            for k in 0..comp.len() {
                let x = comp.get(k);
                let v = self.cells[x];
                let nv = if open { v & !flag } else { v | flag };
                if nv != v {
                    self.write(x, nv);
                }
                if v & IN_S == 0 {
                    // Remember it so the VISIT mark gets cleared.
                    self.scratch.taken.push(x);
                }
            }
            if !open {
                self.irregular = true;
            }
        }
        self.scratch.comp = comp;
    }

    /// Whether the point `c` of `color` touches the border or a grounded
    /// solid point of `color` (so it is grounded), and whether it touches an
    /// ungrounded solid point of `color` (which it would then ground too).
    #[inline]
    fn grounding_contacts(&self, c: usize, color: u8) -> (bool, bool) {
        let (mut touches, mut lifts) = (false, false);
        for d in [0usize, 2, 4, 6] {
            let nv = self.cells[(c as isize + self.offsets[d]) as usize];
            let solid = is_solid(nv, color);
            touches |= (nv & OUTSIDE != 0) | (solid & (nv & GROUNDED != 0));
            lifts |= solid & (nv & GROUNDED == 0);
        }
        (touches, lifts)
    }

    /// Ground `color`'s cells that just became solid (listed in `fresh`)
    /// when they touch the border or a grounded cell of `color`.
    fn ground(&mut self, color: u8) {
        let enemy = (3 - color) as u16;
        let mut stack = std::mem::take(&mut self.scratch.stack);
        for i in 0..self.scratch.fresh.len() {
            let c = self.scratch.fresh.get(i);
            let v = self.cells[c];
            if v & GROUNDED != 0 || !is_solid(v, color) {
                continue;
            }
            if !self.grounding_contacts(c, color).0 {
                continue;
            }
            stack.clear();
            stack.push(c);
            self.cells[c] |= GROUNDED;
            let (mut dots, mut points) = (0, 0);
            while let Some(x) = stack.pop() {
                let v = self.cells[x];
                dots += is_active(v, color) as i32;
                points += (v & (DOT_MASK | CAPTURED) == (enemy | CAPTURED)) as i32;
                for d in [0usize, 2, 4, 6] {
                    let nb = (x as isize + self.offsets[d]) as usize;
                    let nv = self.cells[nb];
                    let take = (nv & (GROUNDED | OUTSIDE) == 0) & is_solid(nv, color);
                    self.cells[nb] = nv | (take as u16 * GROUNDED);
                    stack.push_if(nb, take);
                }
            }
            self.grounded_active[color as usize - 1] += dots;
            self.grounded_score[color as usize - 1] += points;
        }
        self.scratch.stack = stack;
    }

    /// Uniformly random legal moves until the game is over or `max_plies`.
    pub fn random_fill(&mut self, rng: &mut rand::rngs::SmallRng, max_plies: u32) -> u32 {
        use rand::RngCore;
        let mut n = 0;
        while n < max_plies && !self.compute_status().is_over() {
            let len = self.legal.len();
            if len == 0 {
                break;
            }
            // Multiply-shift instead of rejection sampling: the bias is
            // below len / 2^32 (3e-7 on 39x32), and it saves a branchy call
            // per ply.
            let pick = ((rng.next_u32() as u64 * len as u64) >> 32) as usize;
            let c = self.legal[pick];
            self.play_point(Point(c));
            n += 1;
        }
        n
    }
}

/// A slow, literal implementation of the region rules, to test the fast
/// engine against: every region is recomputed by flood fill.
#[cfg(test)]
pub(crate) mod reference {
    use super::*;

    /// Per cell: dot colour (0 none), captured, territory owner.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct RefBoard {
        pub w: usize,
        pub h: usize,
        pub dot: Vec<u8>,
        pub captured: Vec<bool>,
        pub terr: Vec<u8>,
    }

    impl RefBoard {
        pub fn new(w: usize, h: usize) -> Self {
            RefBoard { w, h, dot: vec![0; w * h], captured: vec![false; w * h], terr: vec![0; w * h] }
        }
        fn active(&self, i: usize, color: u8) -> bool {
            self.dot[i] == color && !self.captured[i]
        }
        fn nbs(&self, i: usize) -> Vec<usize> {
            let (x, y) = (i % self.w, i / self.w);
            let mut v = Vec::new();
            if x > 0 {
                v.push(i - 1)
            }
            if x + 1 < self.w {
                v.push(i + 1)
            }
            if y > 0 {
                v.push(i - self.w)
            }
            if y + 1 < self.h {
                v.push(i + self.w)
            }
            v
        }
        fn border(&self, i: usize) -> bool {
            let (x, y) = (i % self.w, i / self.w);
            x == 0 || y == 0 || x + 1 == self.w || y + 1 == self.h
        }
        /// The `color`-region holding `i` and whether it is enclosed.
        pub fn region(&self, i: usize, color: u8) -> (Vec<usize>, bool) {
            let mut seen = vec![false; self.w * self.h];
            let mut out = vec![i];
            seen[i] = true;
            let mut k = 0;
            let mut enclosed = true;
            while k < out.len() {
                let x = out[k];
                k += 1;
                if self.border(x) {
                    enclosed = false;
                }
                for n in self.nbs(x) {
                    if !seen[n] && !self.active(n, color) {
                        seen[n] = true;
                        out.push(n);
                    }
                }
            }
            (out, enclosed)
        }
        pub fn playable(&self, i: usize) -> bool {
            self.dot[i] == 0 && self.terr[i] == 0
        }
        fn make_territory(&mut self, cells: &[usize], owner: u8) {
            for &x in cells {
                if self.dot[x] != 0 && self.dot[x] != owner {
                    self.captured[x] = true;
                }
                self.terr[x] = owner;
            }
        }
        /// Rules 1-3 literally.
        pub fn place(&mut self, i: usize, color: u8) {
            let enemy = 3 - color;
            self.dot[i] = color;
            let mut any = false;
            for n in self.nbs(i) {
                if self.active(n, color) {
                    continue;
                }
                let (cells, enclosed) = self.region(n, color);
                if enclosed && cells.iter().any(|&x| self.active(x, enemy)) {
                    self.make_territory(&cells, color);
                    any = true;
                }
            }
            if !any {
                let (cells, enclosed) = self.region(i, enemy);
                if enclosed {
                    self.make_territory(&cells, enemy);
                }
            }
        }
        pub fn score(&self) -> [i32; 2] {
            let mut s = [0; 2];
            for i in 0..self.w * self.h {
                if self.captured[i] && self.terr[i] != 0 && self.terr[i] != self.dot[i] {
                    s[self.terr[i] as usize - 1] += 1;
                }
            }
            s
        }
        /// Whether a solid cell of `color` reaches the border orthogonally.
        pub fn grounded(&self, color: u8) -> Vec<bool> {
            let solid = |x: usize| self.active(x, color) || self.terr[x] == color;
            let mut g = vec![false; self.w * self.h];
            let mut stack: Vec<usize> = (0..self.w * self.h).filter(|&x| self.border(x) && solid(x)).collect();
            for &x in &stack {
                g[x] = true;
            }
            while let Some(x) = stack.pop() {
                for n in self.nbs(x) {
                    if !g[n] && solid(n) {
                        g[n] = true;
                        stack.push(n);
                    }
                }
            }
            g
        }
        /// Empty points outside territories not in any enclosed region.
        pub fn free_points(&self) -> i32 {
            (0..self.w * self.h)
                .filter(|&x| self.playable(x) && !self.region(x, BLUE).1 && !self.region(x, RED).1)
                .count() as i32
        }
    }
}
