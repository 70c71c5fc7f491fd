"""The single-agent Gymnasium environment: the env checkers, masks, rewards, illegal moves, opponents, seeding."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import awale_env
from awale_env import IllegalMoveError, State
from awale_env.gym_env import AwaleEnv

CONFIGS = [
    {},
    {"learner_seat": 1, "reward": "score_diff"},
    {"learner_seat": "random", "opponent": "greedy", "max_plies": 50},
]


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_gymnasium_and_sb3_env_checkers_pass(kwargs):
    env = gymnasium.make("awale_env/Awale-v0", **kwargs)
    check_env(env.unwrapped, skip_render_check=False)
    sb3_check_env(AwaleEnv(**kwargs), warn=True)


def play_episode(env: AwaleEnv, seed: int, rng: np.random.Generator):
    """A random masked episode; returns the transitions and checks the env against the State API on the way."""
    obs, info = env.reset(seed=seed)
    transitions = [(obs, info["learner_seat"])]
    while True:
        state = env.game
        seat = env.learner
        assert state.to_move == seat and not state.is_terminal
        np.testing.assert_array_equal(env.action_masks(), state.legal_mask())
        np.testing.assert_array_equal(info["action_mask"], state.legal_mask())
        np.testing.assert_array_equal(obs, state.observation_tensor(seat))
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        assert not truncated and env.observation_space.contains(obs)
        # the opponent's reply, if any, is one legal move from the learner's result
        after_learner = state.play(action)
        assert env.game == after_learner or any(
            after_learner.play(a) == env.game for a in after_learner.legal_actions()
        )
        transitions.append((obs, reward, terminated, info))
        if terminated:
            return transitions


@pytest.mark.parametrize("reward", ["win_loss", "score_diff"])
def test_episodes_follow_the_rules_and_pay_the_result(reward):
    env = AwaleEnv(learner_seat="random", reward=reward, max_plies=120)
    rng = np.random.default_rng(0)
    for seed in range(12):
        transitions = play_episode(env, seed, rng)
        final = env.game
        seat = env.learner
        *_, (obs, last_reward, _, info) = transitions
        assert info["stores"] == final.stores and info["end_reason"] == final.end_reason
        assert info["winner"] == final.winner and info["learner_seat"] == seat
        assert not info["action_mask"].any() and not env.action_masks().any()
        total = sum(t[1] for t in transitions[1:])
        if reward == "win_loss":
            assert total == last_reward == final.returns()[seat]
        else:
            own, other = final.stores[seat], final.stores[1 - seat]
            assert total == pytest.approx((own - other) / 64)


def test_reset_seed_makes_episodes_reproducible():
    def run(seed):
        env = AwaleEnv(opponent="random", learner_seat="random")
        return [play_episode(env, seed, np.random.default_rng(7)) for _ in range(2)]

    first, again, other = run(3), run(3), run(4)

    def flat(episodes):
        return [np.concatenate([np.ravel(t[0]) for t in ep]) for ep in episodes]

    for a, b in zip(flat(first), flat(again)):
        np.testing.assert_array_equal(a, b)
    assert any(a.shape != b.shape or (a != b).any() for a, b in zip(flat(first), flat(other)))


def test_learner_seat_one_sees_the_opponents_first_move():
    env = AwaleEnv(learner_seat=1)
    obs, info = env.reset(seed=0)
    assert env.game.ply == 1 and env.game.to_move == 1 and info["learner_seat"] == 1
    np.testing.assert_array_equal(obs, env.game.observation_tensor(1))
    assert info["action_mask"].sum() > 0 and all((a >> 1) % 2 == 1 for a in np.flatnonzero(info["action_mask"]))


def test_illegal_action_loses_without_raising():
    env = AwaleEnv()
    obs, _ = env.reset(seed=0)
    before = env.game
    obs2, reward, terminated, truncated, info = env.step(2)  # hole 2 is player 1's
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["end_reason"] == "illegal_action" and info["illegal_action"] == 2 and info["winner"] == 1
    assert env.game == before
    np.testing.assert_array_equal(obs, obs2)
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("action", [32, -1, 1.5, "3R", np.array([1, 2])])
def test_actions_outside_the_space_raise_and_change_nothing(action):
    env = AwaleEnv()
    env.reset(seed=0)
    before = env.game
    with pytest.raises(ValueError, match="integer 0-31"):
        env.step(action)
    assert env.game == before
    env.step(np.int64(0))  # numpy integers are actions too


def test_opponents_objects_callables_and_bad_ones():
    class First:
        def __init__(self):
            self.resets = []

        def reset(self, seed=None):
            self.resets.append(seed)

        def act(self, state: State) -> int:
            return state.legal_actions()[0]

    agent = First()
    env = AwaleEnv(opponent=agent)
    env.reset(seed=5)
    env.reset()
    assert len(agent.resets) == 2 and agent.resets[0] is not None and agent.resets[1] is None
    env.step(0)
    assert env.game.ply == 2

    env = AwaleEnv(opponent=lambda state: state.legal_actions()[-1], learner_seat=1)
    env.reset()
    assert env.game.ply == 1
    with pytest.raises(ValueError, match="opponent must be"):
        AwaleEnv(opponent=3)
    with pytest.raises(ValueError, match="unknown agent"):
        AwaleEnv(opponent="nobody")
    cheat = AwaleEnv(opponent=lambda state: 0)  # 1R is never player 1's move
    cheat.reset()
    with pytest.raises(IllegalMoveError):
        cheat.step(0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"learner_seat": 2}, "learner_seat"),
        ({"max_plies": 0}, "max_plies"),
        ({"reward": "score"}, "reward must be"),
        ({"render_mode": "window"}, "render_mode"),
    ],
)
def test_bad_options_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        AwaleEnv(**kwargs)


def test_step_before_reset_is_an_error():
    with pytest.raises(RuntimeError, match="reset"):
        AwaleEnv().step(0)


@pytest.mark.usefixtures("temporary_files_in_tmp_path")
def test_maskable_ppo_trains_through_subprocess_vec_env():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    # "module:id" makes the worker processes import awale_env (which registers the id) first
    vec = make_vec_env("awale_env:awale_env/Awale-v0", n_envs=2, seed=0, vec_env_cls=SubprocVecEnv)
    try:
        vec.reset()
        masks = get_action_masks(vec)
        assert masks.shape == (2, 32) and masks.dtype == bool and masks.sum(1).min() > 0
        model = sb3_contrib.MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=0)
        model.learn(64)
    finally:
        vec.close()


def test_registered_id_builds_the_env():
    env = gymnasium.make("awale_env/Awale-v0", opponent="greedy", learner_seat="random")
    assert isinstance(env.unwrapped, AwaleEnv)
    assert env.unwrapped.opponent.agent.name == "greedy"
    assert awale_env.__name__ == "awale_env"
