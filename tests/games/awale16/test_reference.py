"""The engine against the naive implementation of naive_rules.py on many random positions and moves."""

from __future__ import annotations

import naive_rules
import numpy as np

from awale_env import State, format_move, parse_move


def random_position(rng: np.random.Generator) -> State | None:
    """A random live position with at most 64 seeds, or None when the draw is not a legal live position."""
    on_board = int(rng.integers(8, 65))
    weights = rng.dirichlet(np.full(32, rng.choice([0.2, 1.0, 5.0])))
    counts = rng.multinomial(on_board, weights)
    captured = 64 - on_board
    s0 = int(rng.integers(0, min(captured, 32) + 1))
    s1 = min(captured - s0, 32)
    to_move = int(rng.integers(0, 2))
    try:
        state = State.from_position(counts[0::2], counts[1::2], (s0, s1), to_move, int(rng.integers(0, 50)), 60)
    except ValueError:
        return None
    return None if state.is_terminal else state


def test_engine_matches_naive_rules_on_random_positions():
    rng = np.random.default_rng(2024)
    compared = 0
    while compared < 12_000:
        state = random_position(rng)
        if state is None:
            continue
        red, blue, stores, mover = list(state.red), list(state.blue), list(state.stores), state.to_move
        naive_legal = naive_rules.legal_moves(red, blue, mover)
        assert [parse_move(f"{h}{c}") for h, c in naive_legal] == state.legal_actions()
        action = state.legal_actions()[int(rng.integers(len(naive_legal)))]
        hole, colour = int(format_move(action)[:-1]), format_move(action)[-1]
        n_red, n_blue, n_stores, captured, over, reason = naive_rules.play(
            red, blue, stores, mover, hole, colour, state.ply, state.max_plies
        )
        after = state.play(action)
        assert list(after.red) == n_red and list(after.blue) == n_blue, (state, format_move(action))
        assert list(after.stores) == n_stores
        assert after.last_capture == captured
        assert after.is_terminal == over and after.end_reason == reason
        if not over:
            assert after.legal_actions() == [
                parse_move(f"{h}{c}") for h, c in naive_rules.legal_moves(n_red, n_blue, 1 - mover)
            ]
        compared += 1


def test_whole_random_games_match_naive_rules():
    rng = np.random.default_rng(7)
    for _ in range(200):
        state = State.initial(max_plies=int(rng.integers(20, 400)))
        red, blue, stores = list(state.red), list(state.blue), [0, 0]
        while not state.is_terminal:
            action = int(rng.choice(state.legal_actions()))
            move = format_move(action)
            red, blue, stores, _, over, reason = naive_rules.play(
                red, blue, stores, state.to_move, int(move[:-1]), move[-1], state.ply, state.max_plies
            )
            state = state.play(action)
            assert (list(state.red), list(state.blue), list(state.stores)) == (red, blue, stores)
            assert state.is_terminal == over and state.end_reason == reason
