"""Tabula's games as OpenSpiel games, so OpenSpiel's algorithms run on them.

    >>> import pyspiel
    >>> from open_spiel.python.algorithms import mcts
    >>> import tabula.openspiel
    >>> game = tabula.openspiel.load_game("coldwar")
    >>> bot = mcts.MCTSBot(game, uct_c=2, max_simulations=100,
    ...                    evaluator=mcts.RandomRolloutEvaluator())
    >>> state = game.new_initial_state()
    >>> state.apply_action(bot.step(state))

Importing this module registers every game with OpenSpiel as
``python_tabula_<id>`` (``python_tabula_dots`` …), so
``pyspiel.load_game("python_tabula_dots", {"width": 20})`` works too.
The games are OpenSpiel ``pyspiel.Game`` objects implemented in Python over
Tabula's Rust states: states, legal actions, action strings, returns and
observation tensors are Tabula's (docs/python.md), and ``clone()`` copies
the Rust state.

Needs the ``open-spiel`` package (``pip install "tabula[openspiel]"``).
"""

import numpy as np
import pyspiel

import tabula

__all__ = ["load_game", "TabulaOpenSpielGame", "TabulaOpenSpielState", "short_name"]

#: The game length OpenSpiel is told for games whose rules set no bound.
UNBOUNDED_GAME_LENGTH = 1_000_000


def short_name(game_id):
    """The name a Tabula game is registered under in OpenSpiel."""
    return f"python_tabula_{game_id}"


def _parameter_spec(game_id):
    """OpenSpiel parameters: the game's options with their defaults (numbers
    as integers, everything else as strings)."""
    return {k: int(v) if v.isdigit() else v for k, v in tabula.load_game(game_id).options().items()}


def _make_game_type(game_id):
    g = tabula.load_game(game_id)
    return pyspiel.GameType(
        short_name=short_name(game_id),
        long_name=f"Tabula {g.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameter_spec(game_id),
    )


class TabulaOpenSpielGame(pyspiel.Game):
    """A Tabula game (with its options) as a ``pyspiel.Game``."""

    #: Set by the per-game subclasses made at import time.
    game_id = None

    def __init__(self, params=None):
        params = dict(params or {})
        self.tabula_game = tabula.load_game(self.game_id, **{k: str(v) for k, v in params.items()})
        length = self.tabula_game.max_game_length()
        info = pyspiel.GameInfo(
            num_distinct_actions=self.tabula_game.num_distinct_actions(),
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=length if length is not None else UNBOUNDED_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPES[self.game_id], info, params)

    def new_initial_state(self):
        return TabulaOpenSpielState(self, self.tabula_game.new_initial_state())

    def observation_tensor_shape(self):
        return list(self.tabula_game.observation_shape())

    def make_py_observer(self, iig_obs_type=None, params=None):
        return TabulaObserver(self.tabula_game, params)


class TabulaOpenSpielState(pyspiel.State):
    """A Tabula state as a ``pyspiel.State``; ``tabula_state`` is the Tabula one."""

    def __init__(self, game, tabula_state):
        super().__init__(game)
        self.tabula_state = tabula_state

    def current_player(self):
        if self.tabula_state.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.tabula_state.current_player()

    def _legal_actions(self, player):
        if self.tabula_state.is_terminal() or player != self.tabula_state.current_player():
            return []
        return self.tabula_state.legal_actions()

    def _apply_action(self, action):
        self.tabula_state.apply_action(action)

    def _action_to_string(self, player, action):
        try:
            return self.tabula_state.action_to_string(action)
        except tabula.TabulaError:
            return f"action {action}"

    def is_terminal(self):
        return self.tabula_state.is_terminal()

    def returns(self):
        return list(self.tabula_state.returns())

    def __deepcopy__(self, memo):
        # OpenSpiel clones Python states with deepcopy; copy the Rust state
        # once instead of walking Python objects.
        return TabulaOpenSpielState(self.get_game(), self.tabula_state.clone())

    def __str__(self):
        return str(self.tabula_state)


class TabulaObserver:
    """An observer in OpenSpiel's PyObserver protocol: ``tensor`` is the
    game's observation planes (flattened), ``dict["observation"]`` the same
    with its shape."""

    def __init__(self, tabula_game, params):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        self._shape = tabula_game.observation_shape()
        self.tensor = np.zeros(int(np.prod(self._shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(self._shape)}

    def set_from(self, state, player):
        self.tensor[:] = state.tabula_state.observation_tensor(player).ravel()

    def string_from(self, state, player):
        return str(state.tabula_state)


_GAME_TYPES = {}
_CLASSES = {}


def _register(game_id):
    game_type = _make_game_type(game_id)
    _GAME_TYPES[game_id] = game_type
    cls = type(f"Tabula_{game_id}_Game", (TabulaOpenSpielGame,), {"game_id": game_id})
    _CLASSES[game_id] = cls
    if short_name(game_id) not in pyspiel.registered_names():
        pyspiel.register_game(game_type, cls)


for _id in tabula.registered_games():
    _register(_id)


def load_game(game, **options):
    """A Tabula game as a ``pyspiel.Game``: ``load_game("dots", width=20)``."""
    if isinstance(game, tabula.Game):
        if options:
            raise ValueError("a loaded game takes no further options")
        options = game.options()
        game = game.id
    game_id = str(game).lower()
    if game_id not in _CLASSES:
        raise tabula.TabulaError(f"unknown game '{game}' (known: {', '.join(_CLASSES)})")
    return _CLASSES[game_id]({k: str(v) if not isinstance(v, bool) else ("on" if v else "off")
                              for k, v in options.items()})
