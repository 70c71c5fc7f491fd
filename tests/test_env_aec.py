"""The PettingZoo AEC environment: PettingZoo's own test tools, observations, masks, rewards, illegal moves."""

from __future__ import annotations

import pickle

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

import awale_env
from awale_env import IllegalMoveError, State


@pytest.mark.parametrize("kwargs", [{}, {"reward": "score_diff", "max_plies": 40}])
def test_pettingzoo_api_test(kwargs):
    api_test(awale_env.env(**kwargs), num_cycles=1000)


def test_pettingzoo_seed_test():
    seed_test(awale_env.env, num_cycles=500)


@pytest.mark.parametrize("seed", [-1, 1.5, "x", True])
def test_a_bad_seed_is_refused_and_the_game_goes_on(seed):
    """As Gymnasium's envs refuse it: a seed is a non-negative integer (or None); the game under way is kept."""
    env = awale_env.env()
    env.reset(seed=1)
    env.step(env.unwrapped.game.legal_actions()[0])
    before = env.unwrapped.game.to_dict()
    with pytest.raises(ValueError, match="seed must be a non-negative integer or None, got"):
        env.reset(seed=seed)
    assert env.unwrapped.game.to_dict() == before


def test_pettingzoo_render_test():
    render_test(awale_env.env)


def test_registry_and_metadata():
    env = pettingzoo.make("aec", "awale_env/awale-v0", max_plies=10)
    assert isinstance(env.unwrapped, awale_env.raw_env)
    assert env.unwrapped.max_plies == 10
    meta = awale_env.raw_env.metadata
    assert meta["name"] == "awale_v0" and meta["is_parallelizable"] is False
    assert set(meta["render_modes"]) == {"human", "ansi", "rgb_array"} and meta["render_fps"] > 0
    env.reset()
    assert env.possible_agents == ["player_0", "player_1"] and env.agent_selection == "player_0"
    assert env.action_space("player_1").n == 32
    assert env.observation_space("player_0") is env.observation_space("player_0")


def test_wrappers_are_pettingzoos_and_keep_their_rules():
    from pettingzoo.utils import wrappers

    env = awale_env.env()
    layers = [env, env.env, env.env.env]
    for layer, cls in zip(layers, (wrappers.OrderEnforcingWrapper, wrappers.AssertOutOfBoundsWrapper,
                                   wrappers.TerminateIllegalWrapper)):  # fmt: skip
        assert isinstance(layer, cls)
    for name in ("agent_selection", "rewards", "infos", "agents"):
        with pytest.raises(AttributeError, match="cannot be accessed before reset"):
            getattr(env, name)
    env.reset()
    assert env.infos is env.unwrapped.infos and env.env.rewards is env.unwrapped.rewards
    assert env.action_space("player_0").contains(31) and not env.action_space("player_0").contains(32)
    assert env.action_space("player_0").contains(np.int64(3)) and not env.action_space("player_0").contains("3")
    with pytest.raises(AssertionError, match="not in action space"):
        env.step(32)


def test_pickles():
    env = pickle.loads(pickle.dumps(awale_env.env(max_plies=77, reward="score_diff")))
    assert env.unwrapped.max_plies == 77 and env.unwrapped.reward == "score_diff"


def random_game(env, rng: np.random.Generator):
    """Plays a random masked game, checking every observation against the State API; returns the last rewards."""
    env.reset()
    raw = env.unwrapped
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        state = raw.game
        seat = env.possible_agents.index(agent)
        np.testing.assert_array_equal(obs["observation"], state.observation_tensor(seat))
        np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
        assert not truncation
        for other in env.possible_agents:  # the mask is the agent to move's legal moves, zeros for the other
            mask = env.observe(other)["action_mask"]
            assert mask.dtype == np.int8
            expected = state.legal_mask() if other == env.agent_selection else np.zeros(32, bool)
            np.testing.assert_array_equal(mask.astype(bool), expected)
        if termination:
            assert info["stores"] == state.stores and info["end_reason"] == state.end_reason
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return raw.game, totals


@pytest.mark.parametrize("max_plies", [400, 31, None])
def test_win_loss_rewards_are_the_result(max_plies):
    env = awale_env.env(max_plies=max_plies)
    rng = np.random.default_rng(max_plies or 0)
    for _ in range(10):
        final, totals = random_game(env, rng)
        assert final.is_terminal
        assert (totals["player_0"], totals["player_1"]) == final.returns()


def test_score_diff_rewards_add_up_to_the_store_difference():
    env = awale_env.env(reward="score_diff")
    rng = np.random.default_rng(1)
    for _ in range(10):
        final, totals = random_game(env, rng)
        s0, s1 = final.stores
        assert totals["player_0"] == pytest.approx((s0 - s1) / 64)
        assert totals["player_1"] == pytest.approx((s1 - s0) / 64)


def test_illegal_action_ends_the_game_with_minus_one_for_the_mover():
    env = awale_env.env()
    env.reset()
    env.step(0)  # player_0 plays 1R
    env.step(0)  # player_1 tries 1R: hole 1 is player_0's
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 0, "player_1": -1}
    _, reward, termination, _, _ = env.last()
    assert termination and env._cumulative_rewards["player_1"] == -1
    raw = awale_env.raw_env()
    raw.reset()
    with pytest.raises(IllegalMoveError, match="illegal move 2R"):
        raw.step(2)


def rotate(state: State, shift: int) -> State:
    """The position turned by ``shift`` holes (hole h -> h + shift), stores swapped: for an odd shift each player's
    holes become the other's."""
    return State.from_position(
        np.roll(state.red, shift).tolist(),
        np.roll(state.blue, shift).tolist(),
        state.stores[::-1],
        1 - state.to_move,
        state.ply,
        state.max_plies,
    )


def observe_position(state: State) -> dict[str, dict[str, np.ndarray]]:
    raw = awale_env.raw_env()
    raw.reset()
    raw.game = state
    raw.agent_selection = raw.possible_agents[state.to_move]
    return {agent: raw.observe(agent) for agent in raw.possible_agents}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 60))
def test_rotating_the_board_by_one_hole_swaps_the_views(seed, plies):
    rng = np.random.default_rng(seed)
    state = State.initial()
    for _ in range(plies):
        if state.is_terminal:
            break
        state = state.play(int(rng.choice(state.legal_actions())))
    if state.is_terminal:
        return
    views = observe_position(state)
    for seat, shift in ((0, 1), (1, -1)):
        # player 0's holes turned forward by one are player 1's (1 -> 2, 3 -> 4, ...); player 1's turned back by
        # one are player 0's (2 -> 1, ...): either way the other seat sees exactly what this one saw
        mine, theirs = views[f"player_{seat}"], observe_position(rotate(state, shift))[f"player_{1 - seat}"]
        np.testing.assert_array_equal(mine["observation"], theirs["observation"])
        # actions stay absolute: the legal actions move with the holes
        np.testing.assert_array_equal(np.roll(mine["action_mask"], 2 * shift), theirs["action_mask"])


def test_observation_layout_puts_own_holes_first_for_both_seats():
    red = [1, 2, 3, 4] + [1] * 12  # holes 1-4 hold 1-4 red seeds
    blue = [0] * 15 + [7]  # hole 16 holds 7 blue
    state = State.from_position(red, blue, stores=(3, 5), to_move=0, ply=100, max_plies=400)
    views = observe_position(state)
    p0, p1 = views["player_0"]["observation"] * 16, views["player_1"]["observation"] * 16
    assert (p0[0], p0[2], p0[4], p0[31]) == (1, 2, 3, 7)  # player 0 starts at hole 1
    assert (p1[0], p1[2], p1[29], p1[31]) == (2, 3, 7, 0)  # player 1 starts at hole 2, ends with hole 1
    p0, p1 = p0 / 16, p1 / 16
    assert (p0[32], p0[33]) == (3 / 64, 5 / 64) and (p1[32], p1[33]) == (5 / 64, 3 / 64)
    assert p0[34] == p1[34] == pytest.approx(0.25)
    assert p0.dtype == np.float32 and awale_env.raw_env().observation_space("player_0")["observation"].contains(p0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"max_plies": -3}, "max_plies"), ({"reward": "points"}, "reward"), ({"render_mode": "gif"}, "render_mode")],
)
def test_bad_options_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        awale_env.raw_env(**kwargs)
