//! `tabula.Game` and `tabula.load_game`: a game type with its options.

use crate::agents::{AgentImpl, AgentOps};
use crate::errors::{NotationError, OptionError};
use crate::state::{deserialize, PyState, StateOps, Typed};
use crate::vecenv::{VecImpl, VecOps};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyTuple};
use std::sync::Arc;
use tabula_core::encoding::Encoding;
use tabula_core::{Game, GameMeta, GameOptions, LevelSpec, OptionSpec, Player};

/// A game type with its options, as the Python classes use it.
pub(crate) trait GameOps: Send + Sync + 'static {
    fn id(&self) -> &'static str;
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    fn players(&self) -> [&'static str; 2];
    /// Every option with its value, in the game's order.
    fn option_pairs(&self) -> Vec<(String, String)>;
    fn option_specs(&self) -> &'static [OptionSpec];
    fn num_distinct_actions(&self) -> usize;
    fn observation_shape(&self) -> [usize; 3];
    fn observation_planes(&self) -> &'static [&'static str];
    fn max_game_length(&self) -> Option<u32>;
    fn max_legal_actions(&self) -> usize;
    fn new_state(&self) -> Box<dyn StateOps>;
    fn state_from_position(&self, position: &str) -> Result<Box<dyn StateOps>, String>;
    fn levels(&self) -> Vec<LevelSpec>;
    fn default_level(&self) -> &'static str;
    /// The parametrised AI specs `new_agent` takes besides the levels.
    fn level_forms(&self) -> &'static [&'static str];
    fn new_agent(&self, level: &str, seed: u64) -> Option<Box<dyn AgentOps>>;
    fn new_vec_env(&self, n: usize, seed: u64, max_plies: Option<u32>) -> Box<dyn VecOps>;

    /// `id(key=value,...)`, the form `load_game` reads back.
    fn spec_string(&self) -> String {
        let pairs = self.option_pairs();
        if pairs.is_empty() {
            return self.id().to_string();
        }
        let inner: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{}({})", self.id(), inner.join(","))
    }
}

/// A game type `G` with its options and its start position.
pub(crate) struct GameImpl<G: Game> {
    options: G::Options,
    start: G,
}

impl<G: GameMeta + Encoding> GameImpl<G> {
    pub(crate) fn make(pairs: &[(String, String)]) -> Result<Arc<dyn GameOps>, PyErr> {
        let options = G::Options::from_pairs(pairs).map_err(|e| OptionError::new_err(format!("{}: {e}", G::ID)))?;
        let start = G::new(&options);
        Ok(Arc::new(GameImpl::<G> { options, start }))
    }
}

impl<G: GameMeta + Encoding> GameOps for GameImpl<G> {
    fn id(&self) -> &'static str {
        G::ID
    }
    fn name(&self) -> &'static str {
        G::NAME
    }
    fn description(&self) -> &'static str {
        G::DESCRIPTION
    }
    fn players(&self) -> [&'static str; 2] {
        G::PLAYERS
    }
    fn option_pairs(&self) -> Vec<(String, String)> {
        self.options.pairs()
    }
    fn option_specs(&self) -> &'static [OptionSpec] {
        G::Options::specs()
    }
    fn num_distinct_actions(&self) -> usize {
        G::num_distinct_actions(&self.options)
    }
    fn observation_shape(&self) -> [usize; 3] {
        G::observation_shape(&self.options)
    }
    fn observation_planes(&self) -> &'static [&'static str] {
        G::observation_planes()
    }
    fn max_game_length(&self) -> Option<u32> {
        G::max_game_length(&self.options)
    }
    fn max_legal_actions(&self) -> usize {
        G::max_legal_actions(&self.options)
    }
    fn new_state(&self) -> Box<dyn StateOps> {
        Box::new(Typed::new(self.start.clone(), None))
    }
    fn state_from_position(&self, position: &str) -> Result<Box<dyn StateOps>, String> {
        let state = G::from_position(position, &self.options).map_err(|e| e.message)?;
        Ok(Box::new(Typed::new(state, Some(position.trim().to_string()))))
    }
    fn levels(&self) -> Vec<LevelSpec> {
        G::levels()
    }
    fn default_level(&self) -> &'static str {
        G::default_level()
    }
    fn level_forms(&self) -> &'static [&'static str] {
        G::level_forms()
    }
    fn new_agent(&self, level: &str, seed: u64) -> Option<Box<dyn AgentOps>> {
        let agent = G::new_agent(level, seed)?;
        Some(Box::new(AgentImpl::<G>::new(agent)))
    }
    fn new_vec_env(&self, n: usize, seed: u64, max_plies: Option<u32>) -> Box<dyn VecOps> {
        Box::new(VecImpl::<G>::new(self.start.clone(), n, seed, max_plies))
    }
}

/// Read `id` or `id(key=value,...)`.
fn split_spec(spec: &str) -> PyResult<(String, Vec<(String, String)>)> {
    let spec = spec.trim();
    let Some(open) = spec.find('(') else {
        return Ok((spec.to_string(), Vec::new()));
    };
    let inner = spec[open + 1..]
        .strip_suffix(')')
        .ok_or_else(|| PyValueError::new_err(format!("'{spec}': a game with options is written id(key=value,...)")))?;
    let mut pairs = Vec::new();
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| OptionError::new_err(format!("'{part}' in '{spec}' is not key=value")))?;
        pairs.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok((spec[..open].trim().to_string(), pairs))
}

/// A game from `id(key=value,...)`.
pub(crate) fn game_from_spec(spec: &str) -> PyResult<Arc<dyn GameOps>> {
    let (id, pairs) = split_spec(spec)?;
    crate::games::make_game(&id, &pairs)
}

/// A Python option value as the text the game reads.
fn option_text(key: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(if b.is_true() { "on" } else { "off" }.to_string());
    }
    if let Ok(i) = value.extract::<i64>() {
        return Ok(i.to_string());
    }
    if let Ok(s) = value.extract::<String>() {
        return Ok(s);
    }
    Err(PyTypeError::new_err(format!(
        "option {key}: expected a number, a string or a bool, not {}",
        value.get_type().name().map(|n| n.to_string()).unwrap_or_default()
    )))
}

/// Options from keyword arguments.
pub(crate) fn options_from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    if let Some(kw) = kwargs {
        for (k, v) in kw.iter() {
            let key: String = k.extract()?;
            let text = option_text(&key, &v)?;
            pairs.push((key, text));
        }
    }
    Ok(pairs)
}

/// A player given as 0/1 or by name (`"white"`).
pub(crate) fn parse_player(game: &dyn GameOps, value: &Bound<'_, PyAny>) -> PyResult<Player> {
    if let Ok(i) = value.extract::<i64>() {
        if i == 0 || i == 1 {
            return Ok(Player::from_index(i as usize));
        }
        return Err(PyValueError::new_err(format!("player {i} does not exist: players are 0 and 1")));
    }
    if let Ok(name) = value.extract::<String>() {
        if let Some(i) = game.players().iter().position(|p| p.eq_ignore_ascii_case(&name)) {
            return Ok(Player::from_index(i));
        }
        return Err(PyValueError::new_err(format!(
            "'{name}' is not a player of {} ({} or {})",
            game.id(),
            game.players()[0],
            game.players()[1]
        )));
    }
    Err(PyTypeError::new_err("a player is 0, 1 or a player's name"))
}

/// A game type with its options: the factory of states, environments and
/// agents. Made by `tabula.load_game`.
#[pyclass(name = "Game", module = "tabula", frozen)]
pub struct PyGame {
    pub(crate) inner: Arc<dyn GameOps>,
}

impl PyGame {
    pub(crate) fn from_ops(inner: Arc<dyn GameOps>) -> Self {
        PyGame { inner }
    }
}

/// Load a game: `load_game("dots", width=20, height=20)`, or OpenSpiel's
/// string form `load_game("dots(width=20,height=20)")`. Raises
/// `OptionError` for an unknown option or a bad value.
#[pyfunction]
#[pyo3(signature = (name, **options))]
pub(crate) fn load_game(name: &Bound<'_, PyAny>, options: Option<&Bound<'_, PyDict>>) -> PyResult<PyGame> {
    if let Ok(g) = name.cast::<PyGame>() {
        if options.is_some_and(|o| !o.is_empty()) {
            return Err(PyValueError::new_err("a loaded game takes no further options"));
        }
        return Ok(PyGame::from_ops(g.get().inner.clone()));
    }
    let name: String = name
        .extract()
        .map_err(|_| PyTypeError::new_err("load_game takes a game's name, e.g. load_game('dots', width=20)"))?;
    let (id, mut pairs) = split_spec(&name)?;
    pairs.extend(options_from_kwargs(options)?);
    Ok(PyGame::from_ops(crate::games::make_game(&id, &pairs)?))
}

/// The ids of the games Tabula hosts.
#[pyfunction]
pub(crate) fn registered_games() -> Vec<&'static str> {
    crate::games::GAME_IDS.to_vec()
}

#[pymethods]
impl PyGame {
    /// The game's id (`"dots"`).
    #[getter]
    fn id(&self) -> &'static str {
        self.inner.id()
    }

    /// The game's display name.
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    /// One sentence about the game.
    #[getter]
    fn description(&self) -> &'static str {
        self.inner.description()
    }

    /// The players' names, first player first (`["white", "black"]`).
    fn players(&self) -> Vec<&'static str> {
        self.inner.players().to_vec()
    }

    /// Always 2.
    fn num_players(&self) -> usize {
        2
    }

    /// The size of the action space: every action is below it.
    fn num_distinct_actions(&self) -> usize {
        self.inner.num_distinct_actions()
    }

    /// The shape `(planes, rows, columns)` of an observation.
    fn observation_shape(&self) -> (usize, usize, usize) {
        let [a, b, c] = self.inner.observation_shape();
        (a, b, c)
    }

    /// The names of the observation planes, in order.
    fn observation_planes(&self) -> Vec<&'static str> {
        self.inner.observation_planes().to_vec()
    }

    /// An upper bound on the plies of a game, or None when the rules set
    /// none.
    fn max_game_length(&self) -> Option<u32> {
        self.inner.max_game_length()
    }

    /// An upper bound on the legal actions of any position of a game from
    /// the start: the width of `VecEnv.legal_actions`.
    fn max_legal_actions(&self) -> usize {
        self.inner.max_legal_actions()
    }

    /// The options with their values (every option, defaults included).
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.inner.option_pairs() {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// The options the game accepts: key, accepted values, default, help.
    fn option_specs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.inner
            .option_specs()
            .iter()
            .map(|s| {
                let d = PyDict::new(py);
                d.set_item("key", s.key)?;
                d.set_item("values", s.values)?;
                d.set_item("default", s.default)?;
                d.set_item("help", s.help)?;
                Ok(d)
            })
            .collect()
    }

    /// The AI levels, weakest first: `[(id, description), ...]`. Every
    /// game also accepts `uct:MS` (MCTS for MS milliseconds a move) and
    /// `uct-iter:N` (MCTS with N playouts a move).
    fn levels(&self) -> Vec<(String, String)> {
        self.inner.levels().into_iter().map(|l| (l.id, l.description)).collect()
    }

    /// The level used when none is named.
    fn default_level(&self) -> &'static str {
        self.inner.default_level()
    }

    /// The strongest level (the last of `levels()`).
    fn strongest_level(&self) -> String {
        self.inner.levels().last().map(|l| l.id.clone()).unwrap_or_default()
    }

    /// The start position.
    fn new_initial_state(&self) -> PyState {
        PyState::new(self.inner.clone(), self.inner.new_state())
    }

    /// A state from a position in the game's notation (FEN for Cumisitha).
    fn new_state_from_position(&self, position: &str) -> PyResult<PyState> {
        let inner = self.inner.state_from_position(position).map_err(NotationError::new_err)?;
        Ok(PyState::new(self.inner.clone(), inner))
    }

    /// Read back a `State.serialize()` text.
    fn deserialize_state(&self, text: &str) -> PyResult<PyState> {
        Ok(PyState::new(self.inner.clone(), deserialize(&self.inner, text)?))
    }

    fn __str__(&self) -> String {
        self.inner.spec_string()
    }

    fn __repr__(&self) -> String {
        format!("tabula.load_game('{}')", self.inner.spec_string())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyGame>().is_ok_and(|o| o.get().inner.spec_string() == self.inner.spec_string())
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.spec_string().hash(&mut h);
        h.finish()
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let load = py.import("tabula._tabula")?.getattr("load_game")?;
        let args = PyTuple::new(py, [self.inner.spec_string()])?;
        PyTuple::new(py, [load, args.into_any()])
    }
}
