"""Alpha-beta: tactics in hand-made positions, exact agreement with plain minimax, budgets, ply limit."""

from __future__ import annotations

import time

import numpy as np
import pytest

from agents.alphabeta import WIN, AlphaBetaAgent
from awale_env import State


def minimax(state: State, depth: int, height: int = 0) -> int:
    """Plain negamax over the State API with the agent's scoring: exact results, else the store difference."""
    me = state.to_move
    if state.is_terminal:
        # The player to move at a finished game is the loser's opponent's opponent: score it for ``me``.
        diff = state.stores[me] - state.stores[1 - me]
        return 0 if diff == 0 else (WIN - height if diff > 0 else height - WIN)
    if depth == 0:
        return state.stores[me] - state.stores[1 - me]
    return max(-minimax(state.play(a), depth - 1, height + 1) for a in state.legal_actions())


def random_positions(count: int, seed: int, max_plies: int | None = 400) -> list[State]:
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = State.initial(max_plies=max_plies)
        for _ in range(int(rng.integers(0, 120))):
            if state.is_terminal:
                break
            legal = state.legal_actions()
            state = state.play(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal:
            positions.append(state)
    return positions


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_value_equals_plain_minimax_on_random_positions(depth):
    agent = AlphaBetaAgent(depth=depth, table_bits=12, seed=0)  # a small table: collisions must not matter
    for state in random_positions(12, seed=depth):
        agent.reset()
        move = agent.search(state)
        expected = minimax(state, depth)
        assert agent.last_search["value"] == expected, repr(state)
        assert -minimax(state.play(move), depth - 1, 1) == expected, "the move played must achieve the value"


def test_ply_limit_is_respected_like_minimax():
    # Close to the limit, the hashed "plies left" keeps positions at different distances apart.
    agent = AlphaBetaAgent(depth=4, seed=0)
    for state in random_positions(10, seed=11, max_plies=40):
        limited = State.from_position(state.red, state.blue, state.stores, state.to_move, state.ply, state.ply + 3)
        agent.reset()
        agent.search(limited)
        assert agent.last_search["value"] == minimax(limited, 4), repr(limited)


def test_finds_the_capture_that_wins_at_once():
    # Worked example 1: 14B (action 27) captures 10 and ends the game (fewer than 8 seeds left).
    red, blue = [0] * 16, [0] * 16
    red[0], red[15], blue[14], red[13], blue[13], red[12], blue[12] = 2, 2, 2, 2, 2, 2, 2
    state = State.from_position(red, blue, to_move=1)
    for depth in (1, 3, 5):
        agent = AlphaBetaAgent(depth=depth)
        assert agent.act(state) == 27
        assert agent.last_search["value"] == WIN - 1


@pytest.mark.parametrize(
    "red, blue, stores, safe",
    [
        (
            [0, 0, 1, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0],
            [1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
            (17, 32),
            4,
        ),
        (
            [0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 0, 1],
            [1, 0, 0, 0, 0, 0, 0, 0, 2, 4, 1, 0, 0, 0, 2, 0],
            (16, 31),
            1,
        ),
    ],
)
def test_avoids_the_moves_that_lose_at_once(red, blue, stores, safe):
    state = State.from_position(red, blue, stores, to_move=0, ply=58, max_plies=None)
    losing = [a for a in state.legal_actions() if a != safe]
    assert losing and all(any(c.play(b).winner == 1 for b in c.legal_actions()) for c in map(state.play, losing))
    for depth in (2, 4, 6):
        assert AlphaBetaAgent(depth=depth, seed=depth).act(state) == safe


def test_time_budget_is_kept_and_deepens():
    agent = AlphaBetaAgent(time=0.3)
    agent.act(State.initial())  # compile / load outside the timing
    start = time.perf_counter()
    agent.act(State.initial().play(0))
    elapsed = time.perf_counter() - start
    assert elapsed < 0.8  # generous: the machine running the tests may be busy
    assert agent.last_search["depth"] >= 5


def test_seed_makes_the_agent_reproducible():
    def game(seed: int) -> list[int]:
        agent = AlphaBetaAgent(depth=3, seed=seed)
        state, moves = State.initial(), []
        for _ in range(20):
            moves.append(agent.act(state))
            state = state.play(moves[-1])
        return moves

    assert game(1) == game(1)
    assert len({tuple(game(s)) for s in range(4)}) > 1  # the seed breaks ties differently


def test_bad_parameters():
    with pytest.raises(ValueError, match="depth must be at most"):
        AlphaBetaAgent(depth=500)
    with pytest.raises(ValueError, match="table_bits"):
        AlphaBetaAgent(table_bits=40)
    with pytest.raises(ValueError, match="time must be a positive float"):
        AlphaBetaAgent(time=-1)
