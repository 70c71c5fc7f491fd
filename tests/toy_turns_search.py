"""The compiled searches on the toy game with another turn (tests/toy_turns/): alpha-beta's values equal a plain
minimax that follows the mover, and MCTS and AlphaZero's search find the winning move of small endgames a solver
proves; the vector env's compiled stepper follows the mover too. Not collected by the suite itself:
tests/test_toy_searches.py runs this file in a fresh process with a numba cache of its own (as tests/toy_game_search.py,
why: its docstring)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from conftest import SHARED_KERNEL_CHECKS
from reference_minimax import child_value, minimax

from agents import make
from agents.alphabeta import AlphaBetaAgent
from agents.alphazero.mcts import BatchedSearch, SearchConfig, uniform
from awale_env.testing import check_game


def test_the_vector_env_follows_the_mover(toy_turns):
    """The compiled stepper against the State replay, extra turns included (the contract's vector env check)."""
    check_game(toy_turns, checks=list(SHARED_KERNEL_CHECKS), games=8)


@functools.cache
def solve(state) -> int:
    """The game's exact outcome for the player to move: 1 win, 0 draw, -1 loss."""
    if state.is_terminal:
        return 0 if state.winner is None else (1 if state.winner == state.to_move else -1)
    return max(outcome(state, action) for action in state.legal_actions())


def outcome(state, action: int) -> int:
    """The exact outcome of ``action`` for the player who plays it."""
    child = state.play(action)
    return solve(child) if child.to_move == state.to_move else -solve(child)


def random_positions(rng, count: int, plies: int):
    from toy_turns import State

    found = []
    while len(found) < count:
        state = State.initial()
        for _ in range(int(rng.integers(0, plies))):
            if state.is_terminal:
                break
            state = state.play(int(rng.choice(state.legal_actions())))
        if not state.is_terminal:
            found.append(state)
    return found


def endgames(count: int):
    """Positions of 3-5 seeds left where the mover wins with some moves and not with others."""
    from toy_turns import State

    rng = np.random.default_rng(7)
    found = []
    while len(found) < count:
        left = int(rng.integers(3, 6))
        board = np.bincount(rng.integers(0, 6, size=left), minlength=6)
        mine = int(rng.integers(0, 12 - left + 1))
        mover = int(rng.integers(0, 2))
        state = State.from_position(board.tolist(), (mine, 12 - left - mine), mover, 0, 40)
        if state.is_terminal or solve(state) != 1:
            continue
        if min(outcome(state, a) for a in state.legal_actions()) < 1:
            found.append(state)
    return found


def extra_turns(state, depth: int) -> int:
    """The moves giving another turn in the tree of ``depth`` plies from ``state``."""
    if state.is_terminal or depth == 0:
        return 0
    children = [state.play(a) for a in state.legal_actions()]
    return sum((child.to_move == state.to_move) + extra_turns(child, depth - 1) for child in children)


def test_extra_turns_happen_inside_the_searched_trees(toy_turns):
    """The trees searched below do hold moves giving another turn (else the tests could not fail)."""
    assert sum(extra_turns(state, 5) for state in random_positions(np.random.default_rng(5), 8, 10)) >= 8
    assert sum(extra_turns(state, 4) > 0 for state in endgames(10)) >= 5


@pytest.mark.parametrize("depth", [1, 3, 5, 7])
def test_alphabeta_searches_it_exactly(toy_turns, depth):
    agent = AlphaBetaAgent(depth=depth, table_bits=10, seed=0)
    for state in random_positions(np.random.default_rng(depth), 8, 10):
        agent.reset()
        move = agent.search(state)
        assert agent.last_search["value"] == minimax(state, depth) == child_value(state, move, depth)


def test_alphabeta_solves_the_endgames(toy_turns):
    agent = AlphaBetaAgent(depth=40, table_bits=12, seed=0)
    for state in endgames(10):
        agent.reset()
        move = agent.search(state)
        assert agent.last_search["value"] > 0 and outcome(state, move) == 1, state


def test_mcts_finds_the_winning_move_of_the_endgames(toy_turns):
    agent = make("mcts:simulations=3000", seed=3)
    for state in endgames(10):
        agent.reset()
        assert outcome(state, agent.act(state)) == 1, state


def test_alphazero_search_finds_the_winning_move_of_the_endgames(toy_turns):
    search = BatchedSearch(1, SearchConfig(simulations=1500), game="toy_turns")
    for state in endgames(10):
        counts, values = search.run_states([state], uniform("toy_turns"))
        assert outcome(state, int(np.argmax(counts[0]))) == 1 and values[0] > 0, state
