"""The OpenSpiel-style API on every game: action space, masks, clone,
serialization, observations."""

import copy
import pickle

import numpy as np
import pytest

import tabula
from conftest import random_game


def test_the_registry_lists_the_four_games():
    assert tabula.registered_games() == ["cordots", "cumisitha", "dots", "coldwar"]


def test_game_description(game):
    assert game.num_players() == 2
    assert len(game.players()) == 2
    shape = game.observation_shape()
    assert len(shape) == 3 and all(d > 0 for d in shape)
    assert len(game.observation_planes()) == shape[0]
    assert game.num_distinct_actions() > 0
    assert game.strongest_level() == game.levels()[-1][0]
    assert tabula.load_game(str(game)) == game
    assert pickle.loads(pickle.dumps(game)) == game


def test_load_game_accepts_openspiel_strings_and_keywords():
    a = tabula.load_game("dots(width=12,height=7)")
    b = tabula.load_game("dots", width=12, height=7)
    assert a == b
    assert a.num_distinct_actions() == 84
    assert a.observation_shape() == (9, 7, 12)
    assert tabula.load_game("dots", cross=False).options()["cross"] == "off"


@pytest.mark.parametrize("seed", range(3))
def test_masks_agree_with_legal_actions(game, seed):
    for state in random_game(game, seed, max_plies=300):
        legal = state.legal_actions()
        assert legal == sorted(set(legal))
        mask = state.legal_actions_mask()
        assert mask.dtype == np.bool_ and mask.shape == (game.num_distinct_actions(),)
        assert np.flatnonzero(mask).tolist() == legal
        if state.is_terminal():
            assert legal == [] and state.current_player() == tabula.TERMINAL
        else:
            other = 1 - state.current_player()
            assert state.legal_actions(other) == []
            assert not state.legal_actions_mask(other).any()


@pytest.mark.parametrize("seed", range(3))
def test_the_action_space_round_trips(game, seed):
    for state in random_game(game, seed, max_plies=300):
        legal = state.legal_actions()
        names = state.legal_moves()
        assert len(names) == len(legal)
        for action, name in zip(legal, names):
            assert state.action_to_string(action) == name
            assert state.action_to_string(state.current_player(), action) == name
            assert state.string_to_action(name) == action


def test_clone_is_independent(game):
    state = game.new_initial_state()
    copy_ = state.clone()
    state.apply_action(state.legal_actions()[0])
    assert copy_.move_number() == 0 and state.move_number() == 1
    assert copy.deepcopy(state).history() == state.history()
    assert copy.copy(state).history() == state.history()
    child = copy_.child(copy_.legal_actions()[-1])
    assert child.move_number() == 1 and copy_.move_number() == 0


@pytest.mark.parametrize("seed", range(2))
def test_serialize_and_pickle_round_trip(game, seed):
    for state in random_game(game, seed, max_plies=200)[::7]:
        text = state.serialize()
        back = game.deserialize_state(text)
        assert back.history() == state.history()
        assert back.serialize() == text
        assert str(back) == str(state)
        assert back.legal_actions() == state.legal_actions()
        assert back.returns() == state.returns()
        np.testing.assert_array_equal(back.observation_tensor(0), state.observation_tensor(0))
        unpickled = pickle.loads(pickle.dumps(state))
        assert unpickled.serialize() == text
        assert unpickled.get_game() == game


def test_positions_round_trip_where_the_game_has_a_notation(game):
    for state in random_game(game, 5, max_plies=60)[::5]:
        pos = state.position()
        if game.id == "dots":
            assert pos is None
            continue
        back = game.new_state_from_position(pos)
        assert back.position() == pos
        assert back.legal_actions() == state.legal_actions()
        assert game.deserialize_state(back.serialize()).position() == pos


def test_observations(game):
    for state in random_game(game, 7, max_plies=100)[::9]:
        for player in (0, 1):
            obs = state.observation_tensor(player)
            assert obs.dtype == np.float32 and obs.shape == game.observation_shape()
            assert ((obs >= 0) & (obs <= 1)).all()
        if not state.is_terminal():
            mover = state.current_player()
            # The last plane is "ones when player is to move".
            assert state.observation_tensor(mover)[-1].min() == 1
            assert state.observation_tensor(1 - mover)[-1].max() == 0
            np.testing.assert_array_equal(state.observation_tensor(), state.observation_tensor(mover))


def test_games_end_with_returns(game):
    for seed in range(3):
        last = random_game(game, seed)[-1]
        assert last.is_terminal()
        r = last.returns()
        assert r[0] + r[1] == 0 and r[0] in (-1, 0, 1)
        assert last.outcome_reason()
        assert last.winner() == (None if r[0] == 0 else (0 if r[0] > 0 else 1))
        if game.max_game_length() is not None:
            assert last.move_number() <= game.max_game_length()


def test_chess_actions_are_documented():
    game = tabula.load_game("cumisitha")
    state = game.new_initial_state()
    assert game.num_distinct_actions() == 1924
    e2e4 = state.string_to_action("e2e4")
    assert state.action_to_string(e2e4) == "e2e4"
    assert state.string_to_action("Nf3") == state.string_to_action("g1f3")
    promo = game.new_state_from_position("8/P6k/8/8/8/8/8/K7 w - - 0 1")
    names = promo.legal_moves()
    assert {"a7a8q", "a7a8r", "a7a8b", "a7a8n"} <= set(names)
    assert promo.string_to_action("a7a8q") < 1792 <= promo.string_to_action("a7a8n")
