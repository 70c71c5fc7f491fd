"""The game protocol and the environments of the other games (Oware, both presets, and Hawalis): PettingZoo's and
Gymnasium's own checkers, masks, observations, rewards, illegal moves, seeding, registry ids."""

from __future__ import annotations

import json
import pickle

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from nojit import run_python
from pettingzoo.test import api_test, render_test, seed_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import agents
import awale_env
from awale_env import IllegalMoveError
from awale_env.games import GAMES, game_of, get_game, hawalis, oware
from awale_env.gym_env import AwaleEnv, move_reward
from awale_env.vector import AwaleVectorEnv

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


# --- Gymnasium ------------------------------------------------------------------------------------------------------

GYM_IDS = {"oware": "awale_env/Oware-v0", "oware-openspiel": "awale_env/Oware-v0", "hawalis": "awale_env/Hawalis-v0"}


def gym_options(config: str) -> dict:
    """The Gymnasium options of a config: its rule flags (the registered id chooses the game)."""
    return {k: v for k, v in CONFIGS[config].items() if k != "game"}


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_gymnasium_and_sb3_env_checkers_pass(config):
    env = gymnasium.make(GYM_IDS[config], **gym_options(config), opponent="greedy", learner_seat="random")
    assert env.unwrapped.game_spec.name == CONFIGS[config]["game"]
    check_env(env.unwrapped, skip_render_check=False)
    sb3_check_env(AwaleEnv(**CONFIGS[config], reward="score_diff", max_plies=80), warn=True)


@pytest.mark.parametrize("config", CONFIG_IDS)
@pytest.mark.parametrize("opponent", ["random", "greedy", "object", "callable"])
def test_gym_episodes_follow_the_state_api(config, opponent):
    opponents = {"object": agents.make("random"), "callable": lambda state: state.legal_actions()[-1]}
    env = AwaleEnv(**CONFIGS[config], opponent=opponents.get(opponent, opponent), learner_seat="random", max_plies=150)
    game = get_game(CONFIGS[config]["game"])
    assert env.observation_space == game.observation_space() and env.action_space.n == game.num_actions
    rng = np.random.default_rng(1)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        total = 0.0
        while True:
            state, seat = env.game, env.learner
            assert state.to_move == seat and not state.is_terminal and info["learner_seat"] == seat
            np.testing.assert_array_equal(env.action_masks(), state.legal_mask())
            np.testing.assert_array_equal(info["action_mask"], state.legal_mask())
            np.testing.assert_array_equal(obs, state.observation_tensor(seat))
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            total += reward
            assert not truncated and env.observation_space.contains(obs)
            if terminated:
                break
        final = env.game
        assert final.is_terminal and total == final.returns()[seat]
        assert info["winner"] == final.winner and info["end_reason"] == final.end_reason
        assert info["stores"] == final.stores and not env.action_masks().any()


@pytest.mark.parametrize("config", CONFIG_IDS)
def test_gym_illegal_action_loses_with_minus_one(config):
    env = AwaleEnv(**CONFIGS[config], opponent=lambda state: state.legal_actions()[0])
    env.reset(seed=0)
    while env.action_masks().all():
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["end_reason"] == "illegal_action" and info["illegal_action"] == illegal
    assert info["winner"] == 1 - env.learner and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=f"integer 0-{env.action_space.n - 1}"):
        env.step(env.action_space.n)


def test_gym_score_diff_adds_up_to_the_final_store_difference():
    for config in CONFIG_IDS:
        env = AwaleEnv(**CONFIGS[config], reward="score_diff", learner_seat=1, max_plies=100)
        total = 0.0
        env.reset(seed=4)
        while True:
            _, reward, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            total += reward
            if terminated:
                break
        s0, s1 = info["stores"]
        assert total == pytest.approx((s1 - s0) / env.game_spec.total_seeds)


def test_gym_seeds_make_oware_episodes_reproducible():
    def episode(seed):
        env = AwaleEnv(game="oware", opponent="random", learner_seat="random")
        obs, info = env.reset(seed=seed)
        trace = [(env.game.ply, info["learner_seat"], obs.tobytes())]
        for _ in range(6):
            obs, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trace.append(obs.tobytes())
        return trace

    assert episode(11) == episode(11)
    # the random first player: with the learner at seat 0, the opponent sometimes moves first
    plies = set()
    env = AwaleEnv(game="oware")
    for seed in range(10):
        env.reset(seed=seed)
        plies.add(env.game.ply)
    assert plies == {0, 1}


def test_gym_bad_options_are_named():
    with pytest.raises(ValueError, match="unknown game"):
        AwaleEnv(game="senet")
    with pytest.raises(ValueError, match="unknown option\\(s\\) 'endless_move' for the game 'oware'"):
        gymnasium.make("awale_env/Oware-v0", endless_move="loses")
    with pytest.raises(ValueError, match="grand_slam must be one of"):
        AwaleEnv(game="oware", grand_slam="always")
    with pytest.raises(ValueError, match="reset"):
        AwaleEnv(game="hawalis", seed=3)
    assert AwaleEnv(game="hawalis").max_plies == 1000 and AwaleEnv(game="hawalis", max_plies=None).max_plies is None


# --- the batched vector env -----------------------------------------------------------------------------------------

VECTOR_CONFIGS = {**CONFIGS, "hawalis-endless-illegal": {"game": "hawalis", "endless_move": "illegal"}}


def same_position(a, b) -> bool:
    """Board, stores, player to move and ply (not the history a State may keep, such as Oware's repetition set)."""
    return (a.board, a.stores, a.to_move, a.ply) == (b.board, b.stores, b.to_move, b.ply)


def pick_actions(masks: np.ndarray, rng: np.random.Generator, illegal_rate: float) -> np.ndarray:
    """A uniformly random legal action per game (0 where none is legal), sometimes an illegal one."""
    actions = np.where(masks.any(1), (rng.random(masks.shape) * masks).argmax(1), 0)
    illegal = (rng.random(len(actions)) < illegal_rate) & masks.any(1) & ~masks.all(1)
    actions[illegal] = [int(np.flatnonzero(~m)[0]) for m in masks[illegal]]
    return actions


@pytest.mark.parametrize("config", list(VECTOR_CONFIGS))
@pytest.mark.parametrize("reward", ["win_loss", "score_diff"])
def test_vector_self_play_agrees_with_the_state_api(config, reward):
    n = 12
    vec = AwaleVectorEnv(n, opponent=None, max_plies=60, reward=reward, **VECTOR_CONFIGS[config])
    game = vec.game_spec
    obs, info = vec.reset(seed=0)
    assert obs.shape == (n, game.obs_size) and info["action_mask"].shape == (n, game.num_actions)
    states = [vec.state(i) for i in range(n)]
    assert all(s.ply == 0 and type(s) is game.state_type for s in states)
    restarting = np.zeros(n, dtype=bool)
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(150):
        for i, s in enumerate(states):
            if not restarting[i]:
                assert same_position(vec.state(i), s)
                np.testing.assert_array_equal(obs[i], s.observation_tensor(s.to_move))
                np.testing.assert_array_equal(info["action_mask"][i], s.legal_mask())
        actions = pick_actions(info["action_mask"], rng, illegal_rate=0.01)
        obs, rewards, terminated, truncated, info = vec.step(actions)
        assert not truncated.any() and vec.observation_space.contains(obs)
        for i in range(n):
            if restarting[i]:  # next-step autoreset: this step only restarted the game
                assert info["mover"][i] == -1 and rewards[i] == 0 and not terminated[i]
                states[i], restarting[i] = vec.state(i), False
                assert states[i].ply == 0
                continue
            s, action = states[i], int(actions[i])
            assert info["mover"][i] == s.to_move
            if not s.is_legal(action):
                assert terminated[i] and rewards[i] == -1 and vec.outcomes[info["outcome"][i]] == "illegal_action"
                restarting[i] = True
                continue
            after = s.play(action)
            assert rewards[i] == pytest.approx(move_reward(vec._reward_mode, game, s, after))
            assert terminated[i] == after.is_terminal
            if after.is_terminal:
                assert vec.outcomes[info["outcome"][i]] == after.end_reason
                assert tuple(info["stores"][i]) == after.stores and not info["action_mask"][i].any()
                restarting[i] = True
                ended += 1
            states[i] = after
    assert ended > 0


@pytest.mark.parametrize("config", list(VECTOR_CONFIGS))
def test_vector_random_opponent_replies_with_legal_moves(config):
    n = 8
    vec = AwaleVectorEnv(n, opponent="random", learner_seat="random", max_plies=60, **VECTOR_CONFIGS[config])
    game = vec.game_spec
    obs, info = vec.reset(seed=1)
    rng = np.random.default_rng(3)
    seats = set()
    restarting = np.zeros(n, dtype=bool)
    for _ in range(80):
        states = [vec.state(i) for i in range(n)]
        for i, s in enumerate(states):
            if restarting[i]:
                continue
            assert s.to_move == vec.learner[i] and not s.is_terminal
            np.testing.assert_array_equal(obs[i], s.observation_tensor(int(vec.learner[i])))
            np.testing.assert_array_equal(info["action_mask"][i], s.legal_mask())
            seats.add(int(vec.learner[i]))
        actions = pick_actions(info["action_mask"], rng, illegal_rate=0.0)
        obs, rewards, terminated, _, info = vec.step(actions)
        for i, s in enumerate(states):
            if restarting[i]:  # next-step autoreset: this step only restarted the game
                assert rewards[i] == 0 and not terminated[i]
                restarting[i] = False
                continue
            after = s.play(int(actions[i]))
            mode = vec._reward_mode
            outcomes = [(after, move_reward(mode, game, s, after))]
            if not after.is_terminal:  # the opponent's reply: one of its legal moves
                for reply in after.legal_actions():
                    final = after.play(reply)
                    outcomes.append((final, move_reward(mode, game, s, after) - move_reward(mode, game, after, final)))
            matches = [
                (final, reward)
                for final, reward in outcomes
                if final.is_terminal == terminated[i] and (final.is_terminal or final.to_move == vec.learner[i])
                and (same_position(final, vec.state(i)) or final.is_terminal)
            ]  # fmt: skip
            assert matches, f"game {i}: no legal reply leads to the env's position"
            assert rewards[i] in [pytest.approx(reward) for _, reward in matches]
            if terminated[i]:
                assert vec.outcomes[info["outcome"][i]] in {final.end_reason for final, _ in matches}
                restarting[i] = True
    assert seats == {0, 1}


@pytest.mark.parametrize("config", ["oware", "hawalis"])
def test_vector_same_step_autoreset_and_agent_opponents(config):
    vec = AwaleVectorEnv(
        6, opponent="greedy", learner_seat="random", max_plies=30, autoreset_mode="SameStep", **VECTOR_CONFIGS[config]
    )
    obs, info = vec.reset(seed=5)
    rng = np.random.default_rng(5)
    finished = 0
    for _ in range(60):
        for i in range(6):
            s = vec.state(i)
            assert s.to_move == vec.learner[i] and not s.is_terminal
            np.testing.assert_array_equal(info["action_mask"][i], s.legal_mask())
        obs, rewards, terminated, _, info = vec.step(pick_actions(info["action_mask"], rng, illegal_rate=0.0))
        for i in np.flatnonzero(terminated):
            assert vec.state(i).ply <= 1 and info["_final_obs"][i]  # already restarted; the last view kept
            assert vec.outcomes[info["outcome"][i]] is not None and vec.observation_space.contains(info["final_obs"])
            finished += 1
    assert finished > 0


def test_vector_make_vec_and_options():
    for env_id, game in (("awale_env/Oware-v0", "oware"), ("awale_env/Hawalis-v0", "hawalis")):
        vec = gymnasium.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point", max_plies=40)
        assert isinstance(vec.unwrapped, AwaleVectorEnv) and vec.unwrapped.game_spec.name == game
        obs, info = vec.reset(seed=0)
        assert obs.shape == (3, get_game(game).obs_size) and info["action_mask"].shape == (
            3,
            get_game(game).num_actions,
        )
    assert AwaleVectorEnv(2, game="oware", preset="openspiel").games.rules.name == "openspiel"
    with pytest.raises(ValueError, match="ply limit"):
        AwaleVectorEnv(2, game="oware", max_plies=None)
    with pytest.raises(ValueError, match="unknown option\\(s\\) 'preset' for the game 'hawalis'"):
        AwaleVectorEnv(2, game="hawalis", preset="texts")
    with pytest.raises(ValueError, match="unknown game"):
        AwaleVectorEnv(2, game="mancala")


def vector_digest() -> dict:
    """What a few batched games of the other games compute, every mode (run with and without NUMBA_DISABLE_JIT=1)."""
    digest = {}
    for config in ("oware", "hawalis-endless-illegal"):
        for opponent in (None, "random"):
            for mode in ("NextStep", "SameStep"):
                vec = AwaleVectorEnv(4, opponent=opponent, learner_seat="random", max_plies=20, autoreset_mode=mode,
                                     reward="score_diff", **VECTOR_CONFIGS[config])  # fmt: skip
                obs, _ = vec.reset(seed=11)
                rng = np.random.default_rng(0)
                total = [obs.tolist()]
                for _ in range(30):
                    obs, rewards, terminated, _, info = vec.step(pick_actions(vec.action_masks(), rng, 0.02))
                    total.append([obs.tolist(), rewards.tolist(), terminated.tolist(), info["outcome"].tolist()])
                digest[f"{config}-{opponent}-{mode}"] = total
    return digest


def test_vector_pure_python_fallback_is_identical():
    code = "import json, test_games_envs as t; print(json.dumps(t.vector_digest()))"
    assert run_python(code) == json.loads(json.dumps(vector_digest()))
