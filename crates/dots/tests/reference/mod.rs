//! A slow, literal implementation of the region rules, to test the fast
//! engine against: every region is recomputed by flood fill.

use tabula_core::Player;

/// Colours as the reference stores them: 1 blue, 2 red.
pub const BLUE: u8 = 1;
/// See [`BLUE`].
pub const RED: u8 = 2;

/// The reference colour of a player.
pub fn color_of(p: Player) -> u8 {
    p.index() as u8 + 1
}

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
        (0..self.w * self.h).filter(|&x| self.playable(x) && !self.region(x, BLUE).1 && !self.region(x, RED).1).count()
            as i32
    }
}
