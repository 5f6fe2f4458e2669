"""Shared fixtures for the tabula package's tests."""

import os
import pathlib
import random

import pytest

import tabula

REPO = pathlib.Path(__file__).resolve().parents[3]

#: Small but real option sets, so every game is played in full quickly.
GAMES = {
    "cordots": {},
    "cumisitha": {},
    "dots": {"width": 9, "height": 8},
    "coldwar": {},
}


@pytest.fixture(params=sorted(GAMES))
def game(request):
    """Each game, with options that keep games short."""
    return tabula.load_game(request.param, **GAMES[request.param])


@pytest.fixture(scope="session")
def tabula_bin():
    """The `tabula` command. scripts/test builds it and sets TABULA_BIN."""
    path = os.environ.get("TABULA_BIN")
    if path:
        if not os.access(path, os.X_OK):
            pytest.fail(f"TABULA_BIN={path} is not an executable")
        return path
    for profile in ("release", "ci"):
        default = REPO / "target" / profile / "tabula"
        if default.exists():
            return str(default)
    pytest.skip("the tabula command is not built (cargo build --release -p tabula-cli, or set TABULA_BIN)")


def random_game(game, seed, max_plies=None):
    """Play a random game; returns the states visited (the last may be terminal)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    states = [state.clone()]
    while not state.is_terminal() and (max_plies is None or state.move_number() < max_plies):
        state.apply_action(rng.choice(state.legal_actions()))
        states.append(state.clone())
    return states
