"""PettingZoo's api_test, OpenSpiel's MCTSBot, and the Gymnasium wrapper."""

import numpy as np
import pytest

import tabula
from conftest import GAMES

pettingzoo_test = pytest.importorskip("pettingzoo.test")
pyspiel = pytest.importorskip("pyspiel")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_pettingzoo_api_test(game_id):
    from tabula.pettingzoo import env

    pettingzoo_test.api_test(env(game_id, **GAMES[game_id]), num_cycles=300)


def test_pettingzoo_loop_plays_a_whole_game():
    from tabula.pettingzoo import env

    e = env("dots", width=6, height=6)
    e.reset(seed=1)
    rewards = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        rewards[agent] += reward
        if termination or truncation:
            e.step(None)
            continue
        assert obs["action_mask"].sum() > 0
        e.step(e.action_space(agent).sample(obs["action_mask"]))
    assert sum(rewards.values()) == 0


def test_openspiel_mctsbot_finishes_a_game():
    from open_spiel.python.algorithms import mcts

    import tabula.openspiel

    game = tabula.openspiel.load_game("dots", width=5, height=5)
    assert isinstance(game, pyspiel.Game)
    rng = np.random.RandomState(0)
    bots = [
        mcts.MCTSBot(game, uct_c=2, max_simulations=40, evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng),
        mcts.MCTSBot(game, uct_c=2, max_simulations=10, evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng),
    ]
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
    assert state.tabula_state.is_terminal()


def test_openspiel_sees_tabula_games_by_name():
    import tabula.openspiel

    game = pyspiel.load_game("python_tabula_dots", {"width": 7, "height": 6})
    assert game.num_distinct_actions() == 42
    assert game.max_game_length() == 42
    state = game.new_initial_state()
    clone = state.clone()
    state.apply_action(state.legal_actions()[0])
    assert len(clone.history()) == 0 and len(state.history()) == 1
    assert state.action_to_string(0, state.legal_actions()[0]) == state.tabula_state.legal_moves()[0]
    assert np.array(state.observation_tensor(0)).size == 9 * 7 * 6
    chess = tabula.openspiel.load_game("cumisitha")
    assert chess.num_distinct_actions() == 1924


def test_gymnasium_wrapper_plays_against_an_ai():
    from tabula.gymnasium import SingleAgentEnv

    for player in (0, 1):
        env = SingleAgentEnv("coldwar", opponent="easy", player=player, max_plies=60)
        obs, info = env.reset(seed=3)
        assert obs.shape == env.observation_space.shape
        done = False
        while not done:
            action = env.action_space.sample(info["action_mask"])
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert reward in (-1.0, 0.0, 1.0)
    with pytest.raises(tabula.IllegalActionError):
        env.reset()
        env.step(int(np.flatnonzero(env.action_masks() == 0)[0]))


def test_gymnasium_env_checker_passes():
    from gymnasium.utils.env_checker import check_env

    from tabula.gymnasium import SingleAgentEnv

    check_env(SingleAgentEnv("cordots", opponent="random", illegal="lose"), skip_render_check=True)
