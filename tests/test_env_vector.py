"""The batched vector environment agrees with the State API move for move, autoresets as Gymnasium documents, and
computes the same thing with the pure-Python fallback."""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from nojit import run_python

from awale_env import State
from awale_env.vector import AwaleVectorEnv

MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP]


def pick_actions(masks: np.ndarray, rng: np.random.Generator, illegal_rate: float = 0.0) -> np.ndarray:
    """A uniformly random legal action per game (any action where none is legal), sometimes an illegal one."""
    actions = np.where(masks.any(1), (rng.random(masks.shape) * masks).argmax(1), 0)
    illegal = (rng.random(len(actions)) < illegal_rate) & masks.any(1)
    actions[illegal] = [int(np.flatnonzero(~m)[0]) for m in masks[illegal]]
    return actions


@pytest.mark.parametrize("mode", MODES)
def test_self_play_agrees_with_the_state_api(mode):
    n = 24
    vec = AwaleVectorEnv(n, opponent=None, max_plies=60, reward="score_diff", autoreset_mode=mode)
    obs, info = vec.reset(seed=0)
    states = [State.initial(60) for _ in range(n)]
    restarting = np.zeros(n, dtype=bool)
    rng = np.random.default_rng(1)
    ended_games = 0
    for _ in range(300):
        for i, s in enumerate(states):
            assert vec.state(i) == s
            np.testing.assert_array_equal(obs[i], s.observation_tensor(s.to_move))
            expected_mask = np.zeros(32, bool) if restarting[i] else s.legal_mask()
            np.testing.assert_array_equal(info["action_mask"][i], expected_mask)
        np.testing.assert_array_equal(vec.action_masks(), info["action_mask"])
        actions = pick_actions(info["action_mask"], rng, illegal_rate=0.01)
        obs, rewards, terminated, truncated, info = vec.step(actions)
        assert not truncated.any() and vec.observation_space.contains(obs)
        for i in range(n):
            if restarting[i]:  # next-step autoreset: this step only restarted the game
                assert info["mover"][i] == -1 and rewards[i] == 0 and not terminated[i]
                states[i], restarting[i] = State.initial(60), False
                continue
            s = states[i]
            assert info["mover"][i] == s.to_move
            if not s.is_legal(int(actions[i])):
                assert terminated[i] and rewards[i] == -1 and vec.outcomes[info["outcome"][i]] == "illegal_action"
                final = s
            else:
                final = s.play(int(actions[i]))
                assert rewards[i] == pytest.approx(final.last_capture / 64)
                assert terminated[i] == final.is_terminal
                if final.is_terminal:
                    assert vec.outcomes[info["outcome"][i]] == final.end_reason
            if terminated[i]:
                ended_games += 1
                assert info["_outcome"][i] and tuple(info["stores"][i]) == final.stores
                if mode == AutoresetMode.SAME_STEP:
                    assert info["_final_obs"][i]
                    np.testing.assert_array_equal(info["final_obs"][i], final.observation_tensor(final.to_move))
                    states[i] = State.initial(60)
                else:
                    states[i], restarting[i] = final, True
            else:
                states[i] = final
    assert ended_games > 20


@pytest.mark.parametrize("opponent", ["random", "greedy"])
@pytest.mark.parametrize("mode", MODES)
def test_play_against_an_opponent_agrees_with_the_state_api(opponent, mode):
    n = 16 if opponent == "random" else 6
    vec = AwaleVectorEnv(n, opponent=opponent, learner_seat="random", reward="win_loss", autoreset_mode=mode)
    obs, info = vec.reset(seed=2)
    rng = np.random.default_rng(3)
    seats_seen, results = set(), []
    for _ in range(150):
        before = [vec.state(i) for i in range(n)]
        learners = vec.learner.copy()
        for i, s in enumerate(before):
            if not s.is_terminal:
                assert s.to_move == learners[i]
                np.testing.assert_array_equal(info["action_mask"][i], s.legal_mask())
            np.testing.assert_array_equal(obs[i], s.observation_tensor(learners[i]))
        actions = pick_actions(info["action_mask"], rng)
        obs, rewards, terminated, truncated, info = vec.step(actions)
        for i, s in enumerate(before):
            seats_seen.add(int(learners[i]))
            if s.is_terminal:  # next-step autoreset
                assert rewards[i] == 0 and not terminated[i]
                continue
            mid = s.play(int(actions[i]))
            if mid.is_terminal:
                final = mid
            else:  # the opponent replied with one legal move
                replies = [mid.play(a) for a in mid.legal_actions()]
                if terminated[i] and mode == AutoresetMode.SAME_STEP:  # already restarted: find the end
                    final = next(r for r in replies if r.is_terminal and r.stores == tuple(info["stores"][i]))
                else:
                    final = vec.state(i)
                    assert final in replies
            assert terminated[i] == final.is_terminal
            if mode == AutoresetMode.NEXT_STEP or not terminated[i]:
                assert vec.state(i) == final
            assert rewards[i] == final.returns()[learners[i]]
            if terminated[i]:
                results.append(rewards[i])
    assert seats_seen == {0, 1} and len(results) > 3


def test_reset_seed_reproduces_games_and_reset_mask_restarts_some():
    def run(seed):
        vec = AwaleVectorEnv(8, learner_seat="random")
        obs, _ = vec.reset(seed=seed)
        rng = np.random.default_rng(0)
        history = [obs]
        for _ in range(40):
            obs, *_ = vec.step(pick_actions(vec.action_masks(), rng))
            history.append(obs)
        return np.stack(history)

    np.testing.assert_array_equal(run(5), run(5))
    assert (run(5) != run(6)).any()

    vec = AwaleVectorEnv(4, opponent=None)
    vec.reset(seed=0)
    vec.step(np.array([0, 0, 0, 0]))
    mask = np.array([True, False, True, False])
    obs, _ = vec.reset(options={"reset_mask": mask})
    assert [vec.state(i).ply for i in range(4)] == [0, 1, 0, 1]


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="num_envs"):
        AwaleVectorEnv(0)
    with pytest.raises(ValueError, match="learner_seat"):
        AwaleVectorEnv(2, learner_seat=3)
    with pytest.raises(ValueError, match="autoreset_mode"):
        AwaleVectorEnv(2, autoreset_mode=AutoresetMode.DISABLED)
    vec = AwaleVectorEnv(2)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(np.zeros(2, dtype=int))
    vec.reset(seed=0)
    before = vec.games.board.copy()
    with pytest.raises(ValueError, match="shape"):
        vec.step(np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="integer"):
        vec.step(np.zeros(2))
    np.testing.assert_array_equal(vec.games.board, before)


def test_make_vec_builds_the_batched_env():
    vec = gymnasium.make_vec("awale_env/Awale-v0", num_envs=3, vectorization_mode="vector_entry_point")
    assert isinstance(vec.unwrapped, AwaleVectorEnv) and vec.num_envs == 3
    obs, info = vec.reset(seed=0)
    assert obs.shape == (3, 35) and info["action_mask"].shape == (3, 32)
    sync = gymnasium.make_vec("awale_env/Awale-v0", num_envs=2, vectorization_mode="sync")
    assert sync.reset(seed=0)[0].shape == (2, 35)


def vector_digest() -> dict:
    """What a few batched games compute, in every mode (run with and without NUMBA_DISABLE_JIT=1)."""
    digest = {}
    for opponent in (None, "random"):
        for mode in MODES:
            vec = AwaleVectorEnv(6, opponent=opponent, learner_seat="random", max_plies=50, autoreset_mode=mode)
            obs, _ = vec.reset(seed=11)
            rng = np.random.default_rng(0)
            total = [obs.tolist()]
            for _ in range(60):
                obs, rewards, terminated, _, info = vec.step(pick_actions(vec.action_masks(), rng, 0.02))
                total.append([obs.tolist(), rewards.tolist(), terminated.tolist(), info["outcome"].tolist()])
            digest[f"{opponent}-{mode.value}"] = total
    return digest


def test_pure_python_fallback_is_identical():
    code = "import json, test_env_vector as t; print(json.dumps(t.vector_digest()))"
    assert run_python(code) == json.loads(json.dumps(vector_digest()))


def test_self_play_and_the_random_opponent_share_one_compiled_stepper():
    """Both modes of a game run one compiled stepper (a mode is a run-time flag): a fresh install compiles the vector
    env's step once per game, not once per mode."""
    from awale_env.kernels import stepper

    for opponent in (None, "random"):
        for autoreset in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            vec = AwaleVectorEnv(4, opponent=opponent, autoreset_mode=autoreset, learner_seat="random")
            vec.reset(seed=0)
            vec.step(np.argmax(vec.action_masks(), axis=1))
    env_type = type(vec.games.env)
    compiled = [sig for sig in stepper.step_games.signatures if sig[0].instance_class is env_type]
    assert len(compiled) == 1
