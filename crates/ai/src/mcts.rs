//! Generic Monte Carlo tree search (UCT).
//!
//! The tree is a flat arena of nodes; a node's children are contiguous, so
//! a node needs no child vector. States are not stored: each iteration
//! replays the path from a scratch copy of the root. After a search the tree
//! is kept, and the next search starts from the subtree of the position
//! actually reached (tree reuse), found by its hash. Several threads share
//! one tree or grow one each ([`Parallelism`]).

use crate::Rng;
use rand::seq::SliceRandom;
use rand::Rng as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tabula_core::{Agent, Game, Player, Status, ThinkContext};

/// How a search is budgeted and tuned.
#[derive(Debug, Clone)]
pub struct MctsConfig {
    /// Stop after this many iterations (playouts).
    pub iterations: Option<u64>,
    /// Stop after this much time (also capped by the clock).
    pub time: Option<Duration>,
    /// UCT exploration constant for rewards in 0..1.
    pub exploration: f64,
    /// The seed of the search's random choices.
    pub seed: u64,
    /// Keep the tree between moves and start from the reached position's subtree.
    pub reuse_tree: bool,
    /// Stop growing the tree past this many nodes (memory cap).
    pub max_nodes: usize,
    /// Visits a leaf takes (each valued by a playout from it) before it
    /// grows its children; the root always grows them. Games with hundreds
    /// of moves a position raise it so the tree does not fill its memory
    /// cap with children that are never visited.
    pub expand_after: u32,
    /// RAVE (rapid action value estimation): `Some(k)` blends each child's
    /// own mean with its all-moves-as-first mean, weighted
    /// `β = sqrt(k / (3n + k))` after `n` visits, so the AMAF mean guides a
    /// move until about `k` visits of its own. Needs a policy that reports
    /// [`Policy::amaf_key`] and [`Policy::playout_moves`]; `None` is plain UCT.
    pub rave: Option<f64>,
    /// How several threads share a search (one thread searches one tree
    /// either way).
    pub parallelism: Parallelism,
}

/// How the threads of one search share the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Parallelism {
    /// Tree parallelism: one tree, which a thread locks to walk and to
    /// update, with a virtual loss on the path it is evaluating. Threads
    /// wait for each other when walking or updating is a large share of an
    /// iteration (wide nodes, RAVE's update).
    #[default]
    SharedTree,
    /// Root parallelism: each thread grows its own tree from the root,
    /// with its own random choices, and the trees' root statistics are
    /// added up when the search ends. Nothing is locked, so every thread
    /// runs at full speed; the trees share no knowledge below the root,
    /// and they split the memory cap.
    SeparateTrees,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            iterations: Some(10_000),
            time: None,
            exploration: 1.0,
            seed: 0,
            reuse_tree: true,
            max_nodes: 2_000_000,
            expand_after: 1,
            rave: None,
            parallelism: Parallelism::SharedTree,
        }
    }
}

/// How a leaf is valued: a playout (or an evaluation) from `state`.
///
/// Games plug in their own policy (smarter playouts, a cut-off with an
/// evaluation); [`RandomPolicy`] is the default.
pub trait Policy<G: Game>: Send + Clone {
    /// Play on from `state` (it may be changed freely) and return the value
    /// for the first player: 1 a win, 0.5 a draw, 0 a loss, or anything in
    /// between as an estimate.
    fn playout(&mut self, state: &mut G, rng: &mut Rng) -> f64;

    /// A small dense index for `mv`, the same wherever the move is played
    /// (for RAVE's all-moves-as-first statistics); `None` when the policy
    /// does not support RAVE.
    fn amaf_key(&self, _mv: G::Move) -> Option<usize> {
        None
    }

    /// The moves of the last playout, in order, each with the player who
    /// made it (for RAVE); empty when the policy does not record them.
    fn playout_moves(&self) -> &[(Player, G::Move)] {
        &[]
    }
}

/// Uniformly random playouts to the end, or to a ply cap where the score (if
/// the game keeps one) or else a draw is assumed.
#[derive(Clone)]
pub struct RandomPolicy<G: Game> {
    moves: Vec<G::Move>,
    /// The longest playout; past it the position is valued by its tie-breaker.
    pub max_plies: u32,
}

impl<G: Game> Default for RandomPolicy<G> {
    fn default() -> Self {
        RandomPolicy { moves: Vec::new(), max_plies: 10_000 }
    }
}

/// The value of a finished or cut-off state for the first player.
pub fn terminal_value<G: Game>(state: &G) -> f64 {
    match state.status() {
        Status::Over(o) => o.score_for(Player::First),
        Status::Ongoing => match state.tiebreak() {
            Some(Player::First) => 0.75,
            Some(Player::Second) => 0.25,
            None => 0.5,
        },
    }
}

impl<G: Game> Policy<G> for RandomPolicy<G> {
    fn playout(&mut self, state: &mut G, rng: &mut Rng) -> f64 {
        state.random_playout(rng, &mut self.moves, self.max_plies);
        terminal_value(state)
    }
}

#[derive(Debug, Clone)]
struct Node<M> {
    mv: Option<M>,
    parent: u32,
    first_child: u32,
    num_children: u32,
    expanded: bool,
    /// Who played `mv` (whose point of view `wins` is in).
    mover: Player,
    visits: u32,
    wins: f64,
    /// Hash of the position after `mv`, set on the first visit (for reuse).
    hash: u64,
    plies: u32,
    /// Iterations after this node's parent in which `mover` played `mv`
    /// later on (RAVE), and their wins for `mover`.
    amaf_visits: u32,
    amaf_wins: f32,
}

const NONE: u32 = u32::MAX;

impl<M> Node<M> {
    /// Carried into a reused tree: a node the memory cap left childless
    /// may grow there, where memory is free again.
    fn carried_over(mut self) -> Self {
        if self.first_child == NONE {
            self.expanded = false;
        }
        self
    }
}

/// A tree's nodes behind the lock its workers take to walk and update it.
type Locked<M> = Mutex<Vec<Node<M>>>;

/// A search tree: a flat arena of nodes and the index of its root.
struct Tree<M> {
    nodes: Vec<Node<M>>,
    root: u32,
}

impl<M: Copy> Tree<M> {
    fn new() -> Self {
        Tree { nodes: Vec::new(), root: NONE }
    }

    fn clear(&mut self) {
        self.nodes = Vec::new();
        self.root = NONE;
    }

    /// Make `state` the root: its subtree in this tree when `reuse` finds
    /// it there, else a fresh root. Returns the visits kept.
    fn start_at<G: Game<Move = M>>(&mut self, state: &G, reuse: bool) -> u32 {
        if reuse {
            if let Some(kept) = self.reuse(state) {
                return kept;
            }
        }
        self.nodes.clear();
        self.nodes.push(Node {
            mv: None,
            parent: NONE,
            first_child: NONE,
            num_children: 0,
            expanded: false,
            mover: state.to_move().other(),
            visits: 0,
            wins: 0.0,
            hash: state.hash(),
            plies: state.plies(),
            amaf_visits: 0,
            amaf_wins: 0.0,
        });
        self.root = 0;
        0
    }

    /// Find `state` among the root's children and grandchildren and make
    /// its subtree the new tree; returns its visits, or `None` when it is
    /// not there.
    fn reuse<G: Game<Move = M>>(&mut self, state: &G) -> Option<u32> {
        if self.root == NONE || self.nodes.is_empty() {
            return None;
        }
        let (hash, plies) = (state.hash(), state.plies());
        let mut found = NONE;
        let root = &self.nodes[self.root as usize];
        if root.hash == hash && root.plies == plies {
            found = self.root;
        }
        let mut frontier = vec![self.root];
        for _depth in 0..2 {
            if found != NONE {
                break;
            }
            let mut next = Vec::new();
            for &n in &frontier {
                let node = &self.nodes[n as usize];
                for c in node.first_child..node.first_child.saturating_add(node.num_children) {
                    if node.first_child == NONE {
                        break;
                    }
                    let child = &self.nodes[c as usize];
                    if child.visits > 0 && child.hash == hash && child.plies == plies {
                        found = c;
                        break;
                    }
                    next.push(c);
                }
                if found != NONE {
                    break;
                }
            }
            frontier = next;
        }
        if found == NONE {
            return None;
        }
        // Copy the subtree breadth-first into a fresh arena, keeping each
        // node's children contiguous.
        let mut fresh: Vec<Node<M>> = Vec::with_capacity(self.nodes.len() / 4 + 1);
        let mut root = self.nodes[found as usize].clone().carried_over();
        root.parent = NONE;
        root.mv = None;
        fresh.push(root);
        let mut queue = std::collections::VecDeque::new();
        queue.push_back((found, 0u32));
        while let Some((old, new)) = queue.pop_front() {
            let (first, count) = (self.nodes[old as usize].first_child, self.nodes[old as usize].num_children);
            if first == NONE {
                continue;
            }
            let start = fresh.len() as u32;
            for c in first..first + count {
                let mut child = self.nodes[c as usize].clone().carried_over();
                child.parent = new;
                fresh.push(child);
            }
            fresh[new as usize].first_child = start;
            for i in 0..count {
                queue.push_back((first + i, start + i));
            }
        }
        let kept = fresh[0].visits;
        self.nodes = fresh;
        self.root = 0;
        Some(kept)
    }

    /// The root's children (empty before a search or when it has none).
    fn root_children(&self) -> &[Node<M>] {
        match self.nodes.get(self.root as usize) {
            Some(root) if root.first_child != NONE => {
                let first = root.first_child as usize;
                &self.nodes[first..first + root.num_children as usize]
            }
            _ => &[],
        }
    }

    /// The most visited line from `n`, following children tried at least
    /// `min_visits` times, appended to `line` until it holds `max` moves.
    fn most_visited_line(&self, mut n: u32, min_visits: u32, max: usize, line: &mut Vec<M>) {
        while line.len() < max && (n as usize) < self.nodes.len() {
            let node = &self.nodes[n as usize];
            if node.first_child == NONE || node.num_children == 0 {
                break;
            }
            let best = (node.first_child..node.first_child + node.num_children)
                .max_by_key(|&i| self.nodes[i as usize].visits)
                .expect("a node with children");
            let child = &self.nodes[best as usize];
            if child.visits < min_visits.max(1) {
                break;
            }
            line.push(child.mv.expect("child has a move"));
            n = best;
        }
    }
}

/// What the last search did.
#[derive(Debug, Clone, Default)]
pub struct SearchStats {
    /// Playouts run.
    pub iterations: u64,
    /// Nodes in the tree.
    pub nodes: usize,
    /// Visits the root kept from the previous search (tree reuse).
    pub reused_visits: u32,
    /// Time taken.
    pub elapsed: Duration,
    /// Estimated value for the side that moved at the root, of the chosen move.
    pub value: f64,
}

/// What one search thread owns: its playout policy, random generator,
/// scratch position and buffers. The tree is shared; these are not.
struct Worker<G: Game, P> {
    policy: P,
    rng: Rng,
    state: Option<G>,
    moves: Vec<G::Move>,
    /// The nodes of this iteration, root first.
    path: Vec<u32>,
    /// The moves of `path` (one fewer: the root has none).
    line: Vec<G::Move>,
    /// RAVE: by AMAF key, bit 0 set if the first player played it later in
    /// this iteration, bit 1 the second; `touched` lists the keys to clear.
    seen: Vec<u8>,
    touched: Vec<usize>,
    /// The tree this worker grows alone under [`Parallelism::SeparateTrees`]
    /// (the main worker's is also the shared one).
    tree: Tree<G::Move>,
}

impl<G: Game, P: Policy<G>> Worker<G, P> {
    fn new(policy: P, rng: Rng) -> Self {
        Worker {
            policy,
            rng,
            state: None,
            moves: Vec::new(),
            path: Vec::new(),
            line: Vec::new(),
            seen: Vec::new(),
            touched: Vec::new(),
            tree: Tree::new(),
        }
    }

    /// One iteration: select a leaf, value it, back the value up.
    ///
    /// The shared tree is locked only to walk and update its statistics;
    /// moves are replayed, children listed and playouts run outside the
    /// lock, so several workers can search one tree. A visit is counted on
    /// the way down (a "virtual loss" until the value arrives), which
    /// steers the other workers away from the line this one is evaluating.
    fn iterate(&mut self, tree: &Locked<G::Move>, root: u32, root_state: &G, config: &MctsConfig, max_nodes: usize) {
        let mut state = self.state.take().unwrap_or_else(|| root_state.clone());
        state.clone_from(root_state);
        self.path.clear();
        self.line.clear();
        let mut nodes = lock(tree);
        nodes[root as usize].visits += 1;
        self.path.push(root);
        let mut n = root;
        let mut replayed = 0;
        let new_leaf = loop {
            // A leaf's first visits (`expand_after` of them) are valued by
            // playouts; it grows children on the next (the root always
            // grows them).
            let mut reached_new = false;
            while nodes[n as usize].expanded && nodes[n as usize].num_children > 0 {
                let c = match config.rave {
                    Some(k) => select_child_rave(&nodes, n, config.exploration, k),
                    None => select_child(&nodes, n, config.exploration),
                };
                let child = &mut nodes[c as usize];
                reached_new = child.visits == 0;
                child.visits += 1;
                self.line.push(child.mv.expect("child has a move"));
                self.path.push(c);
                n = c;
                if reached_new {
                    break;
                }
            }
            let expanded = nodes[n as usize].expanded;
            let ripe = n == root || nodes[n as usize].visits > config.expand_after;
            drop(nodes);
            for &mv in &self.line[replayed..] {
                state.play(mv);
            }
            replayed = self.line.len();
            if reached_new || expanded || !ripe || state.status().is_over() {
                break reached_new;
            }
            state.legal_moves(&mut self.moves);
            self.moves.shuffle(&mut self.rng);
            nodes = lock(tree);
            // Another worker may have grown it meanwhile: then its
            // children stand, and the walk goes on through them.
            if !nodes[n as usize].expanded {
                // The root always grows its children, whatever the cap:
                // a childless root leaves nothing to choose from.
                let cap = if n == root { usize::MAX } else { max_nodes };
                expand(&mut nodes, n, &self.moves, state.to_move(), cap);
            }
        };
        let (hash, plies) = if new_leaf { (state.hash(), state.plies()) } else { (0, 0) };
        let value = if state.status().is_over() {
            terminal_value(&state)
        } else {
            self.policy.playout(&mut state, &mut self.rng)
        };
        let mut nodes = lock(tree);
        if new_leaf {
            let leaf = &mut nodes[n as usize];
            leaf.hash = hash;
            leaf.plies = plies;
        }
        for &i in &self.path {
            let node = &mut nodes[i as usize];
            node.wins += if node.mover == Player::First { value } else { 1.0 - value };
        }
        if config.rave.is_some() {
            self.update_amaf(&mut nodes, value);
        }
        drop(nodes);
        self.state = Some(state);
    }

    /// RAVE's update: walking up from the leaf, every child of a path node
    /// whose move its mover played later in this iteration (in the tree or
    /// the playout) counts the iteration as if it had been played first.
    fn update_amaf(&mut self, nodes: &mut [Node<G::Move>], value: f64) {
        let bit = |p: Player| if p == Player::First { 1u8 } else { 2u8 };
        let mark = |seen: &mut Vec<u8>, touched: &mut Vec<usize>, key: usize, who: Player| {
            if key >= seen.len() {
                seen.resize(key + 1, 0);
            }
            if seen[key] == 0 {
                touched.push(key);
            }
            seen[key] |= bit(who);
        };
        for &(who, mv) in self.policy.playout_moves() {
            if let Some(key) = self.policy.amaf_key(mv) {
                mark(&mut self.seen, &mut self.touched, key, who);
            }
        }
        for d in (0..self.path.len()).rev() {
            if d < self.line.len() {
                let mover = nodes[self.path[d + 1] as usize].mover;
                if let Some(key) = self.policy.amaf_key(self.line[d]) {
                    mark(&mut self.seen, &mut self.touched, key, mover);
                }
            }
            let node = &nodes[self.path[d] as usize];
            if node.first_child == NONE {
                continue;
            }
            let (first, count) = (node.first_child, node.num_children);
            for c in first..first + count {
                let child = &mut nodes[c as usize];
                let Some(key) = child.mv.and_then(|m| self.policy.amaf_key(m)) else { continue };
                if self.seen.get(key).is_some_and(|&s| s & bit(child.mover) != 0) {
                    child.amaf_visits += 1;
                    child.amaf_wins += if child.mover == Player::First { value } else { 1.0 - value } as f32;
                }
            }
        }
        for &key in &self.touched {
            self.seen[key] = 0;
        }
        self.touched.clear();
    }

    /// Search the shared tree, or this worker's own, for at most `share`
    /// iterations (see [`Worker::iterate_until_done`]).
    fn run(&mut self, search: &SharedSearch<'_, G>, share: u64) -> u64 {
        if let Some((shared, root)) = search.tree {
            return self.iterate_until_done(search, shared, root, share);
        }
        // Without a shared tree the worker grows its own; its lock is never
        // contended, so it costs next to nothing.
        let own = Mutex::new(std::mem::take(&mut self.tree.nodes));
        let done = self.iterate_until_done(search, &own, self.tree.root, share);
        self.tree.nodes = unlocked(own);
        done
    }

    /// Iterate on `tree` until the budget is spent, this worker ran its
    /// `share` of it, another worker stopped the search, or the deadline
    /// or a stop request comes; returns the iterations run.
    fn iterate_until_done(
        &mut self,
        search: &SharedSearch<'_, G>,
        tree: &Locked<G::Move>,
        root: u32,
        share: u64,
    ) -> u64 {
        let mut done = 0u64;
        loop {
            if done >= share
                || search.started.fetch_add(1, Ordering::Relaxed) >= search.max_iterations
                || search.stop.load(Ordering::Relaxed)
            {
                break;
            }
            self.iterate(tree, root, search.state, search.config, search.max_nodes);
            done += 1;
            if done.is_multiple_of(64) && (search.deadline.is_some_and(|d| Instant::now() >= d) || search.ctx.stopped())
            {
                search.stop.store(true, Ordering::Relaxed);
                break;
            }
        }
        done
    }
}

/// What the threads of one search share.
struct SharedSearch<'a, G: Game> {
    /// The shared tree and its root ([`Parallelism::SharedTree`]), or none
    /// when each worker grows its own.
    tree: Option<(&'a Locked<G::Move>, u32)>,
    /// The memory cap of each tree.
    max_nodes: usize,
    state: &'a G,
    config: &'a MctsConfig,
    ctx: &'a ThinkContext,
    deadline: Option<Instant>,
    max_iterations: u64,
    /// Iterations begun by all threads.
    started: AtomicU64,
    /// Set by the first thread to see the deadline or a stop request.
    stop: AtomicBool,
}

/// The tree, even if a thread panicked while holding it (the panic is
/// passed on when the threads are joined).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What the mutex holds, even if a thread panicked while holding it.
fn unlocked<T>(m: Mutex<T>) -> T {
    m.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The child of `n` with the highest `score(child, ln of n's visits)`;
/// the first child scored `None` is taken at once.
#[inline]
fn select_by<M>(nodes: &[Node<M>], n: u32, score: impl Fn(&Node<M>, f64) -> Option<f64>) -> u32 {
    let node = &nodes[n as usize];
    let (first, count) = (node.first_child, node.num_children);
    let ln_n = (node.visits.max(1) as f64).ln();
    let mut best = first;
    let mut best_value = f64::NEG_INFINITY;
    for i in first..first + count {
        let Some(v) = score(&nodes[i as usize], ln_n) else { return i };
        if v > best_value {
            best_value = v;
            best = i;
        }
    }
    best
}

/// The child of `n` to walk into: an unvisited one if any (children are
/// shuffled at expansion, so the first is a random one), else by UCT.
#[inline]
fn select_child<M>(nodes: &[Node<M>], n: u32, exploration: f64) -> u32 {
    select_by(nodes, n, |child, ln_n| {
        let visits = child.visits as f64;
        (child.visits > 0).then(|| child.wins / visits + exploration * (ln_n / visits).sqrt())
    })
}

/// The child of `n` to walk into under RAVE: each child's mean blended
/// with its AMAF mean (`β = sqrt(k / (3n + k))`), plus the UCT term. An
/// unvisited child is valued by its AMAF mean alone (as if visited once),
/// so the playouts' verdict on a move decides which new moves are tried
/// first; one without AMAF data is tried at once.
#[inline]
fn select_child_rave<M>(nodes: &[Node<M>], n: u32, exploration: f64, k: f64) -> u32 {
    select_by(nodes, n, |child, ln_n| {
        if child.amaf_visits == 0 && child.visits == 0 {
            return None;
        }
        let amaf = if child.amaf_visits > 0 { child.amaf_wins as f64 / child.amaf_visits as f64 } else { 0.5 };
        if child.visits == 0 {
            return Some(amaf + exploration * ln_n.sqrt());
        }
        let visits = child.visits as f64;
        let beta = (k / (3.0 * visits + k)).sqrt();
        Some((1.0 - beta) * (child.wins / visits) + beta * amaf + exploration * (ln_n / visits).sqrt())
    })
}

/// Give `n` the children `moves`, played by `mover`; none past the memory cap.
fn expand<M: Copy>(nodes: &mut Vec<Node<M>>, n: u32, moves: &[M], mover: Player, max_nodes: usize) {
    nodes[n as usize].expanded = true;
    if nodes.len() >= max_nodes {
        return;
    }
    let start = nodes.len() as u32;
    nodes.extend(moves.iter().map(|&m| Node {
        mv: Some(m),
        parent: n,
        first_child: NONE,
        num_children: 0,
        expanded: false,
        mover,
        visits: 0,
        wins: 0.0,
        hash: 0,
        plies: 0,
        amaf_visits: 0,
        amaf_wins: 0.0,
    }));
    let node = &mut nodes[n as usize];
    node.first_child = start;
    node.num_children = moves.len() as u32;
}

/// A UCT searcher over any game.
///
/// Given more than one thread ([`ThinkContext::threads`]), it searches one
/// shared tree from all of them (tree parallelism with virtual loss).
pub struct Mcts<G: Game, P: Policy<G>> {
    /// The budget and tuning.
    pub config: MctsConfig,
    /// The calling thread's worker; its policy is the one [`Mcts::policy`] shows.
    main: Worker<G, P>,
    /// The other threads' workers, kept between searches.
    helpers: Vec<Worker<G, P>>,
    /// Helpers whose own trees the last search grew
    /// ([`Parallelism::SeparateTrees`]); with a shared tree, none.
    separate_helpers: usize,
    /// What the last search did.
    pub stats: SearchStats,
}

impl<G: Game, P: Policy<G>> Mcts<G, P> {
    /// A search with this budget and leaf policy.
    pub fn new(config: MctsConfig, policy: P) -> Self {
        let rng = crate::rng(config.seed);
        Mcts {
            config,
            main: Worker::new(policy, rng),
            helpers: Vec::new(),
            separate_helpers: 0,
            stats: SearchStats::default(),
        }
    }

    /// Forget the tree (e.g. a new game).
    pub fn reset(&mut self) {
        self.main.tree.clear();
        for helper in &mut self.helpers {
            helper.tree.clear();
        }
    }

    /// Search `state` and return the move with the most visits.
    ///
    /// ```
    /// use tabula_ai::{Mcts, MctsConfig, RandomPolicy};
    /// use tabula_core::{example::TicTacToe, Game, NoOptions, ThinkContext};
    /// // X to move wins on cell 2 (cells 0 to 8, row by row).
    /// let g = TicTacToe::from_position("xx.oo....", &NoOptions).unwrap();
    /// let config = MctsConfig { iterations: Some(2000), seed: 1, ..MctsConfig::default() };
    /// let mut ai = Mcts::new(config, RandomPolicy::default());
    /// assert_eq!(ai.search(&g, &ThinkContext::default()), 2);
    /// ```
    pub fn search(&mut self, state: &G, ctx: &ThinkContext) -> G::Move {
        let started = Instant::now();
        self.stats = SearchStats::default();
        let threads = ctx.thread_count();
        while self.helpers.len() + 1 < threads {
            let seed = self.main.rng.random();
            self.helpers.push(Worker::new(self.main.policy.clone(), crate::rng(seed)));
        }
        let separate = threads > 1 && self.config.parallelism == Parallelism::SeparateTrees;
        self.separate_helpers = if separate { threads - 1 } else { 0 };
        let reuse = self.config.reuse_tree;
        let mut kept = self.main.tree.start_at(state, reuse);
        for (i, helper) in self.helpers.iter_mut().enumerate() {
            if i < self.separate_helpers {
                kept += helper.tree.start_at(state, reuse);
            } else {
                // Not searching its own tree this time: free its memory.
                helper.tree.clear();
            }
        }
        self.stats.reused_visits = kept;
        let shared_tree = (!separate).then(|| Mutex::new(std::mem::take(&mut self.main.tree.nodes)));
        let shared = SharedSearch {
            tree: shared_tree.as_ref().map(|tree| (tree, self.main.tree.root)),
            // Separate trees split the memory cap.
            max_nodes: if separate { self.config.max_nodes / threads } else { self.config.max_nodes },
            state,
            config: &self.config,
            ctx,
            deadline: ctx.deadline_for(self.config.time, started),
            max_iterations: self.config.iterations.unwrap_or(u64::MAX),
            started: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        };
        // Separate trees split an iteration budget evenly, so that each
        // tree, and the search, depends on the seed alone; a shared tree
        // takes iterations as they come.
        let share = |i: usize| match (separate, self.config.iterations) {
            (true, Some(budget)) => budget / threads as u64 + u64::from((i as u64) < budget % threads as u64),
            _ => u64::MAX,
        };
        let main = &mut self.main;
        let helpers = &mut self.helpers[..threads - 1];
        let done = std::thread::scope(|scope| {
            let shared = &shared;
            let others: Vec<_> =
                helpers.iter_mut().enumerate().map(|(i, w)| scope.spawn(move || w.run(shared, share(i + 1)))).collect();
            let mine = main.run(shared, share(0));
            mine + others.into_iter().map(|t| t.join().expect("a search thread panicked")).sum::<u64>()
        });
        if let Some(tree) = shared_tree {
            self.main.tree.nodes = unlocked(tree);
        }
        self.stats.iterations = done;
        self.stats.nodes = self.trees().map(|t| t.nodes.len()).sum();
        self.stats.elapsed = started.elapsed();
        let root = self.root_stats();
        // The most visited move; among equals, the best mean.
        let Some(best) = root.iter().reduce(|b, c| {
            let better = c.visits > b.visits
                || (c.visits == b.visits && c.visits > 0 && c.wins / c.visits as f64 > b.wins / b.visits.max(1) as f64);
            if better {
                c
            } else {
                b
            }
        }) else {
            // No tree (memory cap at the root): fall back to any legal move.
            state.legal_moves(&mut self.main.moves);
            return self.main.moves[self.main.rng.random_range(0..self.main.moves.len())];
        };
        self.stats.value = if best.visits > 0 { best.wins / best.visits as f64 } else { 0.5 };
        best.mv
    }

    /// The trees the last search grew: the main one, then the helpers' own.
    fn trees(&self) -> impl Iterator<Item = &Tree<G::Move>> + '_ {
        std::iter::once(&self.main.tree).chain(self.helpers[..self.separate_helpers].iter().map(|h| &h.tree))
    }

    /// The root's moves with their visits and wins added up over every
    /// tree, in the order of the first tree that has them.
    fn root_stats(&self) -> Vec<RootTotal<G::Move>> {
        let mut totals: Vec<RootTotal<G::Move>> = Vec::new();
        let mut index = std::collections::HashMap::new();
        for tree in self.trees() {
            for child in tree.root_children() {
                let Some(mv) = child.mv else { continue };
                let i = *index.entry(mv).or_insert_with(|| {
                    totals.push(RootTotal { mv, visits: 0, wins: 0.0 });
                    totals.len() - 1
                });
                totals[i].visits += child.visits;
                totals[i].wins += child.wins;
            }
        }
        totals
    }
}

/// A root move's visits and wins summed over the trees of a search.
struct RootTotal<M> {
    mv: M,
    visits: u32,
    wins: f64,
}

/// A root move after a search: how often it was tried and how well it did.
#[derive(Debug, Clone, Copy)]
pub struct RootMove<M> {
    /// The move.
    pub mv: M,
    /// Iterations through it.
    pub visits: u32,
    /// Its mean value for the side to move at the root, 0..1.
    pub value: f64,
}

impl<G: Game, P: Policy<G>> Mcts<G, P> {
    /// The root's moves after a search, the most visited first. With
    /// [`Parallelism::SeparateTrees`] each move's visits and value are
    /// those of every thread's tree together.
    pub fn root_moves(&self) -> Vec<RootMove<G::Move>> {
        let mut out: Vec<RootMove<G::Move>> = self
            .root_stats()
            .into_iter()
            .map(|t| RootMove {
                mv: t.mv,
                visits: t.visits,
                value: if t.visits > 0 { t.wins / t.visits as f64 } else { 0.5 },
            })
            .collect();
        out.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.value.total_cmp(&a.value)));
        out
    }

    /// The most visited line from the root after a search, following
    /// children tried at least `min_visits` times; at most `max` moves.
    /// With separate trees, the first move is the most visited over all
    /// of them, and the line goes on in the tree that tried it most.
    pub fn principal_variation(&self, min_visits: u32, max: usize) -> Vec<G::Move> {
        let mut line = Vec::new();
        if self.separate_helpers == 0 {
            self.main.tree.most_visited_line(self.main.tree.root, min_visits, max, &mut line);
            return line;
        }
        let Some(first) = self.root_moves().into_iter().next() else { return line };
        if max == 0 || first.visits < min_visits.max(1) {
            return line;
        }
        line.push(first.mv);
        let deepest = self.trees().filter_map(|t| {
            let i = t.root_children().iter().position(|c| c.mv == Some(first.mv))?;
            let child = t.nodes[t.root as usize].first_child + i as u32;
            Some((t.nodes[child as usize].visits, t, child))
        });
        if let Some((_, tree, child)) = deepest.max_by_key(|&(visits, _, _)| visits) {
            tree.most_visited_line(child, min_visits, max, &mut line);
        }
        line
    }

    /// The leaf policy (games read what it gathered during the search).
    /// With several threads, this is the calling thread's policy only.
    pub fn policy(&self) -> &P {
        &self.main.policy
    }

    /// The leaf policy, to reset what it gathers.
    pub fn policy_mut(&mut self) -> &mut P {
        &mut self.main.policy
    }
}

impl<G: Game, P: Policy<G>> Agent<G> for Mcts<G, P> {
    fn choose(&mut self, state: &G, ctx: &ThinkContext) -> G::Move {
        self.search(state, ctx)
    }
    fn describe(&self) -> String {
        match (self.config.iterations, self.config.time) {
            (Some(i), Some(t)) => format!("MCTS, {i} iterations or {:.1} s", t.as_secs_f64()),
            (Some(i), None) => format!("MCTS, {i} iterations"),
            (None, Some(t)) => format!("MCTS, {:.1} s", t.as_secs_f64()),
            (None, None) => "MCTS".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_core::example::TicTacToe;
    use tabula_core::NoOptions;

    const BOTH: [Parallelism; 2] = [Parallelism::SharedTree, Parallelism::SeparateTrees];

    fn search_with(
        threads: usize,
        iterations: u64,
        parallelism: Parallelism,
    ) -> (Mcts<TicTacToe, RandomPolicy<TicTacToe>>, u8) {
        // X to move wins on cell 2 (cells 0 to 8, row by row).
        let g = TicTacToe::from_position("xx.oo....", &NoOptions).unwrap();
        let config = MctsConfig {
            iterations: Some(iterations),
            seed: 1,
            reuse_tree: false,
            parallelism,
            ..MctsConfig::default()
        };
        let mut ai = Mcts::new(config, RandomPolicy::default());
        let mv = ai.search(&g, &ThinkContext { threads, ..ThinkContext::default() });
        (ai, mv)
    }

    /// The visits of every tree's root.
    fn root_visits<P: Policy<TicTacToe>>(ai: &Mcts<TicTacToe, P>) -> Vec<u32> {
        ai.trees().map(|t| t.nodes[t.root as usize].visits).collect()
    }

    #[test]
    fn two_threads_find_the_win_within_the_iteration_budget() {
        for parallelism in BOTH {
            let (ai, mv) = search_with(2, 3000, parallelism);
            assert_eq!(mv, 2, "{parallelism:?}");
            assert_eq!(ai.stats.iterations, 3000, "{parallelism:?}");
            assert_eq!(root_visits(&ai).iter().sum::<u32>(), 3000, "{parallelism:?}");
            assert_eq!(ai.root_moves().iter().map(|m| m.visits).sum::<u32>(), 3000, "{parallelism:?}");
        }
    }

    #[test]
    fn separate_trees_are_grown_by_every_thread_and_added_up() {
        let (ai, mv) = search_with(2, 4000, Parallelism::SeparateTrees);
        assert_eq!(mv, 2);
        let visits = root_visits(&ai);
        assert_eq!(visits.len(), 2, "one tree a thread");
        assert!(visits.iter().all(|&v| v > 0), "every thread searched: {visits:?}");
        assert_eq!(ai.stats.nodes, ai.trees().map(|t| t.nodes.len()).sum::<usize>());
        // A root move's total is the sum of its visits in both trees.
        let in_tree =
            |t: &Tree<u8>, mv: u8| t.root_children().iter().find(|c| c.mv == Some(mv)).map_or(0, |c| c.visits);
        for m in ai.root_moves() {
            assert_eq!(m.visits, ai.trees().map(|t| in_tree(t, m.mv)).sum::<u32>());
        }
        assert_eq!(ai.principal_variation(1, 4)[0], 2, "the line starts with the chosen move");
        // The shared tree again: the helper's tree is freed.
        let mut ai = ai;
        ai.config.parallelism = Parallelism::SharedTree;
        ai.search(
            &TicTacToe::from_position("xx.oo....", &NoOptions).unwrap(),
            &ThinkContext { threads: 2, ..ThinkContext::default() },
        );
        assert_eq!(root_visits(&ai).len(), 1);
        assert!(ai.helpers[0].tree.nodes.is_empty());
    }

    #[test]
    fn separate_trees_with_an_iteration_budget_are_reproducible() {
        let (a, _) = search_with(2, 3001, Parallelism::SeparateTrees);
        let (b, _) = search_with(2, 3001, Parallelism::SeparateTrees);
        assert_eq!(root_visits(&a), [1501, 1500], "the budget is split evenly");
        let visits = |ai: &Mcts<TicTacToe, RandomPolicy<TicTacToe>>| {
            ai.root_moves().iter().map(|m| (m.mv, m.visits)).collect::<Vec<_>>()
        };
        assert_eq!(visits(&a), visits(&b));
    }

    #[test]
    fn separate_trees_are_each_reused_and_split_the_memory_cap() {
        let config = MctsConfig {
            iterations: Some(4000),
            seed: 2,
            max_nodes: 40,
            parallelism: Parallelism::SeparateTrees,
            ..MctsConfig::default()
        };
        let mut ai = Mcts::new(config, RandomPolicy::default());
        let two = ThinkContext { threads: 2, ..ThinkContext::default() };
        ai.search(&TicTacToe::new(&NoOptions), &two);
        // Each tree holds the root's 9 children and at most one more set
        // of 8 past its half of the cap (20 nodes).
        for t in ai.trees() {
            assert!(t.nodes.len() <= 20 + 8, "{}", t.nodes.len());
        }
        let mut g = TicTacToe::new(&NoOptions);
        g.play(4);
        g.play(0);
        ai.search(&g, &two);
        let kept = ai.stats.reused_visits;
        assert!(kept > 0, "the trees were reused");
        assert_eq!(root_visits(&ai).iter().sum::<u32>(), 4000 + kept);
    }

    /// Every visit counted on the way down (the virtual loss) was followed
    /// by a value: a node's visits are its own first visit plus its
    /// children's, and its wins never exceed its visits.
    #[test]
    fn parallel_search_leaves_no_virtual_loss_behind() {
        for parallelism in BOTH {
            for threads in [1, 2, 4] {
                let (ai, _) = search_with(threads, 5000, parallelism);
                for tree in ai.trees() {
                    for (i, node) in tree.nodes.iter().enumerate() {
                        assert!(node.wins <= node.visits as f64 + 1e-9, "{threads} threads, node {i}");
                        if node.first_child == NONE {
                            continue;
                        }
                        let children: u32 = (node.first_child..node.first_child + node.num_children)
                            .map(|c| tree.nodes[c as usize].visits)
                            .sum();
                        let own = u32::from(i as u32 != tree.root);
                        assert_eq!(node.visits, children + own, "{parallelism:?}, {threads} threads, node {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn one_thread_is_reproducible() {
        let (a, mv_a) = search_with(1, 2000, Parallelism::SharedTree);
        let (b, mv_b) = search_with(1, 2000, Parallelism::SeparateTrees);
        assert_eq!(mv_a, mv_b);
        let visits = |ai: &Mcts<TicTacToe, RandomPolicy<TicTacToe>>| {
            ai.root_moves().iter().map(|m| m.visits).collect::<Vec<_>>()
        };
        assert_eq!(visits(&a), visits(&b), "one thread searches alike either way");
    }

    /// Random playouts that record their moves, keyed by cell, for RAVE.
    #[derive(Clone, Default)]
    struct RecordingPolicy {
        moves: Vec<u8>,
        played: Vec<(Player, u8)>,
    }

    impl Policy<TicTacToe> for RecordingPolicy {
        fn playout(&mut self, state: &mut TicTacToe, rng: &mut Rng) -> f64 {
            self.played.clear();
            while !state.status().is_over() {
                state.legal_moves(&mut self.moves);
                let mv = self.moves[rng.random_range(0..self.moves.len())];
                self.played.push((state.to_move(), mv));
                state.play(mv);
            }
            terminal_value(state)
        }
        fn amaf_key(&self, mv: u8) -> Option<usize> {
            Some(mv as usize)
        }
        fn playout_moves(&self) -> &[(Player, u8)] {
            &self.played
        }
    }

    fn rave_search(
        position: &str,
        threads: usize,
        iterations: u64,
        parallelism: Parallelism,
    ) -> (Mcts<TicTacToe, RecordingPolicy>, u8) {
        let g = TicTacToe::from_position(position, &NoOptions).unwrap();
        let config = MctsConfig {
            iterations: Some(iterations),
            seed: 1,
            reuse_tree: false,
            rave: Some(100.0),
            exploration: 0.2,
            parallelism,
            ..MctsConfig::default()
        };
        let mut ai = Mcts::new(config, RecordingPolicy::default());
        let mv = ai.search(&g, &ThinkContext { threads, ..ThinkContext::default() });
        (ai, mv)
    }

    #[test]
    fn rave_finds_the_win_and_the_block() {
        for (threads, parallelism) in [(1, Parallelism::SharedTree), (2, BOTH[0]), (2, BOTH[1])] {
            // X wins on cell 2; O to move must block on cell 2.
            assert_eq!(rave_search("xx.oo....", threads, 2000, parallelism).1, 2, "{threads} threads");
            assert_eq!(rave_search("xx..o....", threads, 2000, parallelism).1, 2, "{threads} threads");
        }
    }

    /// Every iteration through a node counts for it in AMAF too (its move
    /// was played later by its mover), and no child counts more AMAF
    /// iterations than its parent had.
    #[test]
    fn amaf_counts_are_consistent() {
        for (threads, parallelism) in [(1, Parallelism::SharedTree), (2, BOTH[0]), (2, BOTH[1])] {
            let (ai, _) = rave_search(".........", threads, 3000, parallelism);
            for tree in ai.trees() {
                let mut rich = 0;
                for (i, node) in tree.nodes.iter().enumerate() {
                    if i as u32 != tree.root {
                        assert!(node.amaf_visits >= node.visits, "{threads} threads, node {i}");
                        assert!(node.amaf_wins as f64 <= node.amaf_visits as f64 + 1e-3);
                        let parent = &tree.nodes[node.parent as usize];
                        assert!(node.amaf_visits <= parent.visits, "{threads} threads, node {i}");
                        rich += usize::from(node.amaf_visits > node.visits);
                    }
                }
                // The playouts taught the tree about moves it had not tried there.
                assert!(
                    rich > 50,
                    "{parallelism:?}: {rich} of {} nodes, root visits {}",
                    tree.nodes.len(),
                    tree.nodes[tree.root as usize].visits
                );
            }
        }
    }

    #[test]
    fn the_memory_cap_never_leaves_the_root_childless() {
        // With room for the root alone, the root still grows its children,
        // so the search picks the winning move, not a random one.
        let g = TicTacToe::from_position("xx.oo....", &NoOptions).unwrap();
        let config = MctsConfig { iterations: Some(500), max_nodes: 1, seed: 1, ..MctsConfig::default() };
        let mut ai = Mcts::new(config, RandomPolicy::default());
        assert_eq!(ai.search(&g, &ThinkContext::default()), 2);
        // A reused subtree whose root the cap left childless grows too:
        // search with O to move (the cap lets one of O's replies grow),
        // then from the position after O's 4, where X wins on 2.
        for seed in 0..8 {
            let config = MctsConfig { iterations: Some(300), max_nodes: 8, seed, ..MctsConfig::default() };
            let mut ai = Mcts::new(config, RandomPolicy::default());
            ai.search(&TicTacToe::from_position("xx.o.....", &NoOptions).unwrap(), &ThinkContext::default());
            assert_eq!(ai.search(&g, &ThinkContext::default()), 2, "seed {seed}");
        }
    }

    #[test]
    fn leaves_grow_only_after_expand_after_visits() {
        let g = TicTacToe::from_position("xx.oo....", &NoOptions).unwrap();
        let mut sizes = Vec::new();
        for (threads, expand_after, parallelism) in [(1, 1, BOTH[0]), (1, 6, BOTH[0]), (2, 6, BOTH[0]), (2, 6, BOTH[1])]
        {
            let config = MctsConfig {
                iterations: Some(3000),
                expand_after,
                reuse_tree: false,
                seed: 3,
                parallelism,
                ..MctsConfig::default()
            };
            let mut ai = Mcts::new(config, RandomPolicy::default());
            let mv = ai.search(&g, &ThinkContext { threads, ..ThinkContext::default() });
            assert_eq!(mv, 2, "threads {threads}, expand_after {expand_after}");
            for tree in ai.trees() {
                for (i, node) in tree.nodes.iter().enumerate().skip(1) {
                    if node.first_child != NONE {
                        assert!(node.visits > expand_after, "node {i} grew after {} visits", node.visits);
                    }
                }
            }
            sizes.push(ai.stats.nodes);
        }
        assert!(sizes[1..].iter().all(|&s| s < sizes[0]), "fewer nodes when leaves wait: {sizes:?}");
    }

    #[test]
    fn a_deadline_stops_every_thread() {
        let g = TicTacToe::new(&NoOptions);
        let config = MctsConfig { iterations: None, time: Some(Duration::from_millis(50)), ..MctsConfig::default() };
        for parallelism in BOTH {
            let mut ai = Mcts::new(MctsConfig { parallelism, ..config.clone() }, RandomPolicy::default());
            let began = Instant::now();
            ai.search(&g, &ThinkContext { threads: 2, ..ThinkContext::default() });
            assert!(began.elapsed() < Duration::from_secs(5));
            assert!(ai.stats.iterations > 0);
        }
    }
}
