"""The compiled searches on Kalah, whose moves can give another turn: alpha-beta's exhaustive search of small endgames
agrees with a brute-force minimax (tests/reference_minimax.py), and MCTS finds their winning moves. Alpha-beta's endgame
table has its own tests (test_kalah_endgame.py); here it is off where the search itself is checked."""

from __future__ import annotations

import numpy as np
from reference_minimax import child_value, decided, minimax

from agents import make
from agents.alphabeta import AlphaBetaAgent
from agents.evaluation import TUNED_TABLES, TUNED_WEIGHTS, cells_of, features_of
from awale_env.games.kalah import State
from awale_env.games.kalah import kernels as core
from awale_env.games.kalah.search import LEAD_CAP, LEFT_BUCKETS, LEFT_STEP, PIT_CAP, PIT_CELLS, TABLE_SIZE

DEPTH = 40  # beyond the end of every game below


def endgames(count: int, seeds: int, seed: int, close: bool = False) -> list[State]:
    """Live positions with 2..``seeds`` seeds in the pits (the rest of the 48 in the stores), with a choice;
    ``close``: stores so near each other that the pits decide the game."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        board = np.bincount(rng.integers(0, 12, size=int(rng.integers(2, seeds + 1))), minlength=12)
        left = int(board.sum())
        low, high = (24 - left, 25) if close else (0, 48 - left + 1)  # close: both stores 24 - left .. 24
        mine = int(rng.integers(low, high))
        state = State.from_position(board.tolist(), (mine, 48 - board.sum() - mine), int(rng.integers(2)))
        if not state.is_terminal and len(state.legal_actions()) > 1:
            found.append(state)
    return found


def extra_turns(state: State, depth: int) -> int:
    """The moves giving another turn in the tree of ``depth`` plies from ``state``."""
    if state.is_terminal or depth == 0:
        return 0
    children = [state.play(a) for a in state.legal_actions()]
    return sum((child.to_move == state.to_move) + extra_turns(child, depth - 1) for child in children)


def test_alphabeta_solves_endgames_as_brute_force_minimax_does():
    positions = endgames(40, 7, seed=1)
    assert sum(extra_turns(state, 4) > 0 for state in positions) >= 20  # the trees hold extra turns to get right
    agent = AlphaBetaAgent(depth=DEPTH, table_bits=14, seed=0, endgame=False)  # the search alone
    for state in positions:
        agent.reset()
        move = agent.search(state)
        assert (
            agent.last_search["value"]
            == minimax(state, DEPTH, endgame=False)
            == child_value(state, move, DEPTH, endgame=False)
        ), state


def test_alphabeta_at_a_few_plies_equals_minimax_at_as_many():
    agent = AlphaBetaAgent(depth=4, table_bits=14, seed=0, eval="score", reduce=False)  # the plain search
    rng = np.random.default_rng(4)
    for _ in range(12):
        state = State.initial()
        for _ in range(int(rng.integers(0, 20))):
            if state.is_terminal:
                break
            state = state.play(int(rng.choice(state.legal_actions())))
        if state.is_terminal:
            continue
        agent.reset()
        agent.search(state)
        assert agent.last_search["value"] == minimax(state, 4), state


def test_a_store_past_half_the_seeds_decides_the_search_without_changing_any_outcome():
    """A position where a store holds more than half the seeds is won whatever is played: below a root that is still
    open alpha-beta scores it at once as a win (as the reference minimax does), which changes no outcome the rules'
    end gives, only how soon it is proven. A root that is decided already is searched to the rules' end as before."""
    full, few = np.zeros(12, dtype=np.int8), np.array([1] * 6 + [0] * 6, dtype=np.int8)
    stores = [(25, 0), (24, 24), (3, 25), (23, 0)]
    assert [core.decided(full, np.array(s, dtype=np.int16)) for s in stores] == [0, -1, 1, 0]
    assert [core.decided(few, np.array(s, dtype=np.int16)) for s in ((10, 8), (12, 5), (5, 12))] == [-1, 0, 1]
    agent = AlphaBetaAgent(depth=DEPTH, table_bits=14, seed=0, endgame=False)  # the search alone
    shortened = 0
    for state in endgames(24, 8, seed=3, close=True):
        assert decided(state) == -1
        agent.reset()
        move = agent.search(state)
        value, to_the_end = agent.last_search["value"], minimax(state, DEPTH, 0, False, False)
        assert value == minimax(state, DEPTH, endgame=False) == child_value(state, move, DEPTH, endgame=False), state
        assert np.sign(value) == np.sign(to_the_end) == np.sign(child_value(state, move, DEPTH, 0, False, False)), state
        shortened += value != to_the_end
    assert shortened >= 6, shortened  # many of these outcomes are proven before the end
    for state in endgames(20, 6, seed=4):
        if decided(state) >= 0:
            agent.reset()
            agent.search(state)
            assert agent.last_search["value"] == minimax(state, DEPTH, 0, False, False), state


def test_mcts_plays_the_winning_move_of_endgames():
    agent = make("mcts:simulations=4000", seed=5)
    checked = 0
    for state in endgames(60, 6, seed=2, close=True):
        best = minimax(state, DEPTH)
        values = [child_value(state, a, DEPTH) for a in state.legal_actions()]
        if best > 0 and min(values) <= 0 and checked < 12:  # a win to find among moves that do not win
            agent.reset()
            action = agent.act(state)
            assert values[state.legal_actions().index(action)] > 0, state
            checked += 1
    assert checked >= 8


def test_the_evaluation_features_read_kalah_s_captures_and_extra_turns_as_the_rules_play_them():
    """``features``' vulnerable slots are the most seeds one move of the other side captures (the rules' sowing
    played on a copy, the seed it drops in the store left out; moves of a lap or more are left out), its mobility
    slots the legal moves as in every game, its extra-turn slots the moves that give another turn, under both
    capture rules."""
    rng = np.random.default_rng(7)
    checked = 0
    for i in range(800):
        board = (rng.integers(0, 15, size=12) * (rng.random(12) > 0.6)).astype(np.int8)  # sowings round to a capture
        if board.sum() > 48:
            continue
        code = 4 | (core.CAPTURE_EMPTY_OPPOSITE_BIT if i % 2 else 0)
        state = State.from_position(board.tolist(), (0, 0), int(rng.integers(2)), capture_empty_opposite=bool(i % 2))
        if state.is_terminal:
            continue
        seen = {}
        for player in (0, 1):
            captures, again, legal = [0], 0, 0
            for action in range(6):
                seeds = int(board[6 * player + action])
                if seeds == 0:
                    continue
                legal += 1
                again += core.next_player(board, player, action) == player
                after, stores = board.copy(), np.zeros(2, dtype=np.int16)
                core.sow(after, stores, player, action, code)
                if seeds < 13:
                    captures.append(int(stores[player]) - (action + seeds >= 6))
            seen[player] = max(captures), again, legal
        features, me = features_of(state), state.to_move
        own, other = int(board[6 * me : 6 * me + 6].sum()), int(board[6 - 6 * me : 12 - 6 * me].sum())
        assert list(features[:3]) == [0, own, other]
        assert (features[3], features[4]) == (seen[1 - me][0], seen[me][0]), state
        assert features[5] == seen[me][2] == len(state.legal_actions()) and features[6] == seen[1 - me][2], state
        assert (features[7], features[8]) == (own <= 2, other <= 2)
        assert (features[9], features[10]) == (seen[me][1], seen[1 - me][1]), state
        checked += seen[0][0] > 0 and seen[1][1] > 0
    assert checked >= 25  # positions with captures and extra turns on offer


def test_the_table_cells_name_each_pit_by_its_seeds_and_the_lead_by_the_seeds_left():
    """Kalah's cells (alpha-beta's tuned table): the mover's pits then the other's, in sowing order, each by its seeds
    up to ``PIT_CAP``; then the store difference (capped) by the seeds left in the pits (by sixes, capped)."""
    board = [0, 1, 2, 10, 11, 0, 3, 0, 0, 0, 0, 0]  # 27 seeds left, the pit of 11 seeds capped
    for player, stores, lead in ((0, (21, 0), 12), (1, (21, 0), -12), (0, (12, 9), 3), (1, (12, 9), -3)):
        cells = cells_of(State.from_position(board, stores, player))
        own, other = (board[:6], board[6:]) if player == 0 else (board[6:], board[:6])
        pits = [(i * (PIT_CAP + 1) + min(seeds, PIT_CAP)) for i, seeds in enumerate(own + other)]
        bucket = min(27 // LEFT_STEP, LEFT_BUCKETS - 1)
        assert cells.tolist() == pits + [PIT_CELLS + (lead + LEAD_CAP) * LEFT_BUCKETS + bucket]
    assert cells_of(State.from_position([4] * 12, (0, 0), 0))[-1] == PIT_CELLS + LEAD_CAP * LEFT_BUCKETS + 7
    assert cells_of(State.from_position([1] * 5 + [0] * 7, (30, 13), 1))[-1] == PIT_CELLS + 0 * LEFT_BUCKETS + 0


def test_the_tuned_evaluation_adds_the_table_values_of_the_leaves_cells():
    """A depth-1 search scores each child by the tuned weights of its features plus the tuned table's values of its
    cells, rounded once, from the child's mover (the same player after an extra turn)."""
    weights, table = np.array(TUNED_WEIGHTS["kalah"]), np.array(TUNED_TABLES["kalah"])
    assert len(table) == TABLE_SIZE
    agent = AlphaBetaAgent(depth=1, seed=0, endgame=False)
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 30:
        state = State.initial() if rng.random() < 0.1 else State.from_position(
            np.bincount(rng.integers(0, 12, size=36), minlength=12).tolist(), (6, 6), int(rng.integers(2)))  # fmt: skip
        if state.is_terminal:
            continue
        agent.reset()
        agent.search(state)
        values = []
        for action in state.legal_actions():
            child = state.play(action)
            if child.is_terminal or decided(child) >= 0:
                values.append(child_value(state, action, 1))
                continue
            value = int(np.floor(weights @ features_of(child) + table[cells_of(child)].sum() + 0.5))
            values.append(value if child.to_move == state.to_move else -value)
        assert agent.last_search["value"] == max(values), state
        checked += 1
