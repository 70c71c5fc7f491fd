"""The compiled searches and the vector env's compiled stepper on the toy game: alpha-beta's values equal plain
minimax, ``alphabeta`` and ``mcts`` beat ``random``, the vector env plays it to the end in self-play and against its
random opponent. Not collected by the suite itself: tests/test_toy_searches.py runs this file in a fresh process with a
numba cache of its own (why: its docstring)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SHARED_KERNEL_CHECKS
from reference_minimax import child_value, minimax

from agents import make
from agents.alphabeta import AlphaBetaAgent
from awale_env.batched import CompiledGames
from awale_env.testing import check_game
from awale_env.vector import AwaleVectorEnv
from competition.arena import play_game


@pytest.mark.parametrize("opponent", [None, "random"])
def test_the_vector_env_steps_it_compiled(toy_game, opponent):
    vec = AwaleVectorEnv(32, opponent=opponent, game="toy", max_plies=40, learner_seat="random")
    assert type(vec.games) is CompiledGames
    obs, info = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        masks = info["action_mask"]
        actions = np.where(masks.any(1), (rng.random(masks.shape) * masks).argmax(1), 0)
        obs, rewards, terminated, _, info = vec.step(actions)
        ended += int(terminated.sum())
        for i in range(32):
            assert vec.state(i).legal_mask().tolist() == info["action_mask"][i].tolist()
    assert obs.shape == (32, toy_game.obs_size) and ended > 16


def test_its_searches_vector_env_and_pure_python_fallback_keep_the_contract(toy_game):
    check_game(toy_game, checks=list(SHARED_KERNEL_CHECKS))


@pytest.mark.parametrize("depth", [1, 3, 5])
def test_alphabeta_searches_it_exactly(toy_game, depth):
    rng = np.random.default_rng(depth)
    agent = AlphaBetaAgent(depth=depth, table_bits=10, seed=0)
    for _ in range(8):
        state = toy_game.initial()
        for _ in range(int(rng.integers(0, 6))):
            if state.is_terminal:
                break
            state = state.play(int(rng.choice(state.legal_actions())))
        if state.is_terminal:
            continue
        agent.reset()
        move = agent.search(state)
        assert agent.last_search["value"] == minimax(state, depth) == child_value(state, move, depth)


def test_random_alphabeta_and_mcts_play_it(toy_game):
    """Ten games of each searcher against ``random`` from both seats: every game ends, and a searcher scores more
    (a win 1, a draw 1/2)."""
    opponent = make("random", seed=1)
    for searcher in (make("alphabeta:depth=3"), make("mcts:simulations=100", seed=2)):
        score = 0.0
        for i in range(10):
            seat = i % 2
            final = play_game((searcher, opponent) if seat == 0 else (opponent, searcher), toy_game.initial())
            assert final.is_terminal
            score += 0.5 if final.winner is None else float(final.winner == seat)
        assert score > 5, f"{searcher} scores {score} of 10 against random"
