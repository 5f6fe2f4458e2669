"""Tabula's AIs from Python, and Cold War's solved table."""

import numpy as np
import pytest

import tabula
import tabula.coldwar


def test_agents_choose_legal_actions(game):
    for agent in (tabula.Agent(game, "random", seed=1), tabula.MCTSAgent(game, iterations=30, seed=2)):
        state = game.new_initial_state()
        for _ in range(6):
            if state.is_terminal():
                break
            action = agent.choose(state)
            assert action in state.legal_actions()
            state.apply_action(action)


def test_the_strongest_level_plays_under_a_time_budget(game):
    agent = tabula.Agent(game, "strongest", seed=0, time=0.3)
    assert agent.level == game.strongest_level()
    state = game.new_initial_state()
    action = agent.step(state)
    assert state.history() == [action]


def test_mcts_with_a_time_budget():
    agent = tabula.MCTSAgent("cordots", time=0.05, seed=0)
    assert agent.level == "uct:50"
    state = tabula.load_game("cordots").new_initial_state()
    assert agent.choose(state) in state.legal_actions()


def test_the_solved_table_and_its_index():
    value, distance = tabula.coldwar.solved_table()
    assert value.shape == distance.shape == (tabula.coldwar.BOARDS,)
    assert value.dtype == np.int8 and distance.dtype == np.uint8
    game = tabula.load_game("coldwar")
    start = game.new_initial_state()
    assert tabula.coldwar.table_index(start) == 0
    assert tabula.coldwar.evaluate(start) == (0, 0)  # a draw
    # X to move holding a1 with 3 and O on b1 with 1: index by the formula.
    state = game.new_state_from_position(".../.../X3O1. X")
    assert tabula.coldwar.table_index(state) == tabula.coldwar.board_index([3, -1, 0, 0, 0, 0, 0, 0, 0]) == 3 + 4 * 7
    # O to move is looked up on the colour-swapped board.
    swapped = game.new_state_from_position(".../.../X3O1. O")
    assert tabula.coldwar.table_index(swapped) == tabula.coldwar.board_index([-3, 1, 0, 0, 0, 0, 0, 0, 0])


def test_the_table_is_consistent_along_perfect_play():
    # Following the perfect player's moves, a win shortens by one ply each
    # move (seen from alternating sides) and a draw stays a draw (and may
    # end by the repetition rule or the ply cap, which the table ignores).
    game = tabula.load_game("coldwar")
    perfect = tabula.Agent(game, "perfect", seed=1)
    rng = np.random.default_rng(4)
    for _ in range(5):
        state = game.new_initial_state()
        for _ in range(int(rng.integers(2, 12))):
            state.apply_action(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        while not state.is_terminal():
            v, d = tabula.coldwar.evaluate(state)
            mover = state.current_player()
            state.apply_action(perfect.choose(state))
            if state.is_terminal():
                if v == 1:
                    assert d == 1 and state.winner() == mover
                else:
                    assert v == 0 and state.returns() == [0.0, 0.0]
                break
            v2, d2 = tabula.coldwar.evaluate(state)
            assert v2 == -v
            if v != 0:
                assert d2 == d - 1


def test_the_perfect_player_never_loses_to_random():
    game = tabula.load_game("coldwar")
    for seed in range(4):
        perfect = tabula.Agent(game, "perfect", seed=seed)
        rnd = tabula.Agent(game, "random", seed=100 + seed)
        state = game.new_initial_state()
        seat = seed % 2
        while not state.is_terminal():
            (perfect if state.current_player() == seat else rnd).step(state)
        assert state.returns()[seat] >= 0
