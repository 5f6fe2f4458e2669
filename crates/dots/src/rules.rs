//! The Dots rules: [`Dots`], a flat board with a sentinel border, captures
//! found locally around the placed dot, incrementally kept enclosure flags,
//! grounding, scores and Zobrist hash, and its `impl Game`.
//!
//! Regions (docs/rules/dots.md): for a player Q, a Q-region is a maximal set
//! of points connected by orthogonal steps holding no active Q dot. We treat
//! the sentinel ring around the board as non-Q points that belong to every
//! open region, so "open" means "reaches the sentinel".
//!
//! Each point is a `Cell` (in `cell.rs`): its dot and whether it is captured, the
//! territory owner, for each player whether the point lies in an *enclosed*
//! region of that player, and whether it is grounded. Enclosure flags are
//! exact at all times, which makes the "placing into an enemy base" rule and
//! the full-board test O(1). They only change where regions change: when a
//! move splits its own region (a Moore contour trace from the placed dot
//! decides which pieces are enclosed, then only enclosed pieces are flooded)
//! and when dots are captured (only previously enclosed regions next to the
//! capture are flooded). Grounding only ever grows, so it is kept by
//! flooding each point at most once per game.

use crate::cell::{color_of, enemy_of, player_of, Cell, Color, Mark};
use crate::flood::{flood, ground_from, grounding_contacts};
use crate::options::{DotsOptions, MAX_SIDE, MIN_SIDE};
use crate::ring::{self, Trace, Walk, BACKTRACK, DX, DY, ORTHOGONAL, RING_GROUPS};
use crate::scratch::Scratch;
use rand::rngs::SmallRng;
use tabula_core::splitmix::mix;
use tabula_core::{Game, NotationError, Player, Status};

/// A point of the board: the index of its cell in the padded array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(pub u16);

/// The Zobrist key of a dot or territory at `cell`. Kinds: 0..4 dots
/// (colour-1 + 2*captured), 4..6 territory (owner-1).
#[inline]
fn zkey(cell: usize, kind: usize) -> u64 {
    mix(((cell as u64) << 3) | kind as u64)
}
#[inline]
fn dot_kind(color: Color, captured: bool) -> usize {
    color as usize - 1 + 2 * captured as usize
}
#[inline]
fn territory_kind(owner: Color) -> usize {
    3 + owner as usize
}
const RED_TO_MOVE_KEY: u64 = 0x5bd1_e995_7f4a_7c15;

/// A Dots game in progress.
#[derive(Debug)]
pub struct Dots {
    options: DotsOptions,
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) stride: usize,
    cells: Vec<Cell>,
    /// Playable points (empty, outside territories), in no order.
    legal: Vec<u16>,
    /// Where each cell sits in `legal` (u16::MAX when absent).
    legal_pos: Vec<u16>,
    offsets: [isize; 8],
    /// Per cell and colour, the ring mask of that colour's active dots
    /// around it (bit i: ring cell i), kept on every placement and capture
    /// so contour walks read one byte per step instead of eight cells.
    walls: Vec<[u8; 2]>,
    /// Union-find over dots of one colour linked in 8 directions (never split).
    chain: Vec<u16>,
    to_move: Player,
    plies: u32,
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
    last: Option<Point>,
    scratch: Scratch,
}

impl Clone for Dots {
    fn clone(&self) -> Self {
        let mut d = Dots {
            options: self.options,
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
        self.options = src.options;
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
    pub fn empty(options: &DotsOptions) -> Dots {
        let width = options.width.clamp(MIN_SIDE, MAX_SIDE) as usize;
        let height = options.height.clamp(MIN_SIDE, MAX_SIDE) as usize;
        let stride = width + 2;
        let n = stride * (height + 2);
        let mut cells = vec![Cell::BORDER; n];
        let mut legal = Vec::with_capacity(width * height);
        let mut legal_pos = vec![u16::MAX; n];
        for y in 1..=height {
            for x in 1..=width {
                let c = y * stride + x;
                cells[c] = Cell::EMPTY;
                legal_pos[c] = legal.len() as u16;
                legal.push(c as u16);
            }
        }
        Dots {
            options: *options,
            width,
            height,
            stride,
            cells,
            legal,
            legal_pos,
            offsets: ring::offsets(stride),
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

    /// The same position as if `plies` plies had been played to reach it
    /// (for records and tests that start at a given move number); the move
    /// limits of the championship formats count from it.
    pub fn with_plies(mut self, plies: u32) -> Dots {
        self.plies = plies;
        self
    }

    /// The index of the cell of (x, y), 1-based, in the padded array.
    #[inline]
    fn index(&self, x: usize, y: usize) -> usize {
        y * self.stride + x
    }
    /// The point at (x, y), 1-based, if on the board.
    pub fn point(&self, x: usize, y: usize) -> Option<Point> {
        (x >= 1 && x <= self.width && y >= 1 && y <= self.height).then(|| Point(self.index(x, y) as u16))
    }
    /// The 1-based coordinates of a point.
    #[inline]
    pub fn xy(&self, p: Point) -> (usize, usize) {
        let c = p.0 as usize;
        (c % self.stride, c / self.stride)
    }
    /// Every point of the board, row by row from y = 1.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        (1..=self.height).flat_map(move |y| (1..=self.width).map(move |x| Point(self.index(x, y) as u16)))
    }
    /// The orthogonal neighbours of a point that are on the board.
    pub fn neighbours(&self, p: Point) -> impl Iterator<Item = Point> + '_ {
        ORTHOGONAL.iter().map(move |&d| (p.0 as isize + self.offsets[d]) as usize).filter_map(move |n| {
            let on_board = self.cells.get(n).is_some_and(|c| !c.is_border());
            on_board.then_some(Point(n as u16))
        })
    }
    /// One more than the largest point index: the length of an array
    /// indexed by `Point::0`.
    pub fn point_index_limit(&self) -> usize {
        self.cells.len()
    }
    /// The board's width.
    pub fn width(&self) -> usize {
        self.width
    }
    /// The board's height.
    pub fn height(&self) -> usize {
        self.height
    }
    /// The scores: opponent dots captured by Blue and by Red.
    #[inline]
    pub fn scores(&self) -> [i32; 2] {
        self.score
    }
    /// The last dot placed by a move.
    pub fn last_move(&self) -> Option<Point> {
        self.last
    }

    /// The cell at a point: the sentinel border for anything off the board.
    #[inline]
    fn cell_at(&self, p: Point) -> Cell {
        self.cells.get(p.0 as usize).copied().unwrap_or(Cell::BORDER)
    }
    /// The dot at a point: its owner and whether it is captured.
    pub fn dot_at(&self, p: Point) -> Option<(Player, bool)> {
        let v = self.cell_at(p);
        (!v.is_border() && v.has_dot()).then(|| (player_of(v.dot_color()), v.is_captured()))
    }
    /// Whose territory a point lies in.
    pub fn territory_at(&self, p: Point) -> Option<Player> {
        match self.cell_at(p).territory() {
            0 => None,
            t => Some(player_of(t)),
        }
    }
    /// Whether a point lies in an enclosed region of `q` (an empty base of
    /// `q` when it holds no dot and no territory).
    pub fn enclosed_by(&self, p: Point, q: Player) -> bool {
        let v = self.cell_at(p);
        !v.is_border() && v.is_enclosed_by(color_of(q))
    }
    /// Whether a solid point (active dot or territory) is grounded.
    pub fn is_grounded(&self, p: Point) -> bool {
        let v = self.cell_at(p);
        !v.is_border() && v.is_grounded()
    }
    /// Whether a point is on the board.
    pub fn is_on_board(&self, p: Point) -> bool {
        !self.cell_at(p).is_border()
    }
    /// Whether a point can be played.
    #[inline]
    pub fn is_playable(&self, p: Point) -> bool {
        self.cells.get(p.0 as usize).is_some_and(|v| v.is_playable())
    }
    /// Whether any of the eight neighbours of a point holds a dot.
    #[inline]
    pub fn touches_dot(&self, p: Point) -> bool {
        self.offsets.iter().any(|&o| self.cells[(p.0 as isize + o) as usize].has_dot())
    }
    /// Playable points, in no particular order.
    #[inline]
    pub fn playable(&self) -> &[u16] {
        &self.legal
    }
    /// Active dots of a player.
    #[inline]
    pub fn active_dots(&self, p: Player) -> i32 {
        self.active[p.index()]
    }
    /// Active dots of a player that are not grounded (U in the rules).
    #[inline]
    pub fn ungrounded_dots(&self, p: Player) -> i32 {
        self.active[p.index()] - self.grounded_active[p.index()]
    }
    /// Opponent dots captured in the player's ungrounded territory (R).
    #[inline]
    pub fn ungrounded_score(&self, p: Player) -> i32 {
        self.score[p.index()] - self.grounded_score[p.index()]
    }
    /// Empty points outside territories and outside every enclosed region.
    #[inline]
    pub fn free_points(&self) -> i32 {
        self.free
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

    /// The cell at index `c`, without a bounds check. Every index the
    /// engine computes is a point of the board or one of its eight
    /// neighbours (the sentinel ring), because floods and walks never step
    /// from a sentinel cell; the debug build checks it.
    #[inline(always)]
    fn at(&self, c: usize) -> Cell {
        debug_assert!(c < self.cells.len());
        // SAFETY: `c` is inside the padded board (see above).
        unsafe { *self.cells.get_unchecked(c) }
    }

    /// Write the cell at index `c` (see [`Dots::at`]); keeps no count.
    #[inline(always)]
    fn put(&mut self, c: usize, v: Cell) {
        debug_assert!(c < self.cells.len());
        // SAFETY: `c` is inside the padded board (see `at`).
        unsafe { *self.cells.get_unchecked_mut(c) = v }
    }

    /// The parent of `c` in the chain union-find (see [`Dots::at`]).
    #[inline(always)]
    fn link(&self, c: usize) -> u16 {
        debug_assert!(c < self.chain.len());
        // SAFETY: `chain` has one entry per cell and `c` is a cell.
        unsafe { *self.chain.get_unchecked(c) }
    }

    /// Set the parent of `c` in the chain union-find.
    #[inline(always)]
    fn set_link(&mut self, c: usize, parent: u16) {
        debug_assert!(c < self.chain.len());
        // SAFETY: `chain` has one entry per cell and `c` is a cell.
        unsafe { *self.chain.get_unchecked_mut(c) = parent }
    }

    /// Write a cell, keeping the free-point count.
    #[inline]
    fn write(&mut self, c: usize, v: Cell) {
        let old = self.at(c);
        self.free += v.is_free() as i32 - old.is_free() as i32;
        self.put(c, v);
    }

    /// The neighbour of cell `x` in ring direction `d`.
    #[inline(always)]
    fn step(&self, x: usize, d: usize) -> usize {
        (x as isize + self.offsets[d]) as usize
    }

    /// The offsets of the orthogonal neighbours, N, E, S, W, for the floods.
    #[inline(always)]
    fn orth(&self) -> [isize; 4] {
        ORTHOGONAL.map(|d| self.offsets[d])
    }

    /// Play a move known to be playable.
    #[inline(always)]
    fn play_playable(&mut self, p: Point) {
        let color = color_of(self.to_move);
        self.place(p.0 as usize, color);
        self.plies += 1;
        self.to_move = self.to_move.other();
        self.hash ^= RED_TO_MOVE_KEY;
        self.last = Some(p);
    }

    /// The heart of the engine: `color` places a dot at the empty cell `c`.
    fn place(&mut self, c: usize, color: Color) {
        let enemy = enemy_of(color);
        let old = self.at(c);
        let own_region_enclosed = old.is_enclosed_by(color);
        // The new dot is a wall for its owner: no longer in its own region.
        // A playable point may be free; a dot is not.
        self.free -= old.is_free() as i32;
        self.put(c, old.with_dot(color));
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
                roots[g] = self.find(self.step(c, groups[5 + g] as usize));
            }
            if own_region_enclosed {
                // Inside an already enclosed region every piece is
                // enclosed; only nested rings (irregular) can leave enemy
                // dots in one.
                if self.irregular {
                    for g in 0..count {
                        let n = self.step(c, groups[1 + g] as usize);
                        if !self.at(n).marked(Mark::Piece) {
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
                self.set_link(r, top as u16);
            }
            self.set_link(c, top as u16);
        } else if mask != 0 {
            // One wall segment: its dots are one chain already. Hanging
            // the dot beside its neighbour (under the neighbour's parent)
            // keeps the tree no deeper; later finds halve the paths.
            let n = self.step(c, mask.trailing_zeros() as usize);
            self.set_link(c, self.link(n));
        }
        for i in 0..self.scratch.marked.len() {
            let m = self.scratch.marked.get(i);
            self.put(m, self.at(m).without(Mark::Piece));
        }
        if captured {
            self.dissolve(enemy);
            self.scratch.fresh.push(c);
            self.ground(color);
        } else if old.is_enclosed_by(enemy) {
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
                    self.put(c, self.at(c).grounded());
                    self.grounded_active[color as usize - 1] += 1;
                }
            }
        }
        for i in 0..self.scratch.taken.len() {
            let m = self.scratch.taken.get(i);
            self.put(m, self.at(m).without_marks());
        }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.link(x) as usize != x {
            let up = self.link(self.link(x) as usize);
            self.set_link(x, up);
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
    fn split_open_region(&mut self, c: usize, color: Color, groups: &[u8; 9], roots: &[usize; 4]) -> bool {
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
            let n = self.step(c, groups[1 + g] as usize);
            if class[g] == g && self.ring_mask(n, color) & 0x55 == 0x55 {
                traces[g].state = Walk::Enclosed;
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
                if traces[g].state != Walk::Tracing {
                    continue;
                }
                if !undecided(unresolved, open_found) {
                    break;
                }
                self.advance(&mut traces[g], c, color, chunk);
                let seen = traces[g].seen;
                for h in 0..count {
                    if h != g && traces[h].state == Walk::Tracing && seen & (1 << groups[1 + h]) != 0 {
                        traces[h].state = Walk::Merged;
                    }
                }
                open_found |= traces[g].state == Walk::Open;
                unresolved = traces.iter().take(count).filter(|t| t.state == Walk::Tracing).count();
            }
            chunk *= 2;
        }
        let mut captured = false;
        for g in 0..count {
            if traces[g].state == Walk::Enclosed {
                let n = self.step(c, groups[1 + g] as usize);
                if !self.at(n).marked(Mark::Piece) {
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
    fn advance(&self, t: &mut Trace, c: usize, color: Color, steps: usize) {
        for _ in 0..steps {
            // The ring of the current cell as a wall mask, searched from
            // just past the backtrack cell without branching per cell:
            // the walk is the hottest loop of capture detection.
            let ring = self.ring_mask(t.cur, color);
            let from = (t.back + 1) & 7;
            let ahead = ((ring | (ring << 8)) >> from) & 0x7f;
            if ahead == 0 {
                t.state = Walk::Open;
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
                    t.state = if t.area > 0 { Walk::Enclosed } else { Walk::Open };
                    return;
                }
            }
            t.area += t.x * DY[j] - DX[j] * t.y;
            t.x += DX[j];
            t.y += DY[j];
            t.cur = self.step(t.cur, j);
            t.back = BACKTRACK[j];
        }
    }

    /// Bit i set when ring cell i of `c` holds an active dot of `color`.
    #[inline]
    fn ring_mask(&self, c: usize, color: Color) -> u32 {
        debug_assert!(c < self.walls.len());
        // SAFETY: `walls` has one entry per cell and `c` is a cell.
        unsafe { self.walls.get_unchecked(c)[color as usize - 1] as u32 }
    }

    /// The dot of `color` at `c` became active (`on`) or was captured:
    /// update the ring masks of its eight neighbours.
    #[inline(always)]
    fn set_wall(&mut self, c: usize, color: Color, on: bool) {
        let k = color as usize - 1;
        // Local copies: writing a ring must not make the offsets reload.
        let offsets = self.offsets;
        let walls = &mut self.walls[..];
        for (i, o) in offsets.into_iter().enumerate() {
            // Seen from the neighbour, `c` lies in the opposite direction.
            let bit = 1u8 << ((i + 4) & 7);
            let n = (c as isize + o) as usize;
            debug_assert!(n < walls.len());
            // SAFETY: `c` is a point of the board, so its eight neighbours
            // are cells of the padded array.
            let ring = unsafe { &mut walls.get_unchecked_mut(n)[k] };
            *ring = if on { *ring | bit } else { *ring & !bit };
        }
    }

    /// Flood the enclosed piece of `color`'s region holding `n`. With an
    /// active enemy dot inside it becomes `color`'s territory (true);
    /// otherwise it is an empty base. Either way it is marked enclosed.
    fn take_piece(&mut self, n: usize, color: Color) -> bool {
        let enemy = enemy_of(color);
        // The marked list is the flood's queue: [start, head) are done.
        let start = self.scratch.marked.len();
        self.put(n, self.at(n).with(Mark::Piece, true));
        self.scratch.marked.push(n);
        let orth = self.orth();
        // The sentinel is never marked nor active: reaching it means open.
        let open = flood(
            &mut self.cells,
            orth,
            &mut self.scratch.marked,
            start,
            Mark::Piece,
            |v| !v.marked(Mark::Piece) & !v.is_active(color) & !v.is_border(),
            |v| v.is_border(),
        );
        if open {
            // Cannot happen for a piece the trace found enclosed; stay safe.
            debug_assert!(false, "enclosed piece reached the border");
            return false;
        }
        let mut has_enemy = false;
        for i in start..self.scratch.marked.len() {
            let m = self.scratch.marked.get(i);
            let v = self.at(m);
            has_enemy |= v.is_active(enemy);
            if !v.is_enclosed_by(color) {
                self.write(m, v.enclosed(color, true));
            }
        }
        if !has_enemy {
            return false;
        }
        for i in start..self.scratch.marked.len() {
            let m = self.scratch.marked.get(i);
            self.claim(m, color);
            self.put(m, self.at(m).with(Mark::Taken, true));
            self.scratch.taken.push(m);
            self.scratch.fresh.push(m);
        }
        true
    }

    /// Make cell `c` territory of `color`: capture an active enemy dot,
    /// move the score of a captured dot to its new owner.
    fn claim(&mut self, c: usize, color: Color) {
        let v = self.at(c);
        let old_t = v.territory();
        let d = v.dot_color();
        let mut nv = v;
        if d != 0 {
            if !v.is_captured() {
                if d != color {
                    nv = nv.captured();
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
                self.hash ^= zkey(c, territory_kind(old_t));
            }
            self.hash ^= zkey(c, territory_kind(color));
            nv = nv.with_territory(color);
            if d == 0 && old_t == 0 {
                self.remove_legal(c);
            }
        }
        // A cell that changes hands was never grounded (grounded points
        // cannot be captured); clear the bit for the new owner's sake.
        debug_assert!(!v.is_grounded() || v.is_solid(color), "grounded cell changed owner");
        if !v.is_solid(color) {
            nv = nv.ungrounded();
        }
        self.write(c, nv);
    }

    /// Rule 3: the enemy base holding `c` becomes the enemy's territory,
    /// capturing the dot just placed there.
    fn fill_enemy_base(&mut self, c: usize, enemy: Color) {
        // The taken list is the flood's queue.
        let start = self.scratch.taken.len();
        self.put(c, self.at(c).with(Mark::Taken, true));
        self.scratch.taken.push(c);
        let orth = self.orth();
        flood(
            &mut self.cells,
            orth,
            &mut self.scratch.taken,
            start,
            Mark::Taken,
            |v| !v.is_border() & !v.marked(Mark::Taken) & !v.is_active(enemy),
            |_| false,
        );
        for i in start..self.scratch.taken.len() {
            let m = self.scratch.taken.get(i);
            self.claim(m, enemy);
            self.scratch.fresh.push(m);
        }
    }

    /// `victim`'s dots in the cells marked [`Mark::Taken`] were just
    /// captured, so its regions merge across them. Recompute the enclosure
    /// flag of every merged region: flood through the captured cells and
    /// previously enclosed cells only; touching any other non-wall cell
    /// means open.
    fn dissolve(&mut self, victim: Color) {
        let mut comp = std::mem::take(&mut self.scratch.comp);
        let orth = self.orth();
        for i in 0..self.scratch.taken.len() {
            let s = self.scratch.taken.get(i);
            if self.at(s).marked(Mark::Visit) {
                continue;
            }
            // The comp list is the flood's queue.
            comp.clear();
            comp.push(s);
            self.put(s, self.at(s).with(Mark::Visit, true));
            // The sentinel holds no flag, so it opens the region.
            let fresh = move |v: Cell| !v.marked(Mark::Visit) & !v.is_active(victim);
            let inside = move |v: Cell| v.enclosed_by_or_marked(victim, Mark::Taken);
            let open = flood(
                &mut self.cells,
                orth,
                &mut comp,
                0,
                Mark::Visit,
                |v| fresh(v) & inside(v),
                |v| fresh(v) & !inside(v),
            );
            for k in 0..comp.len() {
                let x = comp.get(k);
                let v = self.at(x);
                let nv = v.enclosed(victim, !open);
                if nv != v {
                    self.write(x, nv);
                }
                if !v.marked(Mark::Taken) {
                    // Remember it so the Visit mark gets cleared.
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
    fn grounding_contacts(&self, c: usize, color: Color) -> (bool, bool) {
        grounding_contacts(&self.cells, self.orth(), c, color)
    }

    /// Ground `color`'s cells that just became solid (listed in `fresh`)
    /// when they touch the border or a grounded cell of `color`.
    fn ground(&mut self, color: Color) {
        let enemy = enemy_of(color);
        let mut stack = std::mem::take(&mut self.scratch.stack);
        let orth = self.orth();
        for i in 0..self.scratch.fresh.len() {
            let c = self.scratch.fresh.get(i);
            let v = self.at(c);
            if v.is_grounded() || !v.is_solid(color) {
                continue;
            }
            if !self.grounding_contacts(c, color).0 {
                continue;
            }
            self.put(c, v.grounded());
            let (dots, points) = ground_from(&mut self.cells, orth, &mut stack, c, color, enemy);
            self.grounded_active[color as usize - 1] += dots;
            self.grounded_score[color as usize - 1] += points;
        }
        self.scratch.stack = stack;
    }
}

impl Game for Dots {
    type Move = Point;
    type Options = DotsOptions;

    const ID: &'static str = "dots";
    const NAME: &'static str = "Dots";
    const PLAYERS: [&'static str; 2] = ["blue", "red"];

    /// The start position: the cross when the options ask for it.
    fn new(options: &DotsOptions) -> Self {
        let mut d = Dots::empty(options);
        if options.cross {
            let (cx, cy) = (d.width.div_ceil(2), d.height.div_ceil(2));
            for (x, y, p) in [
                (cx, cy, Player::First),
                (cx + 1, cy + 1, Player::First),
                (cx + 1, cy, Player::Second),
                (cx, cy + 1, Player::Second),
            ] {
                let c = d.index(x, y);
                d.place_setup(p, Point(c as u16));
            }
        }
        d
    }

    fn from_position(_position: &str, _options: &DotsOptions) -> Result<Self, NotationError> {
        Err(NotationError::new(
            "Dots has no position notation: start from the options (width, height, cross) and play moves, \
             or import an SGF record",
        ))
    }

    fn position(&self) -> Option<String> {
        None
    }

    fn options(&self) -> &DotsOptions {
        &self.options
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn legal_moves(&self, out: &mut Vec<Point>) {
        out.clear();
        if self.status().is_over() {
            return;
        }
        out.extend(self.playable().iter().map(|&c| Point(c)));
        out.sort_unstable();
    }

    /// Play a move for the side to move. A point that cannot be played is
    /// ignored (callers check legality first).
    #[inline]
    fn play(&mut self, p: Point) {
        if !self.is_playable(p) {
            debug_assert!(false, "unplayable point {p:?}");
            return;
        }
        self.play_playable(p);
    }

    /// The status under the game's own format (see [`Dots::status_under`]).
    #[inline]
    fn status(&self) -> Status {
        self.status_under(self.options.format, self.options.stage)
    }

    #[inline]
    fn plies(&self) -> u32 {
        self.plies
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let mut h = if self.to_move == Player::Second { RED_TO_MOVE_KEY } else { 0 };
        for (c, &v) in self.cells.iter().enumerate() {
            if v.is_border() {
                continue;
            }
            let d = v.dot_color();
            if d != 0 {
                h ^= zkey(c, dot_kind(d, v.is_captured()));
            }
            let t = v.territory();
            if t != 0 {
                h ^= zkey(c, territory_kind(t));
            }
        }
        h
    }

    fn parse_move(&self, text: &str) -> Result<Point, NotationError> {
        crate::notation::parse_point(self, text)
    }

    fn format_move(&self, mv: Point) -> String {
        crate::notation::point_name(self, mv)
    }

    fn score(&self) -> Option<[i32; 2]> {
        Some(self.scores())
    }

    fn explain_illegal(&self, mv: Point) -> String {
        let name = self.format_move(mv);
        if let Some((who, captured)) = self.dot_at(mv) {
            let colour = Self::PLAYERS[who.index()];
            return if captured {
                format!("{name} holds a captured {colour} dot, which stays out of play")
            } else {
                format!("{name} already holds a {colour} dot")
            };
        }
        if let Some(owner) = self.territory_at(mv) {
            return format!("{name} is inside {}'s territory", Self::PLAYERS[owner.index()]);
        }
        if !self.is_on_board(mv) {
            return format!("{name} is off the board");
        }
        "not a legal move in this position".into()
    }

    /// Uniformly random legal moves until the game is over or `max_plies`,
    /// picked from the list of playable points without building a move list.
    fn random_playout(&mut self, rng: &mut SmallRng, _moves: &mut Vec<Point>, max_plies: u32) -> u32 {
        use rand::RngCore;
        let mut n = 0;
        while n < max_plies && !self.status().is_over() {
            let len = self.legal.len();
            if len == 0 {
                break;
            }
            // Multiply-shift instead of rejection sampling: the bias is
            // below len / 2^32 (3e-7 on 39x32), and it saves a branchy call
            // per ply.
            let pick = ((rng.next_u32() as u64 * len as u64) >> 32) as usize;
            // The list holds playable points only.
            let c = self.legal[pick];
            self.play_playable(Point(c));
            n += 1;
        }
        n
    }
}
