//! `tabula.State`: one game in progress, OpenSpiel style.

use crate::errors::{IllegalActionError, NotationError, TabulaError};
use crate::game::{parse_player, GameOps, PyGame};
use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::any::Any;
use std::sync::Arc;
use tabula_core::encoding::Encoding;
use tabula_core::{GameMeta, Player, Status};

/// OpenSpiel's player id of a finished game (`pyspiel.PlayerId.TERMINAL`).
pub(crate) const TERMINAL_PLAYER: i64 = -4;

/// Why an action was refused.
pub(crate) enum ActionError {
    /// The game is over.
    Over(String),
    /// Out of range, or not legal here.
    Illegal(String),
}

impl ActionError {
    pub(crate) fn into_py(self) -> PyErr {
        match self {
            ActionError::Over(m) | ActionError::Illegal(m) => IllegalActionError::new_err(m),
        }
    }
}

/// A state of any game, as the Python classes use it.
pub(crate) trait StateOps: Send + Sync + 'static {
    fn clone_box(&self) -> Box<dyn StateOps>;
    fn as_any(&self) -> &dyn Any;
    fn to_move(&self) -> Player;
    fn status(&self) -> Status;
    fn plies(&self) -> u32;
    fn score(&self) -> Option<[i32; 2]>;
    /// The legal actions, ascending.
    fn legal_actions(&mut self) -> &[u32];
    fn apply_action(&mut self, action: u32) -> Result<(), ActionError>;
    fn action_to_string(&self, action: u32) -> Result<String, String>;
    fn string_to_action(&self, text: &str) -> Result<u32, String>;
    fn write_observation(&self, player: Player, out: &mut [f32]);
    fn position(&self) -> Option<String>;
    /// The position the game started from, when not the start position.
    fn start_position(&self) -> Option<&str>;
    /// Every action applied since the start, in order.
    fn history(&self) -> &[u32];
    fn render(&self) -> String;
    fn view_json(&self) -> String;
}

/// A typed state with the caches the Python API needs: the legal actions of
/// the current position (sorted, with their moves) and the action history.
pub(crate) struct Typed<G: Encoding> {
    pub(crate) state: G,
    start: Option<String>,
    history: Vec<u32>,
    /// `(action, move)` pairs of the position, by action; valid when `fresh`.
    legal: Vec<(u32, G::Move)>,
    actions: Vec<u32>,
    fresh: bool,
    scratch_moves: Vec<G::Move>,
    scratch_actions: Vec<u32>,
}

impl<G: Encoding> Clone for Typed<G> {
    fn clone(&self) -> Self {
        Typed {
            state: self.state.clone(),
            start: self.start.clone(),
            history: self.history.clone(),
            legal: self.legal.clone(),
            actions: self.actions.clone(),
            fresh: self.fresh,
            scratch_moves: Vec::new(),
            scratch_actions: Vec::new(),
        }
    }
}

impl<G: Encoding> Typed<G> {
    pub(crate) fn new(state: G, start: Option<String>) -> Self {
        Typed {
            state,
            start,
            history: Vec::new(),
            legal: Vec::new(),
            actions: Vec::new(),
            fresh: false,
            scratch_moves: Vec::new(),
            scratch_actions: Vec::new(),
        }
    }

    fn refresh(&mut self) {
        if self.fresh {
            return;
        }
        self.state.legal_actions(&mut self.scratch_moves, &mut self.scratch_actions);
        self.legal.clear();
        self.legal.extend(self.scratch_actions.iter().copied().zip(self.scratch_moves.iter().copied()));
        self.legal.sort_unstable_by_key(|p| p.0);
        self.actions.clear();
        self.actions.extend(self.legal.iter().map(|p| p.0));
        self.fresh = true;
    }

    /// The move of an action, or an error saying why it cannot be played.
    fn checked_move(&mut self, action: u32) -> Result<G::Move, ActionError> {
        if let Status::Over(o) = self.state.status() {
            return Err(ActionError::Over(format!("the game is over ({}); no action can be applied", o.reason)));
        }
        self.refresh();
        if let Ok(i) = self.legal.binary_search_by_key(&action, |p| p.0) {
            return Ok(self.legal[i].1);
        }
        let space = G::num_distinct_actions(self.state.options());
        if action as usize >= space {
            return Err(ActionError::Illegal(format!(
                "action {action} is out of range: {} has actions 0..{}",
                G::ID,
                space - 1
            )));
        }
        let why = match self.state.move_of(action) {
            Some(m) => format!(
                "action {action} ({}) is not legal here: {}",
                self.state.format_move(m),
                self.state.explain_illegal(m)
            ),
            None => format!("action {action} is not a move in this position"),
        };
        Err(ActionError::Illegal(why))
    }

    /// Play a legal move (the caller checked it).
    pub(crate) fn play_checked(&mut self, action: u32, mv: G::Move) {
        self.state.play(mv);
        self.history.push(action);
        self.fresh = false;
    }
}

impl<G: GameMeta + Encoding> StateOps for Typed<G> {
    fn clone_box(&self) -> Box<dyn StateOps> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_move(&self) -> Player {
        self.state.to_move()
    }
    fn status(&self) -> Status {
        self.state.status()
    }
    fn plies(&self) -> u32 {
        self.state.plies()
    }
    fn score(&self) -> Option<[i32; 2]> {
        self.state.score()
    }
    fn legal_actions(&mut self) -> &[u32] {
        self.refresh();
        &self.actions
    }
    fn apply_action(&mut self, action: u32) -> Result<(), ActionError> {
        let mv = self.checked_move(action)?;
        self.play_checked(action, mv);
        Ok(())
    }
    fn action_to_string(&self, action: u32) -> Result<String, String> {
        let space = G::num_distinct_actions(self.state.options());
        if action as usize >= space {
            return Err(format!("action {action} is out of range: {} has actions 0..{}", G::ID, space - 1));
        }
        match self.state.move_of(action) {
            Some(m) => Ok(self.state.format_move(m)),
            None => Err(format!("action {action} is not a move in this position")),
        }
    }
    fn string_to_action(&self, text: &str) -> Result<u32, String> {
        let mv = self.state.parse_move(text).map_err(|e| e.message)?;
        match self.state.action_of(mv) {
            Some(a) if self.state.move_of(a) == Some(mv) => Ok(a),
            _ => Err(format!("'{text}' is not a move in this position")),
        }
    }
    fn write_observation(&self, player: Player, out: &mut [f32]) {
        self.state.write_observation(player, out);
    }
    fn position(&self) -> Option<String> {
        self.state.position()
    }
    fn start_position(&self) -> Option<&str> {
        self.start.as_deref()
    }
    fn history(&self) -> &[u32] {
        &self.history
    }
    fn render(&self) -> String {
        self.state.render_text(false)
    }
    fn view_json(&self) -> String {
        self.state.view().to_string()
    }
}

/// Replay a serialized state (see [`PyState::serialize`]).
pub(crate) fn deserialize(game: &Arc<dyn GameOps>, text: &str) -> PyResult<Box<dyn StateOps>> {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim();
    let mut state = if first == "start" {
        game.new_state()
    } else if let Some(pos) = first.strip_prefix("position ") {
        game.state_from_position(pos).map_err(NotationError::new_err)?
    } else {
        return Err(TabulaError::new_err(format!(
            "not a serialized {} state: the first line must be 'start' or 'position <text>', not '{first}'",
            game.id()
        )));
    };
    for (i, line) in lines.enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let action: u32 = line.parse().map_err(|_| {
            TabulaError::new_err(format!("serialized state, line {}: '{line}' is not an action number", i + 2))
        })?;
        state.apply_action(action).map_err(|e| {
            let m = match e {
                ActionError::Over(m) | ActionError::Illegal(m) => m,
            };
            IllegalActionError::new_err(format!("serialized state, line {}: {m}", i + 2))
        })?;
    }
    Ok(state)
}

/// One game in progress.
///
/// Made by `Game.new_initial_state()`; see `docs/python.md`.
#[pyclass(name = "State", module = "tabula")]
pub struct PyState {
    pub(crate) game: Arc<dyn GameOps>,
    pub(crate) inner: Box<dyn StateOps>,
}

impl PyState {
    pub(crate) fn new(game: Arc<dyn GameOps>, inner: Box<dyn StateOps>) -> Self {
        PyState { game, inner }
    }

    /// `(player, action)` or `(action)`, as OpenSpiel accepts both.
    fn split_player_arg<'a, 'py>(
        &self,
        a: &'a Bound<'py, PyAny>,
        b: Option<&'a Bound<'py, PyAny>>,
    ) -> (Option<&'a Bound<'py, PyAny>>, &'a Bound<'py, PyAny>) {
        match b {
            Some(b) => (Some(a), b),
            None => (None, a),
        }
    }

    fn action_arg(&self, value: &Bound<'_, PyAny>) -> PyResult<u32> {
        action_from_py(value, self.game.num_distinct_actions())
    }

    fn serialize_text(&self) -> String {
        let mut out = match self.inner.start_position() {
            Some(p) => format!("position {p}\n"),
            None => "start\n".to_string(),
        };
        for a in self.inner.history() {
            out.push_str(&a.to_string());
            out.push('\n');
        }
        out
    }
}

/// Read an action: a Python integer (or numpy integer) in range.
pub(crate) fn action_from_py(value: &Bound<'_, PyAny>, space: usize) -> PyResult<u32> {
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(pyo3::exceptions::PyTypeError::new_err("an action is an integer, not a bool"));
    }
    let a: i64 = match value.extract() {
        Ok(a) => a,
        Err(_) => {
            // numpy integers and other objects with __index__.
            match value.call_method0("__index__").and_then(|v| v.extract::<i64>()) {
                Ok(a) => a,
                Err(_) => {
                    return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                        "an action is an integer, not {}",
                        value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "this".into())
                    )))
                }
            }
        }
    };
    if a < 0 || a as u64 >= space as u64 {
        return Err(IllegalActionError::new_err(format!("action {a} is out of range 0..{}", space - 1)));
    }
    Ok(a as u32)
}

#[pymethods]
impl PyState {
    /// The player to move (0 or 1), or -4 (`pyspiel.PlayerId.TERMINAL`)
    /// when the game is over.
    fn current_player(&self) -> i64 {
        if self.inner.status().is_over() {
            TERMINAL_PLAYER
        } else {
            self.inner.to_move().index() as i64
        }
    }

    /// Whether the game is over.
    fn is_terminal(&self) -> bool {
        self.inner.status().is_over()
    }

    /// `[first, second]`: +1 for a win, -1 for a loss, 0 for a draw or an
    /// unfinished game.
    fn returns(&self) -> Vec<f64> {
        match self.inner.status() {
            Status::Over(o) => o.returns().to_vec(),
            Status::Ongoing => vec![0.0, 0.0],
        }
    }

    /// The legal actions, ascending (empty when the game is over, or when
    /// `player` is given and is not the player to move).
    #[pyo3(signature = (player=None))]
    fn legal_actions(&mut self, player: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<u32>> {
        if let Some(p) = player {
            let p = parse_player(&*self.game, p)?;
            if self.inner.status().is_over() || p != self.inner.to_move() {
                return Ok(Vec::new());
            }
        }
        Ok(self.inner.legal_actions().to_vec())
    }

    /// A numpy bool array over the whole action space, True where legal.
    #[pyo3(signature = (player=None))]
    fn legal_actions_mask<'py>(
        &mut self,
        py: Python<'py>,
        player: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let mask = PyArray1::<bool>::zeros(py, self.game.num_distinct_actions(), false);
        let mine = match player {
            Some(p) => parse_player(&*self.game, p)? == self.inner.to_move(),
            None => true,
        };
        if mine {
            // Safety: the array was just made here and nothing else sees it.
            let slice = unsafe { mask.as_slice_mut() }.expect("a new array is contiguous");
            for &a in self.inner.legal_actions() {
                slice[a as usize] = true;
            }
        }
        Ok(mask)
    }

    /// Apply an action of the player to move. Raises `IllegalActionError`
    /// (a `ValueError`) for an illegal or out-of-range action or a finished
    /// game; the state is then unchanged.
    fn apply_action(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let a = self.action_arg(action)?;
        self.inner.apply_action(a).map_err(ActionError::into_py)
    }

    /// The state after an action, leaving this one unchanged.
    fn child(&self, action: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let a = self.action_arg(action)?;
        let mut next = self.inner.clone_box();
        next.apply_action(a).map_err(ActionError::into_py)?;
        Ok(PyState::new(self.game.clone(), next))
    }

    /// The action in the game's notation: `action_to_string(action)` or
    /// OpenSpiel's `action_to_string(player, action)`.
    #[pyo3(signature = (a, b=None))]
    fn action_to_string(&self, a: &Bound<'_, PyAny>, b: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let (_, action) = self.split_player_arg(a, b);
        let action = self.action_arg(action)?;
        self.inner.action_to_string(action).map_err(IllegalActionError::new_err)
    }

    /// The action of a move in the game's notation:
    /// `string_to_action(text)` or `string_to_action(player, text)`.
    #[pyo3(signature = (a, b=None))]
    fn string_to_action(&self, a: &Bound<'_, PyAny>, b: Option<&Bound<'_, PyAny>>) -> PyResult<u32> {
        let (_, text) = self.split_player_arg(a, b);
        let text: String =
            text.extract().map_err(|_| pyo3::exceptions::PyTypeError::new_err("a move is given as a string"))?;
        self.inner.string_to_action(&text).map_err(NotationError::new_err)
    }

    /// The legal moves in the game's notation, in the order of
    /// `legal_actions()`.
    fn legal_moves(&mut self) -> Vec<String> {
        let actions = self.inner.legal_actions().to_vec();
        actions.into_iter().filter_map(|a| self.inner.action_to_string(a).ok()).collect()
    }

    /// The observation planes as seen by `player` (default: the player to
    /// move, or the first player when the game is over), a float32 array
    /// of `Game.observation_shape()`.
    #[pyo3(signature = (player=None))]
    fn observation_tensor<'py>(
        &self,
        py: Python<'py>,
        player: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let p = match player {
            Some(p) => parse_player(&*self.game, p)?,
            None => self.inner.to_move(),
        };
        let shape = self.game.observation_shape();
        let arr = PyArray3::<f32>::zeros(py, shape, false);
        // Safety: the array was just made here and nothing else sees it.
        let slice = unsafe { arr.as_slice_mut() }.expect("a new array is contiguous");
        self.inner.write_observation(p, slice);
        Ok(arr)
    }

    /// An independent copy.
    fn clone(&self) -> PyState {
        PyState::new(self.game.clone(), self.inner.clone_box())
    }

    fn __copy__(&self) -> PyState {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyState {
        self.clone()
    }

    /// The state as text: the start (`start` or `position <text>`) and then
    /// one action per line. `Game.deserialize_state` reads it back.
    fn serialize(&self) -> String {
        self.serialize_text()
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let module = py.import("tabula._tabula")?;
        let restore = module.getattr("restore_state")?;
        let args = PyTuple::new(py, [self.game.spec_string(), self.serialize_text()])?;
        PyTuple::new(py, [restore, args.into_any()])
    }

    /// The position in the game's notation (FEN for Cumisitha), or None
    /// for a game without one (Dots).
    fn position(&self) -> Option<String> {
        self.inner.position()
    }

    /// Every action applied since the start, in order.
    fn history(&self) -> Vec<u32> {
        self.inner.history().to_vec()
    }

    /// Plies played.
    fn move_number(&self) -> u32 {
        self.inner.plies()
    }

    /// The score `[first, second]` for games that keep one (Dots), else None.
    fn score(&self) -> Option<[i32; 2]> {
        self.inner.score()
    }

    /// The winner's index (0 or 1), None for a draw or an unfinished game.
    fn winner(&self) -> Option<usize> {
        self.inner.status().outcome().and_then(|o| o.winner).map(|p| p.index())
    }

    /// Why the game ended (`"checkmate"`, …), None while it goes on.
    fn outcome_reason(&self) -> Option<&'static str> {
        self.inner.status().outcome().map(|o| o.reason)
    }

    /// The game this state belongs to.
    fn get_game(&self) -> PyGame {
        PyGame::from_ops(self.game.clone())
    }

    /// The JSON view the browser draws (board and game-specific data).
    fn view_json(&self) -> String {
        self.inner.view_json()
    }

    /// Always False: Tabula's games have no chance nodes.
    fn is_chance_node(&self) -> bool {
        false
    }

    /// Always False: the players move in turn.
    fn is_simultaneous_node(&self) -> bool {
        false
    }

    /// Whether a player is to move (the game is not over).
    fn is_player_node(&self) -> bool {
        !self.inner.status().is_over()
    }

    fn __str__(&self) -> String {
        self.inner.render()
    }

    fn __repr__(&self) -> String {
        let status = match self.inner.status() {
            Status::Ongoing => format!("{} to move", self.game.players()[self.inner.to_move().index()]),
            Status::Over(o) => match o.winner {
                Some(w) => format!("{} won by {}", self.game.players()[w.index()], o.reason),
                None => format!("draw by {}", o.reason),
            },
        };
        format!("<tabula.State {} after {} plies, {status}>", self.game.spec_string(), self.inner.plies())
    }
}

/// Rebuild a pickled state: `(game spec, serialized state)`.
#[pyfunction]
pub(crate) fn restore_state(spec: &str, data: &str) -> PyResult<PyState> {
    let game = crate::game::game_from_spec(spec)?;
    let inner = deserialize(&game, data)?;
    Ok(PyState::new(game, inner))
}
