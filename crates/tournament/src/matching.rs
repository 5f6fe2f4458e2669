//! Maximum-cardinality matching in a general graph (Edmonds' blossom
//! algorithm, O(V³)). Pairing rules ask again and again whether a set of
//! players can all be paired, and how many pairs a group allows at most.

/// A matching over vertices `0..n`, grown by augmenting paths.
pub(crate) struct Matching {
    adj: Vec<Vec<usize>>,
    mate: Vec<usize>,
    // Scratch for the search.
    parent: Vec<usize>,
    base: Vec<usize>,
    used: Vec<bool>,
    blossom: Vec<bool>,
    queue: Vec<usize>,
}

const NONE: usize = usize::MAX;

impl Matching {
    /// An empty matching on the graph whose edges `edge(u, v)` (u < v) says.
    pub(crate) fn new(n: usize, mut edge: impl FnMut(usize, usize) -> bool) -> Matching {
        let mut adj = vec![Vec::new(); n];
        for u in 0..n {
            for v in u + 1..n {
                if edge(u, v) {
                    adj[u].push(v);
                    adj[v].push(u);
                }
            }
        }
        Matching {
            adj,
            mate: vec![NONE; n],
            parent: vec![NONE; n],
            base: (0..n).collect(),
            used: vec![false; n],
            blossom: vec![false; n],
            queue: Vec::with_capacity(n),
        }
    }

    /// Try to match the free vertex `root` by an augmenting path; vertices
    /// already matched stay matched. Returns whether it worked.
    pub(crate) fn augment_from(&mut self, root: usize) -> bool {
        if self.mate[root] != NONE {
            return true;
        }
        let mut v = self.find_path(root);
        if v == NONE {
            return false;
        }
        while v != NONE {
            let pv = self.parent[v];
            let ppv = self.mate[pv];
            self.mate[v] = pv;
            self.mate[pv] = v;
            v = ppv;
        }
        true
    }

    /// Augment from every free vertex; returns the number of pairs.
    pub(crate) fn maximize(&mut self) -> usize {
        for v in 0..self.mate.len() {
            if self.mate[v] == NONE {
                self.augment_from(v);
            }
        }
        self.size()
    }

    /// The number of matched pairs.
    pub(crate) fn size(&self) -> usize {
        self.mate.iter().filter(|&&m| m != NONE).count() / 2
    }

    fn lca(&mut self, mut a: usize, mut b: usize) -> usize {
        let mut seen = vec![false; self.mate.len()];
        loop {
            a = self.base[a];
            seen[a] = true;
            if self.mate[a] == NONE {
                break;
            }
            a = self.parent[self.mate[a]];
        }
        loop {
            b = self.base[b];
            if seen[b] {
                return b;
            }
            b = self.parent[self.mate[b]];
        }
    }

    fn mark_path(&mut self, mut v: usize, b: usize, mut child: usize) {
        while self.base[v] != b {
            self.blossom[self.base[v]] = true;
            self.blossom[self.base[self.mate[v]]] = true;
            self.parent[v] = child;
            child = self.mate[v];
            v = self.parent[self.mate[v]];
        }
    }

    fn find_path(&mut self, root: usize) -> usize {
        let n = self.mate.len();
        self.used.iter_mut().for_each(|u| *u = false);
        self.parent.iter_mut().for_each(|p| *p = NONE);
        for (i, b) in self.base.iter_mut().enumerate() {
            *b = i;
        }
        self.used[root] = true;
        self.queue.clear();
        self.queue.push(root);
        let mut head = 0;
        while head < self.queue.len() {
            let v = self.queue[head];
            head += 1;
            for k in 0..self.adj[v].len() {
                let to = self.adj[v][k];
                if self.base[v] == self.base[to] || self.mate[v] == to {
                    continue;
                }
                if to == root || (self.mate[to] != NONE && self.parent[self.mate[to]] != NONE) {
                    let cur = self.lca(v, to);
                    self.blossom.iter_mut().for_each(|b| *b = false);
                    self.mark_path(v, cur, to);
                    self.mark_path(to, cur, v);
                    for i in 0..n {
                        if self.blossom[self.base[i]] {
                            self.base[i] = cur;
                            if !self.used[i] {
                                self.used[i] = true;
                                self.queue.push(i);
                            }
                        }
                    }
                } else if self.parent[to] == NONE {
                    self.parent[to] = v;
                    if self.mate[to] == NONE {
                        return to;
                    }
                    let next = self.mate[to];
                    self.used[next] = true;
                    self.queue.push(next);
                }
            }
        }
        NONE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn max_pairs(n: usize, edge: impl FnMut(usize, usize) -> bool) -> usize {
        Matching::new(n, edge).maximize()
    }

    /// Brute force over all matchings, for checking small graphs.
    fn brute(n: usize, edges: &[(usize, usize)]) -> usize {
        fn go(free: u32, edges: &[(usize, usize)]) -> usize {
            let mut best = 0;
            for (i, &(u, v)) in edges.iter().enumerate() {
                if free & (1 << u) != 0 && free & (1 << v) != 0 {
                    best = best.max(1 + go(free & !(1 << u) & !(1 << v), &edges[i + 1..]));
                }
            }
            best
        }
        go((1u32 << n) - 1, edges)
    }

    #[test]
    fn odd_cycle_needs_a_blossom() {
        // A triangle with a tail: 0-1-2-0, 2-3, 3-4.
        let edges = [(0, 1), (1, 2), (0, 2), (2, 3), (3, 4)];
        let e = |u: usize, v: usize| edges.contains(&(u, v));
        assert_eq!(max_pairs(5, e), 2);
        // A 5-cycle plus a pendant on each vertex: perfect matching of 10.
        let mut edges: Vec<(usize, usize)> = (0..5).map(|i| (i.min((i + 1) % 5), i.max((i + 1) % 5))).collect();
        edges.extend((0..5).map(|i| (i, i + 5)));
        let e = |u: usize, v: usize| edges.contains(&(u, v));
        assert_eq!(max_pairs(10, e), 5);
    }

    #[test]
    fn agrees_with_brute_force_on_random_graphs() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..400 {
            let n = (next() % 11) as usize + 1;
            let mut edges = Vec::new();
            for u in 0..n {
                for v in u + 1..n {
                    if next() % 3 == 0 {
                        edges.push((u, v));
                    }
                }
            }
            let e = |u: usize, v: usize| edges.contains(&(u, v));
            assert_eq!(max_pairs(n, e), brute(n, &edges), "n={n} edges={edges:?}");
        }
    }
}
