"""Tabula's four board games from Python, on Tabula's Rust engines.

Cordots, Cumisitha (chess with Ludii's end rules), Dots and Cold War through
an OpenSpiel-style API, a batched environment that steps many games in Rust
across threads, Tabula's AIs, and adapters for PettingZoo
(:mod:`tabula.pettingzoo`), OpenSpiel (:mod:`tabula.openspiel`) and
Gymnasium (:mod:`tabula.gymnasium`).

    >>> import tabula
    >>> game = tabula.load_game("dots", width=20, height=20)
    >>> state = game.new_initial_state()
    >>> state.apply_action(state.legal_actions()[0])

See docs/python.md for the action spaces and observation planes of each game.
"""

from ._tabula import (
    Agent,
    Game,
    IllegalActionError,
    NotationError,
    OptionError,
    State,
    TabulaError,
    VecEnv,
    load_game,
    registered_games,
)
from . import coldwar
from .sampling import sample_legal, sample_listed

#: ``State.current_player()`` of a finished game (OpenSpiel's ``PlayerId.TERMINAL``).
TERMINAL = -4

__all__ = [
    "Agent",
    "Game",
    "IllegalActionError",
    "MCTSAgent",
    "NotationError",
    "OptionError",
    "State",
    "TERMINAL",
    "TabulaError",
    "VecEnv",
    "coldwar",
    "load_game",
    "registered_games",
    "sample_legal",
    "sample_listed",
]


def MCTSAgent(game, iterations=None, time=None, seed=0):
    """Tabula's generic MCTS (UCT with random playouts) for any game.

    Give ``iterations`` (playouts per move), ``time`` (seconds per move), or
    both (then whichever runs out first).
    """
    if iterations is None and time is None:
        raise ValueError("give MCTSAgent an iteration budget, a time budget (seconds), or both")
    if iterations is not None:
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise ValueError(f"iterations must be a positive integer, not {iterations!r}")
        return Agent(game, f"uct-iter:{iterations}", seed=seed, time=time)
    if isinstance(time, bool) or not isinstance(time, (int, float)) or not time > 0:
        raise ValueError(f"time must be a positive number of seconds, not {time!r}")
    ms = max(1, int(round(time * 1000)))
    return Agent(game, f"uct:{ms}", seed=seed, time=time)


def _version():
    try:
        from importlib.metadata import version

        return version("tabula")
    except Exception:  # not installed as a distribution (e.g. a source checkout)
        return "0+unknown"


__version__ = _version()
