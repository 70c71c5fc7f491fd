"""MCTS: the only winning move, determinism under a seed, tree reuse, budgets, the pure Python fallback."""

from __future__ import annotations

import pytest
from stepping_clock import use_stepping_clock

import agents.mcts as mcts_module
from agents.mcts import BATCH_SECONDS, MCTSAgent
from awale_env import State

# Positions where exactly one move wins at once and every other move lets the opponent win at once.
ONLY_WIN = [
    (
        [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0],
        [0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0],
        (28, 28),
        1,
        22,
    ),
    (
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0],
        [0, 0, 1, 2, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1],
        (26, 28),
        0,
        5,
    ),
]


@pytest.mark.parametrize("red, blue, stores, to_move, win", ONLY_WIN)
def test_picks_the_only_winning_move(red, blue, stores, to_move, win):
    state = State.from_position(red, blue, stores, to_move, ply=60, max_plies=None)
    assert state.play(win).winner == to_move
    for other in state.legal_actions():
        if other != win:
            after = state.play(other)
            assert any(after.play(b).winner == 1 - to_move for b in after.legal_actions())
    for seed in range(3):
        assert MCTSAgent(simulations=300, seed=seed).act(state) == win


def _game(agent: MCTSAgent, plies: int = 12) -> tuple[list[int], list[dict]]:
    state, moves, visits = State.initial(), [], []
    for _ in range(plies):
        moves.append(agent.act(state))
        visits.append(agent.action_visits())
        state = state.play(moves[-1])
    return moves, visits


def test_deterministic_under_a_seed_and_reset():
    agent = MCTSAgent(simulations=200, seed=7)
    first = _game(agent)
    assert _game(MCTSAgent(simulations=200, seed=7)) == first
    agent.reset(7)
    assert _game(agent) == first
    assert _game(MCTSAgent(simulations=200, seed=8)) != first


def test_tree_is_reused_after_the_opponent_replies():
    agent = MCTSAgent(simulations=2000, seed=1)
    state = State.initial()
    move = agent.act(state)
    assert not agent.last_search["reused"]
    reply = state.play(move)
    reply = reply.play(reply.legal_actions()[0])
    agent.act(reply)
    assert agent.last_search["reused"]
    assert sum(agent.action_visits().values()) > 2000  # the visits the grandchild already had are kept
    # A position that is not a grandchild of the last root starts a fresh tree.
    agent.act(State.initial().play(4).play(2))
    assert not agent.last_search["reused"]
    assert sum(agent.action_visits().values()) == 2000  # every simulation goes through a root child


def test_time_budget(monkeypatch):
    # On a clock that moves a batch's length at each reading (the same at any load: each batch then gets the same
    # simulations), the search stops within a batch of its budget by the clock it reads, batch after batch.
    agent = MCTSAgent(time=0.2, seed=0)
    agent.act(State.initial())
    use_stepping_clock(monkeypatch, BATCH_SECONDS, (mcts_module, "time"))
    agent.act(State.initial().play(0).play(2))
    # Beyond the budget: a batch begun just before it (two readings) and the readings that end the search.
    assert 0.2 <= agent.last_search["seconds"] <= 0.2 + 4 * BATCH_SECONDS + 1e-9
    assert agent.last_search["simulations"] >= 3 * 16  # batches of 16 simulations or more, one per 3 readings


def test_bad_parameters():
    with pytest.raises(ValueError, match="c must be a positive float"):
        MCTSAgent(c=0)
    with pytest.raises(ValueError, match="simulations must be a positive int"):
        MCTSAgent(simulations=1.5)
