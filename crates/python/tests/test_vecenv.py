"""VecEnv: agreement with single-state play, auto-reset, zero-copy buffers,
random rollouts."""

import numpy as np
import pytest

import tabula


def sample(rng, mask):
    """One uniformly random legal action per row of a mask."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask])


# More environments than one task takes (64), so the parallel path runs.
STEPS = {"coldwar": 250, "cordots": 150, "cumisitha": 100, "dots": 80}


def test_vecenv_agrees_with_single_state_play(game):
    n = 130
    env = tabula.VecEnv(game, n, seed=3)
    obs, mask = env.reset()
    states = [game.new_initial_state() for _ in range(n)]
    rng_env = np.random.default_rng(11)
    rng_single = np.random.default_rng(11)
    finished = 0
    for step in range(STEPS[game.id]):
        masks = np.stack([s.legal_actions_mask() for s in states])
        np.testing.assert_array_equal(mask, masks)
        for i, s in enumerate(states):
            np.testing.assert_array_equal(obs[i], s.observation_tensor(s.current_player()))
            assert env.current_player[i] == s.current_player()
        # The legal lists hold the state's legal actions (in the game's
        # move order, not sorted), then -1.
        counts = env.num_legal_actions
        for i, s in enumerate(states):
            legal = s.legal_actions()
            assert counts[i] == len(legal)
            np.testing.assert_array_equal(np.sort(env.legal_actions[i, : len(legal)]), legal)
            assert (env.legal_actions[i, len(legal) :] == -1).all()
        actions = sample(rng_env, mask)
        single_actions = sample(rng_single, masks)
        np.testing.assert_array_equal(actions, single_actions)
        obs, mask, rewards, terminated, truncated = env.step(actions)
        assert not truncated.any()
        for i, s in enumerate(states):
            s.apply_action(int(single_actions[i]))
            if s.is_terminal():
                assert terminated[i]
                np.testing.assert_array_equal(rewards[i], np.array(s.returns(), dtype=np.float32))
                states[i] = game.new_initial_state()
                finished += 1
            else:
                assert not terminated[i] and not rewards[i].any()
                if step % 40 == 0:
                    assert env.state(i).serialize() == s.serialize()
    if game.id == "coldwar":
        assert finished > 0, "some games should have finished and restarted"


def test_buffers_are_shared_and_read_only():
    env = tabula.VecEnv("coldwar", 4)
    obs, mask = env.reset()
    assert obs is env.observations and mask is env.legal_mask
    assert obs.shape == (4, 8, 3, 3) and obs.dtype == np.float32
    assert mask.shape == (4, 117) and mask.dtype == np.bool_
    with pytest.raises(ValueError):
        obs[0, 0, 0, 0] = 5.0
    obs2, mask2, rewards, terminated, truncated = env.step(np.flatnonzero(mask[0])[:1].repeat(4))
    assert obs2 is obs and mask2 is mask
    assert rewards.shape == (4, 2) and terminated.shape == (4,) and truncated.shape == (4,)


def test_legal_lists_are_shared_and_read_only(game):
    env = tabula.VecEnv(game, 3)
    env.reset()
    legal, counts = env.legal_actions, env.num_legal_actions
    assert legal.shape == (3, game.max_legal_actions()) and legal.dtype == np.int32
    assert counts.shape == (3,) and counts.dtype == np.int32
    assert game.max_legal_actions() <= game.num_distinct_actions()
    with pytest.raises(ValueError):
        legal[0, 0] = 1
    env.step(legal[np.arange(3), 0])
    assert env.legal_actions is legal and env.num_legal_actions is counts


def test_max_plies_truncates_and_restarts():
    env = tabula.VecEnv("cumisitha", 3, max_plies=5)
    rng = np.random.default_rng(0)
    obs, mask = env.reset()
    for ply in range(1, 6):
        obs, mask, rewards, terminated, truncated = env.step(sample(rng, mask))
    assert truncated.all() and not terminated.any() and not rewards.any()
    assert all(env.state(i).move_number() == 0 for i in range(3))


def test_random_rollouts(game):
    env = tabula.VecEnv(game, 1, seed=5)
    returns, lengths = env.random_rollouts(300)
    assert returns.shape == (300, 2) and returns.dtype == np.float32
    assert lengths.shape == (300,) and (lengths > 0).all()
    assert (returns.sum(axis=1) == 0).all()
    assert set(np.unique(returns[:, 0])) <= {-1.0, 0.0, 1.0}
    if game.max_game_length() is not None:
        assert lengths.max() <= game.max_game_length()
    # The same seed plays the same games; the next call plays new ones.
    again = tabula.VecEnv(game, 1, seed=5).random_rollouts(300)
    np.testing.assert_array_equal(again[1], lengths)
    np.testing.assert_array_equal(again[0], returns)
    more_returns, more_lengths = env.random_rollouts(300)
    assert not (np.array_equal(more_lengths, lengths) and np.array_equal(more_returns, returns))
    env.reset(seed=5)
    np.testing.assert_array_equal(env.random_rollouts(300)[1], lengths)


def test_random_rollouts_match_the_game_statistics():
    # Random Cold War games are long; random Cumisitha games end by the
    # counter or a mate. Loose bounds that a broken rollout would miss.
    _, lengths = tabula.VecEnv("cumisitha", 1).random_rollouts(500)
    assert 200 < lengths.mean() < 700
