"""The game protocol and the environments of the other games (Oware, both presets, and Hawalis): PettingZoo's and
Gymnasium's own checkers, masks, observations, rewards, illegal moves, seeding, registry ids."""

from __future__ import annotations

import pickle

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import awale_env
from awale_env import IllegalMoveError
from awale_env.games import GAMES, game_of, get_game, hawalis, oware

# every game but the two-colour Awale (tests/test_env_aec.py covers it), Oware under both presets
CONFIGS = {
    "oware": {"game": "oware"},
    "oware-openspiel": {"game": "oware", "preset": "openspiel"},
    "hawalis": {"game": "hawalis"},
}
CONFIG_IDS = list(CONFIGS)


def random_aec_game(env, rng):
    """Play ``env`` to the end with random legal moves; return the final State, the rewards added up per agent and
    the last infos."""
    env.reset(seed=int(rng.integers(2**31)))
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env.unwrapped.game, totals, info


# --- the protocol ---------------------------------------------------------------------------------------------------


def test_games_describe_their_states():
    assert list(GAMES) == ["awale16", "oware", "hawalis"]
    expected = {"awale16": (32, 35, 400, awale_env.State), "oware": (6, 15, 1000, oware.State)}
    expected["hawalis"] = (14, 29, 1000, hawalis.State)
    for name, (actions, obs, plies, state_type) in expected.items():
        game = get_game(name)
        assert get_game(game) is game and game.name == name
        assert (game.num_actions, game.obs_size, game.default_max_plies, game.state_type) == (actions, obs, plies,
                                                                                              state_type)  # fmt: skip
        state = game.initial()
        assert type(state) is state_type and game_of(state) is game and state.max_plies == plies
        assert state.legal_mask().shape == (actions,) and state.observation_tensor(0).shape == (obs,)
        assert game.observation_space().contains(state.observation_tensor(1))
        assert game.initial(max_plies=None).max_plies is None and game.initial(max_plies=7).max_plies == 7
        image = game.render_rgb(state)
        assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
        assert isinstance(game.render_ansi(state.play(state.legal_actions()[0]), state.legal_actions()[0]), str)


def test_moves_are_written_by_the_game():
    assert get_game("awale16").format_move(27) == "14B" and get_game("awale16").parse_move("14B") == 27
    assert get_game("oware").format_move(5) == "5" and get_game("hawalis").parse_move("13") == 13
    with pytest.raises(IllegalMoveError, match="0-5"):
        get_game("oware").format_move(6)
    with pytest.raises(IllegalMoveError, match="0-13"):
        get_game("hawalis").parse_move("14")


def test_initial_options_pass_through_and_seed_the_first_player():
    assert get_game("oware").initial(preset="openspiel").rules.name == "openspiel"
    assert get_game("hawalis").initial(endless_move="illegal").rules.endless_move == "illegal"
    firsts = {get_game("oware").initial(seed=s).to_move for s in range(20)}
    assert firsts == {0, 1}
    assert all(get_game("oware").initial(seed=s) == get_game("oware").initial(seed=s) for s in range(20))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: get_game("chess"), "unknown game 'chess'; the games are 'awale16', 'oware', 'hawalis'"),
        (lambda: get_game("hawalis").initial(preset="texts"), "options are max_plies, seed, first_player"),
        (lambda: get_game("awale16").initial(endless_move="loses"), "its options are max_plies, seed$"),
        (lambda: get_game("oware").initial(grand_slam="sometimes"), "grand_slam must be one of"),
        (lambda: game_of("a state"), "not the State of a known game"),
    ],
)
def test_bad_games_and_options_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- PettingZoo ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_pettingzoo_api_test(config):
    api_test(awale_env.env(**CONFIGS[config]), num_cycles=1000)


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_pettingzoo_seed_and_render_tests(config):
    seed_test(lambda **kw: awale_env.env(**CONFIGS[config], **kw), num_cycles=200)
    render_test(lambda **kw: awale_env.env(**CONFIGS[config], **kw))


def test_registry_ids_and_factories():
    for env_id, factory, name in (
        ("awale_env/oware-v0", awale_env.oware_env, "oware"),
        ("awale_env/hawalis-v0", awale_env.hawalis_env, "hawalis"),
    ):
        game = get_game(name)
        for env in (pettingzoo.make("aec", env_id, max_plies=50), factory(max_plies=50)):
            raw = env.unwrapped
            assert raw.game_spec is game and raw.max_plies == 50 and raw.metadata["name"] == f"{name}_v0"
            env.reset(seed=0)
            assert type(raw.game) is game.state_type and raw.game.max_plies == 50
            assert env.action_space("player_0").n == game.num_actions
            assert env.observation_space("player_1")["observation"].shape == (game.obs_size,)
    assert awale_env.oware_env().unwrapped.max_plies == 1000 and awale_env.env().unwrapped.max_plies == 400
    assert awale_env.hawalis_env(max_plies=None).unwrapped.game.max_plies is None
    assert awale_env.raw_env.metadata["name"] == "awale_v0"  # the class keeps the two-colour game's


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_masks_and_observations_are_the_states_from_each_side(config):
    env = awale_env.env(**CONFIGS[config])
    rng = np.random.default_rng(3)
    env.reset(seed=3)
    for agent in env.agent_iter():
        obs, _, termination, truncation, info = env.last()
        state, seat = env.unwrapped.game, env.possible_agents.index(agent)
        if termination or truncation:
            assert not obs["action_mask"].any()
            env.step(None)
            continue
        assert seat == state.to_move
        np.testing.assert_array_equal(obs["action_mask"], state.legal_mask())
        np.testing.assert_array_equal(info["action_mask"], state.legal_mask())
        assert obs["action_mask"].dtype == np.int8
        for other in env.possible_agents:
            view = env.observe(other)
            np.testing.assert_array_equal(
                view["observation"], state.observation_tensor(env.possible_agents.index(other))
            )
            if other != agent:
                assert not view["action_mask"].any()
        env.step(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_rewards_are_the_result_or_add_up_to_the_store_difference(config):
    rng = np.random.default_rng(5)
    win_loss = awale_env.env(**CONFIGS[config], max_plies=120)
    score_diff = awale_env.env(**CONFIGS[config], reward="score_diff", max_plies=120)
    total = win_loss.unwrapped.game_spec.total_seeds
    for _ in range(4):
        final, totals, info = random_aec_game(win_loss, rng)
        assert final.is_terminal and (totals["player_0"], totals["player_1"]) == final.returns()
        assert info["end_reason"] == final.end_reason and info["stores"] == final.stores
        final, totals, _ = random_aec_game(score_diff, rng)
        s0, s1 = final.stores
        assert totals["player_0"] == pytest.approx((s0 - s1) / total) == -totals["player_1"]


def play_until_a_move_is_illegal(env) -> int:
    """Play first legal moves until the mover has an illegal move; return that move."""
    env.reset(seed=0)
    while env.unwrapped.game.legal_mask().all():
        env.step(int(env.unwrapped.game.legal_actions()[0]))
    return int(np.flatnonzero(~env.unwrapped.game.legal_mask())[0])


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_illegal_action_loses_with_minus_one(config):
    env = awale_env.env(**CONFIGS[config])
    illegal = play_until_a_move_is_illegal(env)
    mover = env.agent_selection
    env.step(illegal)
    assert all(env.terminations.values())
    other = next(agent for agent in env.possible_agents if agent != mover)
    assert env.rewards == {mover: -1, other: 0}  # PettingZoo's TerminateIllegalWrapper
    _, _, termination, _, _ = env.last()
    assert termination and env._cumulative_rewards[mover] == -1
    raw = awale_env.raw_env(**CONFIGS[config])
    illegal = play_until_a_move_is_illegal(raw)
    with pytest.raises(IllegalMoveError, match=f"illegal move {illegal}"):
        raw.step(illegal)


def test_oware_random_first_player_follows_the_reset_seed():
    env = awale_env.oware_env()
    firsts = []
    for seed in range(12):
        env.reset(seed=seed)
        first = env.agent_selection
        env.reset(seed=seed)
        assert env.agent_selection == first == f"player_{env.unwrapped.game.to_move}"
        firsts.append(first)
    assert set(firsts) == {"player_0", "player_1"}
    env.reset(seed=7)
    after_seed = [(env.reset(), env.agent_selection)[1] for _ in range(8)]
    env.reset(seed=7)
    assert [(env.reset(), env.agent_selection)[1] for _ in range(8)] == after_seed  # unseeded resets follow the seed
    assert awale_env.oware_env(first_player=1).unwrapped.game.to_move == 1


def test_options_are_checked_and_pickled():
    with pytest.raises(ValueError, match="unknown game 'go'"):
        awale_env.env(game="go")
    with pytest.raises(ValueError, match="'preset' for the game 'hawalis'; its rule options are first_player"):
        awale_env.hawalis_env(preset="texts")
    with pytest.raises(ValueError, match="reset"):
        awale_env.oware_env(seed=1)
    with pytest.raises(ValueError, match="endless_move must be"):
        awale_env.hawalis_env(endless_move="sometimes")
    with pytest.raises(ValueError, match="max_plies"):
        awale_env.oware_env(max_plies=0)
    env = pickle.loads(pickle.dumps(awale_env.oware_env(preset="openspiel", reward="score_diff", max_plies=90)))
    env.reset(seed=1)
    raw = env.unwrapped
    assert raw.game.rules.name == "openspiel" and raw.reward == "score_diff" and raw.game.max_plies == 90
