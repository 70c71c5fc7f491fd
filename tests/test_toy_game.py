"""The toy game of tests/toy_game/, a game package registered from the tests alone, runs through everything a game
of the package does: its rules, the AEC env, the vector env (on the pure-Python batch: it has no batch kernels), and
the agents ``random``, ``alphabeta`` and ``mcts`` (through its search kernels: tests/toy_game_search.py, run by
tests/test_toy_searches.py in a fresh process). tests/test_contract.py runs the whole contract on it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pettingzoo

from awale_env.batched import StateBatchedGames
from awale_env.games import GAMES
from awale_env.vector import AwaleVectorEnv


def position(board, stores=(0, 0), to_move=0, ply=0):
    from toy_game import State

    return State.from_position(board, stores, to_move, ply)


def test_the_rules_capture_collect_and_end(toy_game):
    start = toy_game.initial()
    assert start.board == (2,) * 6 and start.legal_actions() == [0, 1, 2] and toy_game.format_move(2) == "C"
    after = start.play("C")  # two seeds into player 1's pits 3 and 4, which hold 3 each: both captured
    assert after.board == (2, 2, 0, 0, 0, 2) and after.stores == (6, 0) and after.last_capture == 6
    end = after.play(2)  # the same for player 1; player 0 has no seed left: player 1 takes what is left (none)
    assert end.is_terminal and end.end_reason == "no_move" and end.stores == (6, 6) and end.winner is None
    collected = position([1, 0, 1, 2, 0, 0], (4, 4)).play(2)  # captures player 1's last seeds, then takes its own
    assert collected.end_reason == "no_move" and collected.stores == (8, 4) and collected.board == (0,) * 6
    majority = position([0, 0, 1, 2, 1, 0], (4, 4)).play(2)  # captures 3: a store of 7 > 12 / 2
    assert majority.end_reason == "majority" and majority.winner == 0 and majority.returns() == (1.0, -1.0)
    limited = toy_game.initial(max_plies=1).play(0)
    assert limited.end_reason == "ply_limit" and limited.max_plies == 1


def test_the_toy_game_is_registered_by_its_tests_only():
    assert "toy" not in GAMES  # the fixture puts the registry back after each test that uses the toy game


def test_the_aec_env_plays_it_to_the_end(toy_game):
    env = pettingzoo.make("aec", "awale_env/toy-v0")
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert env.unwrapped.game.is_terminal and type(env.unwrapped.game) is toy_game.state_type


def test_a_game_without_search_kernels_runs_on_the_pure_python_batch(toy_game):
    """Without a search module the vector env keeps the games' States (the toy game's compiled batch is tested in
    tests/toy_game_search.py, with a numba cache of its own)."""
    bare = dataclasses.replace(toy_game, package=None)
    vec = AwaleVectorEnv(32, opponent=None, game=bare, max_plies=40)
    assert type(vec.games) is StateBatchedGames
    obs, info = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        masks = info["action_mask"]
        actions = np.where(masks.any(1), (rng.random(masks.shape) * masks).argmax(1), 0)
        obs, rewards, terminated, _, info = vec.step(actions)
        ended += int(terminated.sum())
    assert obs.shape == (32, toy_game.obs_size) and ended > 32
