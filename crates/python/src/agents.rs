//! `tabula.Agent`: Tabula's AIs (MCTS, each game's levels, Cold War's
//! perfect player) callable from Python.

use crate::errors::{IllegalActionError, TabulaError};
use crate::game::{GameOps, PyGame};
use crate::state::{PyState, StateOps, Typed};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tabula_core::encoding::Encoding;
use tabula_core::{Agent, GameMeta, ThinkContext};

/// An AI over any game's states.
pub(crate) trait AgentOps: Send {
    /// The action the agent plays in `state`.
    fn choose(&mut self, state: &dyn StateOps, ctx: &ThinkContext) -> Result<u32, String>;
    fn describe(&self) -> String;
}

pub(crate) struct AgentImpl<G: GameMeta + Encoding> {
    agent: Box<dyn Agent<G>>,
}

impl<G: GameMeta + Encoding> AgentImpl<G> {
    pub(crate) fn new(agent: Box<dyn Agent<G>>) -> Self {
        AgentImpl { agent }
    }
}

impl<G: GameMeta + Encoding> AgentOps for AgentImpl<G> {
    fn choose(&mut self, state: &dyn StateOps, ctx: &ThinkContext) -> Result<u32, String> {
        let typed = state
            .as_any()
            .downcast_ref::<Typed<G>>()
            .ok_or_else(|| format!("a {} agent cannot play a state of another game", G::ID))?;
        if let Some(o) = typed.state.status().outcome() {
            return Err(format!("the game is over ({}); there is nothing to choose", o.reason));
        }
        let mv = self.agent.choose(&typed.state, ctx);
        typed.state.action_of(mv).ok_or_else(|| format!("the agent chose a move without an action: {mv:?}"))
    }
    fn describe(&self) -> String {
        self.agent.describe()
    }
}

/// One of Tabula's AIs for a game.
///
/// `Agent(game, level=None, seed=0, time=None)`: `level` is one of
/// `game.levels()` (default: the game's default level), `"strongest"`, or
/// the MCTS specs `uct:MS` / `uct-iter:N`. `time` (seconds) caps each
/// move's thinking time on top of the level's own budget.
#[pyclass(name = "Agent", module = "tabula")]
pub struct PyAgent {
    game: Arc<dyn GameOps>,
    level: String,
    time: Option<f64>,
    inner: Mutex<Box<dyn AgentOps>>,
}

fn check_time(time: Option<f64>) -> PyResult<Option<Duration>> {
    match time {
        None => Ok(None),
        Some(t) if t.is_finite() && t > 0.0 && t < 1e6 => Ok(Some(Duration::from_secs_f64(t))),
        Some(t) => Err(PyValueError::new_err(format!("time must be a positive number of seconds, not {t}"))),
    }
}

#[pymethods]
impl PyAgent {
    #[new]
    #[pyo3(signature = (game, level=None, seed=0, time=None))]
    fn new(game: &Bound<'_, PyAny>, level: Option<&str>, seed: u64, time: Option<f64>) -> PyResult<Self> {
        let game = crate::game::load_game(game, None)?.inner;
        check_time(time)?;
        let level = match level {
            None => game.default_level().to_string(),
            Some("strongest") => game.levels().last().map(|l| l.id.clone()).unwrap_or_default(),
            Some(l) => l.to_string(),
        };
        let inner = game.new_agent(&level, seed).ok_or_else(|| {
            let known: Vec<String> = game.levels().into_iter().map(|l| l.id).collect();
            TabulaError::new_err(format!(
                "{} has no AI level '{level}' (known: {}, strongest; or {})",
                game.id(),
                known.join(", "),
                game.level_forms().join(", ")
            ))
        })?;
        Ok(PyAgent { game, level, time, inner: Mutex::new(inner) })
    }

    /// The action the agent plays in `state` (the GIL is released while it
    /// thinks). `time` (seconds) caps this move's thinking time.
    #[pyo3(signature = (state, time=None))]
    fn choose(&self, py: Python<'_>, state: PyRef<'_, PyState>, time: Option<f64>) -> PyResult<u32> {
        if state.game.spec_string() != self.game.spec_string() && state.game.id() != self.game.id() {
            return Err(TabulaError::new_err(format!("this agent plays {}, not {}", self.game.id(), state.game.id())));
        }
        let budget = check_time(time.or(self.time))?;
        let ctx = ThinkContext { deadline: budget.map(|d| Instant::now() + d), ..ThinkContext::default() };
        let inner = &self.inner;
        let typed: &dyn StateOps = &*state.inner;
        let result = py.detach(|| {
            let mut agent = inner.lock().unwrap_or_else(|p| p.into_inner());
            agent.choose(typed, &ctx)
        });
        result.map_err(IllegalActionError::new_err)
    }

    /// Choose an action and apply it to `state`; returns the action.
    #[pyo3(signature = (state, time=None))]
    fn step(&self, py: Python<'_>, state: Bound<'_, PyState>, time: Option<f64>) -> PyResult<u32> {
        let action = self.choose(py, state.borrow(), time)?;
        state.borrow_mut().inner.apply_action(action).map_err(|e| e.into_py())?;
        Ok(action)
    }

    /// The level this agent plays.
    #[getter]
    fn level(&self) -> &str {
        &self.level
    }

    /// The game this agent plays.
    #[getter]
    fn game(&self) -> PyGame {
        PyGame::from_ops(self.game.clone())
    }

    /// What the agent does, e.g. `mcts 3000 iterations`.
    fn describe(&self) -> String {
        self.inner.lock().map(|a| a.describe()).unwrap_or_else(|p| p.into_inner().describe())
    }

    fn __repr__(&self) -> String {
        format!("<tabula.Agent {} level={}: {}>", self.game.spec_string(), self.level, self.describe())
    }
}
