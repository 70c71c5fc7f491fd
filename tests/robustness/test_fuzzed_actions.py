"""Moves and actions of every type, for every game (issue 17): the State API, the notation and the environments play
exactly the moves they are given, or raise the documented exception and change nothing.

- ``State.play`` / ``to_action`` / ``Game.parse_move`` / ``format_move``: IllegalMoveError for anything but a legal
  action (an integer, Python or NumPy, not a bool) or a move string of the game's notation;
- the raw PettingZoo env: ValueError for what is no action of the space (a float, a bool, a string, an integer out
  of range: ``int()`` once played them), IllegalMoveError for an illegal action;
- the wrapped PettingZoo env: AssertionError for what is no action of the space, an illegal action loses;
- the Gymnasium env: ValueError for what is no action of the space, an illegal action loses;
- the vector env: ValueError for actions that are no integer array of one action per game.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
from fuzzing import NUMBER_LIKE, python_values, sample_positions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import awale_env
from awale_env.errors import IllegalMoveError
from awale_env.games import Game
from awale_env.gym_env import AwaleEnv
from awale_env.vector import AwaleVectorEnv

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def actions(game: Game) -> st.SearchStrategy:
    """Anything a caller may pass as a move: any value, the game's move texts, integers around its range."""
    texts = [game.format_move(action) for action in range(game.num_actions)]
    near = st.integers(-2, game.num_actions + 1)
    return st.one_of(
        python_values,
        near,
        near.map(np.int64),
        near.map(float),
        st.sampled_from(texts),
        st.sampled_from(texts).map(str.lower),
        st.sampled_from(texts).map(lambda text: f" {text}\n"),
        st.sampled_from(NUMBER_LIKE),
    )


def is_action(game: Game, value: Any) -> bool:
    """Whether ``value`` is an action of the game's action space: an integer (Python or NumPy, not a bool) in range."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value < game.num_actions


def fingerprint(state: Any) -> tuple:
    return (state.to_dict(), hash(state))


@FUZZ
@given(data=st.data())
def test_states_play_exactly_the_moves_they_are_given(registry_game, data):
    state = data.draw(st.sampled_from(sample_positions(registry_game)))
    move = data.draw(actions(registry_game))
    before = fingerprint(state)
    try:
        child = state.play(move)
    except IllegalMoveError:
        child = None
    assert fingerprint(state) == before, "a State changed"
    if child is None:
        return
    action = registry_game.parse_move(move) if isinstance(move, str) else move
    assert is_action(registry_game, action) and state.is_legal(action), f"play({move!r}) played {child!r}"
    assert child == state.play(int(action)) and state.to_action(move) == action


@FUZZ
@given(data=st.data())
def test_notation_reads_and_writes_moves_only(registry_game, data):
    value = data.draw(actions(registry_game))
    try:
        action = registry_game.parse_move(value)
    except IllegalMoveError:
        pass
    else:
        assert isinstance(value, str) and is_action(registry_game, action)
        assert registry_game.parse_move(registry_game.format_move(action)) == action
    try:
        text = registry_game.format_move(value)
    except IllegalMoveError:
        assert not is_action(registry_game, value)
    else:
        assert is_action(registry_game, value) and registry_game.parse_move(text) == value


@cache
def environments(game: Game) -> tuple[Any, Any, AwaleEnv]:
    """A raw and a wrapped PettingZoo env and a Gymnasium env of ``game`` (made once: each example resets them)."""
    gym = AwaleEnv(opponent=lambda state: state.legal_actions()[0], learner_seat=0, game=game.name)
    return awale_env.raw_env(game=game.name), awale_env.env(game=game.name), gym


@FUZZ
@given(data=st.data())
def test_environments_refuse_what_is_no_action(registry_game, data):
    action = data.draw(actions(registry_game))
    raw, wrapped, gym = environments(registry_game)
    seed = data.draw(st.integers(0, 3))
    for aec in (raw, wrapped):
        aec.reset(seed=seed)
        state, mover = aec.unwrapped.game, aec.agent_selection
        try:
            aec.step(action)
        except IllegalMoveError:  # a ValueError: caught first
            assert aec is raw and is_action(registry_game, action) and not state.is_legal(action)
        except ValueError:
            assert aec is raw and not is_action(registry_game, action)
        except AssertionError:
            assert aec is wrapped and not is_action(registry_game, action)
        else:
            assert is_action(registry_game, action)
            if state.is_legal(action):
                assert aec.unwrapped.game == state.play(int(action))
            else:
                assert all(aec.terminations.values()) and aec.rewards[mover] == -1
            continue
        assert aec.unwrapped.game is state and aec.agent_selection == mover, "a refused action changed the env"
    gym.reset(seed=seed)
    state = gym.game
    try:
        _, reward, terminated, _, info = gym.step(action)
    except ValueError:
        assert not is_action(registry_game, action) and gym.game is state
    else:
        assert is_action(registry_game, action)
        if not state.is_legal(action):
            assert reward == -1 and terminated and info["end_reason"] == "illegal_action"


@pytest.mark.parametrize(
    "actions",
    [
        np.array([1.0, 2.0]),
        np.array([True, False]),
        np.array(["1", "2"]),
        np.array([1, 2], dtype=object),
        [1, 2.5],
        np.array([1, 2, 3]),
        np.array([[1, 2]]),
        np.int64(1),
        None,
    ],
    ids=repr,
)
def test_the_vector_env_refuses_what_is_no_action_array(registry_game, actions):
    vec = AwaleVectorEnv(2, opponent=None, game=registry_game.name)
    vec.reset(seed=0)
    before = [fingerprint(vec.state(i)) for i in range(2)]
    with pytest.raises(ValueError, match="integer array"):
        vec.step(actions)
    assert [fingerprint(vec.state(i)) for i in range(2)] == before


@pytest.mark.parametrize("action", [1.7, True, "3", np.float32(3.0), np.bool_(True), None])
def test_the_raw_env_no_longer_plays_what_int_turns_into_a_move(registry_game, action):
    """The issue's ``raw_env.step(1.7)``, ``step(True)``, ``step("3")``: refused with the Gymnasium env's error."""
    raw = awale_env.raw_env(game=registry_game.name)
    raw.reset(seed=0)
    before = raw.game
    with pytest.raises(ValueError, match=f"an action is an integer 0-{registry_game.num_actions - 1}"):
        raw.step(action)
    assert raw.game is before
