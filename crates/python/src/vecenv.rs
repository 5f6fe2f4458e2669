//! `tabula.VecEnv`: `n` games stepped together in Rust, across threads,
//! with the GIL released, writing into numpy arrays that Python reads
//! without a copy.

use crate::errors::IllegalActionError;
use crate::game::{GameOps, PyGame};
use crate::state::{PyState, StateOps, Typed};
use numpy::{PyArray1, PyArray2, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use rayon::prelude::*;
use std::sync::Arc;
use tabula_core::encoding::Encoding;
use tabula_core::splitmix;
use tabula_core::{GameMeta, Player, Status};

/// Environments per thread below which the calling thread steps them all
/// alone: waking a pool thread, and its spinning idle afterwards, cost
/// more than it saves.
const MIN_PER_THREAD: usize = 64;

/// The most threads a `VecEnv` may be given.
const MAX_THREADS: usize = 256;

/// The output arrays of a step, as slices.
pub(crate) struct Buffers<'a> {
    pub obs: &'a mut [f32],
    pub mask: &'a mut [bool],
    pub rewards: &'a mut [f32],
    pub terminated: &'a mut [bool],
    pub truncated: &'a mut [bool],
    pub player: &'a mut [i8],
    /// Each environment's legal actions, `max_legal` a row, `-1` past them.
    pub legal: &'a mut [i32],
    pub num_legal: &'a mut [i32],
}

/// A batch of games of any type.
pub(crate) trait VecOps: Send + Sync + 'static {
    fn len(&self) -> usize;
    /// Restart every game (reseeding the rollout generator when asked).
    fn reset(&mut self, seed: Option<u64>, out: Buffers<'_>);
    /// Apply `actions[i]` to game `i`, after checking that every action
    /// is legal (an error moves nothing).
    fn step(&mut self, actions: &[i64], out: Buffers<'_>) -> Result<(), String>;
    /// Play `returns.len() / 2` random games from the start.
    fn random_rollouts(&mut self, returns: &mut [f32], lengths: &mut [i64]);
    fn state(&self, i: usize) -> Box<dyn StateOps>;
    /// Use at most `threads` threads (the calling one included) from now on.
    fn set_threads(&mut self, threads: usize);
    /// The most threads a call uses, the calling one included.
    fn threads(&self) -> usize;
}

/// One game of the batch with its legal moves and their actions.
///
/// An action is checked against the mask (one byte), and its move found
/// in `actions` by a linear search: there are a few dozen, and a lookup
/// table over the whole action space (thousands of entries per
/// environment) costs more in cache misses than it saves.
struct Env<G: Encoding> {
    state: G,
    moves: Vec<G::Move>,
    actions: Vec<u32>,
    plies: u32,
    /// The actions played since the last reset.
    history: Vec<u32>,
    /// The position before the last move, to update the observation from
    /// (for games with `Encoding::INCREMENTAL_OBSERVATION`).
    before: Option<G>,
}

pub(crate) struct VecImpl<G: Encoding> {
    start: G,
    envs: Vec<Env<G>>,
    num_actions: usize,
    obs_len: usize,
    max_legal: usize,
    max_plies: Option<u32>,
    seed: u64,
    /// Games played by `random_rollouts` so far (each game's generator is
    /// seeded from the seed and its number, so results do not depend on
    /// the threads).
    rollouts: u64,
    /// The most threads a call uses, the calling one included (at most
    /// rayon's pool size).
    threads: usize,
}

/// Start loading the cache line at `p` (a hint: it never faults).
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // Safety: prefetching only hints the cache; any address is allowed.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Independent seeds from (seed, counter), through SplitMix64.
fn mix(seed: u64, n: u64) -> u64 {
    splitmix::mix(seed ^ n.wrapping_mul(splitmix::GOLDEN_GAMMA))
}

impl<G: Encoding> Env<G> {
    /// The index of `action` in the legal actions, if it is legal.
    fn find(&self, action: u32) -> Option<usize> {
        self.actions.iter().position(|&a| a == action)
    }

    /// Clear the mask entries of the position in `self.actions`, which is
    /// being left (the rest of the row is already clear).
    fn clear_mask(&self, mask: &mut [bool]) {
        for &a in &self.actions {
            mask[a as usize] = false;
        }
    }

    /// Write the position's legal actions (in `self.actions`) into its
    /// mask, whose other entries are clear, and its list, whose entries
    /// past `*num_legal` are -1.
    fn write_legal(&self, mask: &mut [bool], legal: &mut [i32], num_legal: &mut i32) {
        for &a in &self.actions {
            mask[a as usize] = true;
        }
        let (old, k) = (*num_legal as usize, self.actions.len());
        debug_assert!(k <= legal.len(), "more legal actions than max_legal_actions");
        for (slot, &a) in legal.iter_mut().zip(&self.actions) {
            *slot = a as i32;
        }
        if old > k {
            legal[k..old].fill(-1);
        }
        *num_legal = k as i32;
    }

    /// Ask the CPU to start loading what stepping this environment reads
    /// first: its lists live in their own allocations, and a batch too big
    /// for the cache would otherwise wait for each in turn.
    fn prefetch(&self) {
        prefetch(self.actions.as_ptr());
        prefetch(self.moves.as_ptr());
        prefetch(self.history.as_ptr().wrapping_add(self.history.len()));
    }

    fn write(&mut self, obs: &mut [f32], player: &mut i8) {
        let p = self.state.to_move();
        self.state.write_observation(p, obs);
        *player = p.index() as i8;
    }

    /// Bring `obs`, which holds the observation of `self.before` as seen
    /// by `before_player`, up to date.
    fn update(&mut self, obs: &mut [f32], before_player: Player, player: &mut i8) {
        let p = self.state.to_move();
        match &self.before {
            Some(before) => self.state.update_observation(p, before, before_player, obs),
            None => self.state.write_observation(p, obs),
        }
        *player = p.index() as i8;
    }
}

impl<G: GameMeta + Encoding> VecImpl<G> {
    fn widths(&self) -> Widths {
        Widths { obs: self.obs_len, mask: self.num_actions, legal: self.max_legal }
    }

    pub(crate) fn new(start: G, n: usize, seed: u64, max_plies: Option<u32>) -> Self {
        let num_actions = G::num_distinct_actions(start.options());
        let obs_len = G::observation_len(start.options());
        let max_legal = G::max_legal_actions(start.options());
        let envs = (0..n)
            .map(|_| Env {
                state: start.clone(),
                moves: Vec::new(),
                actions: Vec::new(),
                plies: 0,
                history: Vec::new(),
                before: G::INCREMENTAL_OBSERVATION.then(|| start.clone()),
            })
            .collect();
        let threads = rayon::current_num_threads().max(1);
        VecImpl { start, envs, num_actions, obs_len, max_legal, max_plies, seed, rollouts: 0, threads }
    }
}

/// The sizes of one environment's rows: observation, mask, legal list.
#[derive(Clone, Copy)]
struct Widths {
    obs: usize,
    mask: usize,
    legal: usize,
}

impl<'a> Buffers<'a> {
    /// The rows of the first `k` environments, and the rest.
    fn split_at(self, k: usize, w: Widths) -> (Buffers<'a>, Buffers<'a>) {
        let (obs, obs2) = self.obs.split_at_mut(k * w.obs);
        let (mask, mask2) = self.mask.split_at_mut(k * w.mask);
        let (rewards, rewards2) = self.rewards.split_at_mut(2 * k);
        let (terminated, terminated2) = self.terminated.split_at_mut(k);
        let (truncated, truncated2) = self.truncated.split_at_mut(k);
        let (player, player2) = self.player.split_at_mut(k);
        let (legal, legal2) = self.legal.split_at_mut(k * w.legal);
        let (num_legal, num_legal2) = self.num_legal.split_at_mut(k);
        (
            Buffers { obs, mask, rewards, terminated, truncated, player, legal, num_legal },
            Buffers {
                obs: obs2,
                mask: mask2,
                rewards: rewards2,
                terminated: terminated2,
                truncated: truncated2,
                player: player2,
                legal: legal2,
                num_legal: num_legal2,
            },
        )
    }
}

/// Run `f(i, env, row)` for every environment: on the calling thread
/// alone for small batches or `threads == 1`, else in one contiguous part
/// per thread (at most `threads`), the calling thread taking the first part
/// itself (so it does not sit idle while a pool thread works, and one
/// thread fewer wakes up).
fn for_each_env<G: Encoding>(
    envs: &mut [Env<G>],
    w: Widths,
    out: Buffers<'_>,
    threads: usize,
    f: impl Fn(usize, &mut Env<G>, Row<'_>) + Sync,
) {
    let work = |first: usize, envs: &mut [Env<G>], b: Buffers<'_>| {
        let Buffers { obs, mask, rewards, terminated, truncated, player, legal, num_legal } = b;
        for j in 0..envs.len() {
            if let Some(next) = envs.get(j + 1) {
                next.prefetch();
            }
            let env = &mut envs[j];
            let row = Row {
                obs: &mut obs[j * w.obs..(j + 1) * w.obs],
                mask: &mut mask[j * w.mask..(j + 1) * w.mask],
                rewards: &mut rewards[2 * j..2 * j + 2],
                terminated: &mut terminated[j],
                truncated: &mut truncated[j],
                player: &mut player[j],
                legal: &mut legal[j * w.legal..(j + 1) * w.legal],
                num_legal: &mut num_legal[j],
            };
            f(first + j, env, row);
        }
    };
    let n = envs.len();
    let parts = (n / MIN_PER_THREAD).clamp(1, threads);
    if parts == 1 {
        work(0, envs, out);
        return;
    }
    let per = n.div_ceil(parts);
    let work = &work;
    rayon::in_place_scope(|scope| {
        let (mine, mut rest) = envs.split_at_mut(per);
        let (my_bufs, mut rest_bufs) = out.split_at(per, w);
        let mut first = per;
        while !rest.is_empty() {
            let k = per.min(rest.len());
            let (part, tail) = rest.split_at_mut(k);
            let (bufs, tail_bufs) = rest_bufs.split_at(k, w);
            scope.spawn(move |_| work(first, part, bufs));
            (rest, rest_bufs, first) = (tail, tail_bufs, first + k);
        }
        work(0, mine, my_bufs);
    });
}

/// One environment's part of the output arrays.
struct Row<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [bool],
    rewards: &'a mut [f32],
    terminated: &'a mut bool,
    truncated: &'a mut bool,
    player: &'a mut i8,
    legal: &'a mut [i32],
    num_legal: &'a mut i32,
}

impl<G: GameMeta + Encoding> VecOps for VecImpl<G> {
    fn len(&self) -> usize {
        self.envs.len()
    }

    fn reset(&mut self, seed: Option<u64>, out: Buffers<'_>) {
        if let Some(s) = seed {
            self.seed = s;
            self.rollouts = 0;
        }
        out.mask.fill(false);
        out.legal.fill(-1);
        out.num_legal.fill(0);
        let (start, widths) = (&self.start, self.widths());
        for_each_env(&mut self.envs, widths, out, self.threads, |_, env, row| {
            env.state.clone_from(start);
            env.plies = 0;
            env.history.clear();
            env.state.legal_actions(&mut env.moves, &mut env.actions);
            env.write_legal(row.mask, row.legal, row.num_legal);
            env.write(row.obs, row.player);
            row.rewards.fill(0.0);
            *row.terminated = false;
            *row.truncated = false;
        });
    }

    fn step(&mut self, actions: &[i64], out: Buffers<'_>) -> Result<(), String> {
        // Check every action before anything moves: one byte of the mask
        // each (it holds exactly each environment's `actions`).
        let al = self.num_actions;
        for (i, &a) in actions.iter().enumerate() {
            if a < 0 || a as u64 >= al as u64 {
                return Err(format!("actions[{i}] = {a} is out of range: {} has actions 0..{}", G::ID, al - 1));
            }
            if !out.mask[i * al + a as usize] {
                let state = &self.envs[i].state;
                let what = match state.move_of(a as u32) {
                    Some(m) => format!("{} ({})", state.format_move(m), state.explain_illegal(m)),
                    None => "not a move in that position".to_string(),
                };
                return Err(format!(
                    "actions[{i}] = {a} is not legal in environment {i}: {what}; no environment was stepped"
                ));
            }
        }
        let (start, widths, max_plies) = (&self.start, self.widths(), self.max_plies);
        for_each_env(&mut self.envs, widths, out, self.threads, |i, env, row| {
            let action = actions[i] as u32;
            let mv = env.moves[env.find(action).expect("an action the mask holds is listed")];
            // Clear the mask entries of the position we leave; the move
            // lists the new position's moves and actions.
            env.clear_mask(row.mask);
            let before_player = env.state.to_move();
            if let Some(before) = &mut env.before {
                before.clone_from(&env.state);
            }
            env.state.play_listed(mv, &mut env.moves, &mut env.actions);
            env.plies += 1;
            env.history.push(action);
            row.rewards.fill(0.0);
            *row.terminated = false;
            *row.truncated = false;
            let restart = match env.state.status() {
                Status::Over(o) => {
                    let r = o.returns();
                    row.rewards[0] = r[0] as f32;
                    row.rewards[1] = r[1] as f32;
                    *row.terminated = true;
                    true
                }
                Status::Ongoing if max_plies.is_some_and(|m| env.plies >= m) => {
                    *row.truncated = true;
                    true
                }
                Status::Ongoing => false,
            };
            if restart {
                env.state.clone_from(start);
                env.plies = 0;
                env.history.clear();
                env.state.legal_actions(&mut env.moves, &mut env.actions);
            }
            env.write_legal(row.mask, row.legal, row.num_legal);
            env.update(row.obs, before_player, row.player);
        });
        Ok(())
    }

    fn random_rollouts(&mut self, returns: &mut [f32], lengths: &mut [i64]) {
        let k = lengths.len();
        let first = self.rollouts;
        self.rollouts += k as u64;
        let (seed, start, cap) = (self.seed, &self.start, self.max_plies.unwrap_or(u32::MAX));
        // Eight chunks per thread even out the games' lengths; one thread
        // plays them all in one. (Any count but 1 runs in a pool of that
        // many threads: rayon's, or the environment's own.)
        let chunk = if self.threads == 1 { k.max(1) } else { k.div_ceil(self.threads * 8).max(1) };
        let play = |(c, (returns, lengths)): (usize, (&mut [f32], &mut [i64]))| {
            let mut state = start.clone();
            let mut moves = Vec::new();
            for (j, len) in lengths.iter_mut().enumerate() {
                let game = first + (c * chunk + j) as u64;
                let mut rng = SmallRng::seed_from_u64(mix(seed ^ 0x5eed_0f9a_e5e5, game));
                state.clone_from(start);
                *len = state.random_playout(&mut rng, &mut moves, cap) as i64;
                let r = state.status().outcome().map(|o| o.returns()).unwrap_or([0.0, 0.0]);
                returns[2 * j] = r[0] as f32;
                returns[2 * j + 1] = r[1] as f32;
            }
        };
        if k <= chunk {
            play((0, (returns, lengths)));
        } else {
            returns.par_chunks_mut(2 * chunk).zip(lengths.par_chunks_mut(chunk)).enumerate().for_each(play);
        }
    }

    fn state(&self, i: usize) -> Box<dyn StateOps> {
        // Rebuild from the start and the history, so the copy has the
        // history and caches a `State` keeps.
        let mut s = Typed::new(self.start.clone(), None);
        let env = &self.envs[i];
        let mut moves = Vec::new();
        let mut actions = Vec::new();
        let mut replay = self.start.clone();
        for &a in &env.history {
            replay.legal_actions(&mut moves, &mut actions);
            let k = actions.iter().position(|&x| x == a).expect("a played action was legal");
            s.play_checked(a, moves[k]);
            replay.play(moves[k]);
        }
        Box::new(s)
    }

    fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    fn threads(&self) -> usize {
        self.threads
    }
}

/// The arrays a `VecEnv` owns and writes.
struct Arrays {
    obs: Py<PyArrayDyn<f32>>,
    mask: Py<PyArray2<bool>>,
    rewards: Py<PyArray2<f32>>,
    terminated: Py<PyArray1<bool>>,
    truncated: Py<PyArray1<bool>>,
    player: Py<PyArray1<i8>>,
    legal: Py<PyArray2<i32>>,
    num_legal: Py<PyArray1<i32>>,
}

impl Arrays {
    fn new(py: Python<'_>, n: usize, shape: [usize; 3], actions: usize, max_legal: usize) -> PyResult<Self> {
        let [c, h, w] = shape;
        let obs = PyArrayDyn::<f32>::zeros(py, vec![n, c, h, w], false);
        let mask = PyArray2::<bool>::zeros(py, [n, actions], false);
        let rewards = PyArray2::<f32>::zeros(py, [n, 2], false);
        let terminated = PyArray1::<bool>::zeros(py, n, false);
        let truncated = PyArray1::<bool>::zeros(py, n, false);
        let player = PyArray1::<i8>::zeros(py, n, false);
        let legal = PyArray2::<i32>::zeros(py, [n, max_legal], false);
        let num_legal = PyArray1::<i32>::zeros(py, n, false);
        for arr in [
            obs.as_any(),
            mask.as_any(),
            rewards.as_any(),
            terminated.as_any(),
            truncated.as_any(),
            player.as_any(),
            legal.as_any(),
            num_legal.as_any(),
        ] {
            read_only(arr)?;
        }
        Ok(Arrays {
            obs: obs.unbind(),
            mask: mask.unbind(),
            rewards: rewards.unbind(),
            terminated: terminated.unbind(),
            truncated: truncated.unbind(),
            player: player.unbind(),
            legal: legal.unbind(),
            num_legal: num_legal.unbind(),
        })
    }

    /// Call `f` with the arrays as slices.
    fn write<R>(&self, py: Python<'_>, f: impl FnOnce(Buffers<'_>) -> R) -> R {
        let obs = self.obs.bind(py);
        let mask = self.mask.bind(py);
        let rewards = self.rewards.bind(py);
        let terminated = self.terminated.bind(py);
        let truncated = self.truncated.bind(py);
        let player = self.player.bind(py);
        let legal = self.legal.bind(py);
        let num_legal = self.num_legal.bind(py);
        // Safety: the arrays were made by `Arrays::new`, are C-contiguous,
        // flagged read-only for Python and written only here, under the
        // `&mut` borrow of the `VecEnv` that owns them, so no other Rust
        // reference to their data exists meanwhile.
        let bufs = unsafe {
            Buffers {
                obs: obs.as_slice_mut().expect("contiguous"),
                mask: mask.as_slice_mut().expect("contiguous"),
                rewards: rewards.as_slice_mut().expect("contiguous"),
                terminated: terminated.as_slice_mut().expect("contiguous"),
                truncated: truncated.as_slice_mut().expect("contiguous"),
                player: player.as_slice_mut().expect("contiguous"),
                legal: legal.as_slice_mut().expect("contiguous"),
                num_legal: num_legal.as_slice_mut().expect("contiguous"),
            }
        };
        f(bufs)
    }
}

/// Run `f` in `pool` if there is one, else where we are (its parallel
/// parts then go to rayon's global pool).
fn in_pool<R: Send>(pool: &Option<rayon::ThreadPool>, f: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// Flag an array the environment owns as read-only for Python.
fn read_only(a: &Bound<'_, PyAny>) -> PyResult<()> {
    let kwargs = PyDict::new(a.py());
    kwargs.set_item("write", false)?;
    a.call_method("setflags", (), Some(&kwargs))?;
    Ok(())
}

/// `n` games of one type stepped together.
///
/// `VecEnv(game, n, seed=0, max_plies=None, threads=None, **options)`:
/// `game` is a `Game` or a game's id (then with its options as keywords).
/// Every environment starts at the start position. `threads` caps the
/// threads a call uses (default: every thread of rayon's pool, one per
/// core unless `RAYON_NUM_THREADS` says otherwise). See `docs/python.md`.
#[pyclass(name = "VecEnv", module = "tabula")]
pub struct PyVecEnv {
    game: Arc<dyn GameOps>,
    inner: Box<dyn VecOps>,
    arrays: Arrays,
    /// The actions of the step in progress, converted once (no allocation
    /// after the first step).
    actions: Vec<i64>,
    /// A pool of its own when `threads` is neither 1 nor rayon's global
    /// pool's size (the global pool serves the default).
    pool: Option<rayon::ThreadPool>,
}

impl PyVecEnv {
    fn outputs<'py>(&self, py: Python<'py>, full: bool) -> PyResult<Bound<'py, PyTuple>> {
        let a = &self.arrays;
        let obs = a.obs.bind(py).clone().into_any();
        let mask = a.mask.bind(py).clone().into_any();
        if !full {
            return PyTuple::new(py, [obs, mask]);
        }
        PyTuple::new(
            py,
            [
                obs,
                mask,
                a.rewards.bind(py).clone().into_any(),
                a.terminated.bind(py).clone().into_any(),
                a.truncated.bind(py).clone().into_any(),
            ],
        )
    }

    fn reset_all(&mut self, py: Python<'_>, seed: Option<u64>) {
        let (inner, pool) = (&mut self.inner, &self.pool);
        self.arrays.write(py, |bufs| py.detach(|| in_pool(pool, || inner.reset(seed, bufs))));
    }

    /// Read `actions` (a sequence or an integer array of shape `(n,)`) into
    /// `self.actions`.
    fn read_actions(&mut self, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        let n = self.inner.len();
        self.actions.clear();
        if let Ok(arr) = actions.cast::<PyUntypedArray>() {
            if arr.ndim() != 1 || arr.shape()[0] != n {
                return Err(PyValueError::new_err(format!(
                    "actions must have shape ({n},), one per environment, not {:?}",
                    arr.shape()
                )));
            }
            let kind: String = arr.dtype().getattr("kind")?.extract()?;
            if kind != "i" && kind != "u" {
                return Err(PyTypeError::new_err(format!(
                    "actions must be integers, not an array of {}",
                    arr.dtype().str()?
                )));
            }
            macro_rules! read {
                ($($t:ty),*) => {{
                    $(
                        if let Ok(a) = arr.cast::<PyArray1<$t>>() {
                            let ro = a.readonly();
                            match ro.as_slice() {
                                Ok(s) => self.actions.extend(s.iter().map(|&v| v as i64)),
                                Err(_) => self.actions.extend(ro.as_array().iter().map(|&v| v as i64)),
                            }
                            return Ok(());
                        }
                    )*
                }};
            }
            read!(i64, i32, i16, i8, u32, u16, u8);
            if let Ok(a) = arr.cast::<PyArray1<u64>>() {
                // Values past i64::MAX become negative and are refused as out of range.
                self.actions.extend(a.readonly().as_array().iter().map(|&v| v.min(i64::MAX as u64) as i64));
                return Ok(());
            }
            return Err(PyTypeError::new_err(format!("actions of dtype {} are not supported", arr.dtype().str()?)));
        }
        let list: Vec<i64> = actions.extract().map_err(|_| {
            PyTypeError::new_err(format!("actions must be a sequence of {n} integers or an integer numpy array"))
        })?;
        if list.len() != n {
            return Err(PyValueError::new_err(format!(
                "actions has {} entries, and there are {n} environments",
                list.len()
            )));
        }
        self.actions.extend(list);
        Ok(())
    }
}

#[pymethods]
impl PyVecEnv {
    #[new]
    #[pyo3(signature = (game, n, seed=0, max_plies=None, threads=None, **options))]
    fn new(
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        n: i64,
        seed: u64,
        max_plies: Option<u32>,
        threads: Option<i64>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let game = crate::game::load_game(game, options)?.inner;
        if !(1..=1 << 20).contains(&n) {
            return Err(PyValueError::new_err(format!("n must be between 1 and {}, not {n}", 1 << 20)));
        }
        if max_plies == Some(0) {
            return Err(PyValueError::new_err("max_plies must be at least 1"));
        }
        let all = rayon::current_num_threads().max(1);
        let threads = match threads {
            None => all,
            Some(t) if (1..=MAX_THREADS as i64).contains(&t) => t as usize,
            Some(t) => {
                return Err(PyValueError::new_err(format!("threads must be between 1 and {MAX_THREADS}, not {t}")))
            }
        };
        let pool = if threads == 1 || threads == all {
            None
        } else {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("tabula-vec-{i}"))
                .build()
                .map_err(|e| PyValueError::new_err(format!("cannot start {threads} threads: {e}")))?;
            Some(pool)
        };
        let n = n as usize;
        let arrays =
            Arrays::new(py, n, game.observation_shape(), game.num_distinct_actions(), game.max_legal_actions())?;
        let mut inner = game.new_vec_env(n, seed, max_plies);
        inner.set_threads(threads);
        let mut env = PyVecEnv { game, inner, arrays, actions: Vec::with_capacity(n), pool };
        env.reset_all(py, None);
        Ok(env)
    }

    /// Restart every game; returns `(obs, legal_mask)`. A `seed` reseeds
    /// `random_rollouts`.
    #[pyo3(signature = (seed=None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<u64>) -> PyResult<Bound<'py, PyTuple>> {
        self.reset_all(py, seed);
        self.outputs(py, false)
    }

    /// Apply one action per environment (an integer array or sequence of
    /// shape `(n,)`); returns `(obs, legal_mask, rewards, terminated,
    /// truncated)`. Finished games restart at once: their row of `obs` and
    /// `legal_mask` shows the new game, `rewards[i]` the finished game's
    /// returns. The arrays are the environment's own, overwritten by the
    /// next call: copy them to keep them. An illegal action raises
    /// `IllegalActionError` before any environment moves.
    fn step<'py>(&mut self, py: Python<'py>, actions: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
        self.read_actions(actions)?;
        let (inner, acts, pool) = (&mut self.inner, &self.actions, &self.pool);
        self.arrays
            .write(py, |bufs| py.detach(|| in_pool(pool, || inner.step(acts, bufs))))
            .map_err(IllegalActionError::new_err)?;
        self.outputs(py, true)
    }

    /// Play `k` random games from the start, across threads with the GIL
    /// released; returns `(returns, lengths)`: float32 `(k, 2)` and int64
    /// `(k,)`. Game `j` of the environment's life is seeded from the seed
    /// and `j`, so the results do not depend on the number of threads.
    fn random_rollouts<'py>(&mut self, py: Python<'py>, k: i64) -> PyResult<Bound<'py, PyTuple>> {
        if !(0..=1 << 32).contains(&k) {
            return Err(PyValueError::new_err(format!("k must be between 0 and 2**32, not {k}")));
        }
        let k = k as usize;
        let returns = PyArray2::<f32>::zeros(py, [k, 2], false);
        let lengths = PyArray1::<i64>::zeros(py, k, false);
        {
            // Safety: both arrays were just made here and nothing else sees them.
            let r = unsafe { returns.as_slice_mut() }.expect("contiguous");
            let l = unsafe { lengths.as_slice_mut() }.expect("contiguous");
            let (inner, pool) = (&mut self.inner, &self.pool);
            py.detach(|| in_pool(pool, || inner.random_rollouts(r, l)));
        }
        PyTuple::new(py, [returns.into_any(), lengths.into_any()])
    }

    /// A copy of environment `i`'s game as a `State`.
    fn state(&self, i: i64) -> PyResult<PyState> {
        let n = self.inner.len() as i64;
        if !(0..n).contains(&i) {
            return Err(PyValueError::new_err(format!("environment {i} does not exist (0..{})", n - 1)));
        }
        Ok(PyState::new(self.game.clone(), self.inner.state(i as usize)))
    }

    /// The number of environments.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The number of environments.
    #[getter]
    fn num_envs(&self) -> usize {
        self.inner.len()
    }

    /// The most threads a call uses, the calling one included.
    #[getter]
    fn threads(&self) -> usize {
        self.inner.threads()
    }

    /// The game.
    #[getter]
    fn game(&self) -> PyGame {
        PyGame::from_ops(self.game.clone())
    }

    /// The player to move in each environment (int8, `(n,)`); the
    /// observations are from this player's point of view.
    #[getter]
    fn current_player<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        self.arrays.player.bind(py).clone()
    }

    /// The current observations (float32, `(n, planes, rows, columns)`).
    #[getter]
    fn observations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArrayDyn<f32>> {
        self.arrays.obs.bind(py).clone()
    }

    /// The current legal-action masks (bool, `(n, num_distinct_actions)`).
    #[getter]
    fn legal_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        self.arrays.mask.bind(py).clone()
    }

    /// Each environment's legal actions as a list (int32, `(n,
    /// game.max_legal_actions())`): row `i` holds the
    /// `num_legal_actions[i]` legal actions of environment `i` (the same
    /// set as its row of `legal_mask`, in the game's move order), then -1.
    /// Like the other arrays, the environment's own, updated by every
    /// `step` and `reset`.
    #[getter]
    fn legal_actions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i32>> {
        self.arrays.legal.bind(py).clone()
    }

    /// The number of legal actions of each environment (int32, `(n,)`).
    #[getter]
    fn num_legal_actions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        self.arrays.num_legal.bind(py).clone()
    }

    fn __repr__(&self) -> String {
        format!("<tabula.VecEnv {} x {}>", self.inner.len(), self.game.spec_string())
    }
}
