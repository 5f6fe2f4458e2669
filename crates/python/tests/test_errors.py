"""Bad input raises a clear Python exception and changes nothing."""

import numpy as np
import pytest

import tabula


def test_an_illegal_action_raises_and_leaves_the_state(game):
    state = game.new_initial_state()
    before = state.serialize()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(tabula.IllegalActionError, match="not"):
        state.apply_action(illegal)
    with pytest.raises(tabula.IllegalActionError, match="out of range"):
        state.apply_action(game.num_distinct_actions())
    with pytest.raises(tabula.IllegalActionError, match="out of range"):
        state.apply_action(-1)
    with pytest.raises(TypeError):
        state.apply_action(1.5)
    with pytest.raises(TypeError):
        state.apply_action("e2e4")
    with pytest.raises(TypeError):
        state.apply_action(True)
    assert state.serialize() == before
    # numpy integers are integers.
    state.apply_action(np.int64(state.legal_actions()[0]))


def test_actions_after_the_end_raise():
    state = tabula.load_game("coldwar").new_state_from_position("X1X1X1/X1X1X1/X1X1. X")
    state.apply_action(state.string_to_action("c1"))
    assert state.is_terminal()
    with pytest.raises(tabula.IllegalActionError, match="over"):
        state.apply_action(0)


def test_bad_notation_raises():
    state = tabula.load_game("cumisitha").new_initial_state()
    with pytest.raises(tabula.NotationError):
        state.string_to_action("Zz9")
    with pytest.raises(tabula.NotationError):
        tabula.load_game("cumisitha").new_state_from_position("not a fen")
    with pytest.raises(tabula.NotationError):
        tabula.load_game("dots").new_state_from_position("anything")


def test_wrong_options_raise():
    with pytest.raises(tabula.OptionError, match="widht"):
        tabula.load_game("dots", widht=10)
    with pytest.raises(tabula.OptionError, match="out of range"):
        tabula.load_game("dots", width=3)
    with pytest.raises(tabula.OptionError):
        tabula.load_game("cordots", mode="bullet")
    with pytest.raises(tabula.OptionError, match="no options"):
        tabula.load_game("coldwar", size=4)
    with pytest.raises(TypeError):
        tabula.load_game("dots", width=[10])
    with pytest.raises(tabula.TabulaError, match="unknown game"):
        tabula.load_game("go")
    assert issubclass(tabula.OptionError, ValueError)


def test_bad_players_raise(game):
    state = game.new_initial_state()
    with pytest.raises(ValueError):
        state.observation_tensor(2)
    with pytest.raises(ValueError):
        state.legal_actions("nobody")
    assert state.legal_actions(game.players()[0]) == state.legal_actions()


def test_bad_serialized_states_raise():
    game = tabula.load_game("coldwar")
    with pytest.raises(tabula.TabulaError):
        game.deserialize_state("garbage")
    with pytest.raises(tabula.TabulaError, match="line 2"):
        game.deserialize_state("start\nx")
    with pytest.raises(tabula.IllegalActionError, match="line 3"):
        game.deserialize_state("start\n4\n4\n")


def test_vecenv_rejects_bad_actions_before_moving_anything():
    env = tabula.VecEnv("cordots", 3, seed=1)
    obs, mask = env.reset()
    legal = np.array([np.flatnonzero(m)[0] for m in mask])
    with pytest.raises(TypeError, match="integers"):
        env.step(legal.astype(np.float32))
    with pytest.raises(ValueError, match="shape"):
        env.step(legal[:2])
    with pytest.raises(ValueError, match="shape"):
        env.step(legal.reshape(3, 1))
    with pytest.raises(TypeError):
        env.step("abc")
    bad = legal.copy()
    bad[2] = np.flatnonzero(~mask[2])[0]
    with pytest.raises(tabula.IllegalActionError, match=r"actions\[2\]"):
        env.step(bad)
    bad[2] = 10**6
    with pytest.raises(tabula.IllegalActionError, match="out of range"):
        env.step(bad)
    bad[2] = -3
    with pytest.raises(tabula.IllegalActionError, match="out of range"):
        env.step(bad)
    assert all(env.state(i).move_number() == 0 for i in range(3))
    env.step(legal.astype(np.int32))
    env.step([int(np.flatnonzero(m)[0]) for m in env.legal_mask])
    assert all(env.state(i).move_number() == 2 for i in range(3))


def test_vecenv_rejects_bad_arguments():
    with pytest.raises(ValueError):
        tabula.VecEnv("dots", 0)
    with pytest.raises(tabula.OptionError):
        tabula.VecEnv("dots", 2, width=2)
    with pytest.raises(ValueError):
        tabula.VecEnv(tabula.load_game("dots"), 2, width=10)
    with pytest.raises(ValueError):
        tabula.VecEnv("dots", 2).state(5)
    with pytest.raises(ValueError):
        tabula.VecEnv("dots", 2).random_rollouts(-1)


def test_agents_reject_bad_arguments():
    with pytest.raises(tabula.TabulaError, match="no AI level"):
        tabula.Agent("coldwar", "grandmaster")
    # A malformed spec names the forms the game takes.
    with pytest.raises(tabula.TabulaError, match=r"rave:MS\[:K"):
        tabula.Agent("dots", "rave:100:0")
    with pytest.raises(ValueError):
        tabula.Agent("coldwar", "random", time=-1)
    with pytest.raises(ValueError):
        tabula.MCTSAgent("coldwar")
    agent = tabula.Agent("coldwar", "random")
    with pytest.raises(tabula.TabulaError):
        agent.choose(tabula.load_game("cordots").new_initial_state())
    done = tabula.load_game("coldwar").new_state_from_position("X1X1X1/X1X1X1/X1X1X1 O")
    with pytest.raises(tabula.IllegalActionError, match="over"):
        agent.choose(done)
