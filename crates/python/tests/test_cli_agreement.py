"""Python play agrees with `tabula state` on random games of every game."""

import json
import subprocess

import pytest

from conftest import random_game


def cli_state(tabula_bin, game, moves):
    args = [tabula_bin, "state", game.id, "--moves", " ".join(moves)]
    for key, value in game.options().items():
        args += ["-o", f"{key}={value}"]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("seed", range(2))
def test_random_games_agree_with_the_cli(tabula_bin, game, seed):
    states = random_game(game, 100 + seed)
    last = states[-1]
    # Every move of the game in the game's notation, read from the history.
    moves = []
    replay = game.new_initial_state()
    for action in last.history():
        moves.append(replay.action_to_string(action))
        replay.apply_action(action)
    # The end, and a few positions on the way.
    checkpoints = sorted({len(moves), len(moves) // 2, len(moves) // 3, 1})
    players = game.players()
    for ply in checkpoints:
        state = states[ply]
        cli = cli_state(tabula_bin, game, moves[:ply])
        assert cli["plies"] == state.move_number()
        assert sorted(cli["legal_moves"]) == sorted(state.legal_moves())
        assert cli["position"] == state.position()
        if state.is_terminal():
            assert cli["status"] == "over"
            winner = state.winner()
            assert cli["winner"] == (None if winner is None else players[winner])
            assert cli["reason"] == state.outcome_reason()
        else:
            assert cli["status"] == "ongoing"
            assert cli["to_move"] == players[state.current_player()]
        if state.score() is not None:
            assert cli["score"] == dict(zip(players, state.score()))
