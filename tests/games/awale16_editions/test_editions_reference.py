"""Each edition's engine against the naive implementation of naive_editions.py, on thousands of random positions
and on whole random games."""

from __future__ import annotations

from typing import Any

import naive_editions
import numpy as np
import pytest

from awale_env.games import get_game

EDITIONS = tuple(naive_editions.EDITIONS)
LETTER = {"red": "R", "blue": "B", "transparent": "T"}


def naive_board(state: Any) -> dict[str, list[int]]:
    return {LETTER[colour]: list(getattr(state, colour)) for colour in state.colours}


def random_options(name: str, rng: np.random.Generator) -> dict[str, Any]:
    return {"end_at_both_40": bool(rng.integers(2))} if name == "awale16_2025" else {}


def random_position(name: str, rng: np.random.Generator) -> Any:
    """A random live position of edition ``name`` (seeds spread unevenly, stores up to the winning score, a ply
    sometimes close to the 400-move limit), or None when the draw is not a live position."""
    game, edition = get_game(name), naive_editions.EDITIONS[name]
    colours = len(edition.colours)
    on_board = int(rng.integers(4, game.total_seeds + 1))
    weights = rng.dirichlet(np.full(16 * colours, rng.choice([0.2, 1.0, 5.0])))
    counts = rng.multinomial(on_board, weights).reshape(16, colours)
    captured = game.total_seeds - on_board
    s0 = int(rng.integers(0, min(captured, edition.win - 1) + 1))
    s1 = min(captured - s0, edition.win - 1)
    ply = int(rng.integers(390, 400)) if rng.random() < 0.2 else int(rng.integers(0, 60))
    max_plies = None if rng.random() < 0.5 else ply + int(rng.integers(1, 30))
    try:
        state = game.state_type.from_position(
            *counts.T.tolist(), (s0, s1), int(rng.integers(2)), ply, max_plies, **random_options(name, rng)
        )
    except ValueError:
        return None
    return None if state.is_terminal else state


def naive_play(name: str, state: Any, move: str) -> tuple:
    edition = naive_editions.EDITIONS[name]
    flags = state.rule_settings()
    return naive_editions.play(edition, naive_board(state), state.stores, state.to_move, move, state.ply,
                               state.max_plies, **flags)  # fmt: skip


def check_move(name: str, state: Any, action: int) -> Any:
    """Play ``action`` in the engine and in the naive rules; assert they agree; return the engine's State."""
    game, edition = get_game(name), naive_editions.EDITIONS[name]
    move = game.format_move(action)
    board, stores, captured, reason = naive_play(name, state, move)
    after = state.play(action)
    assert naive_board(after) == board, (state, move)
    assert list(after.stores) == stores and after.last_capture == captured, (state, move)
    assert after.end_reason == reason, (state, move)
    if reason is None:
        legal = naive_editions.legal_moves(edition, board, after.to_move)
        assert [game.format_move(a) for a in after.legal_actions()] == legal, (after, move)
    return after


@pytest.mark.parametrize("name", EDITIONS)
def test_engine_matches_naive_rules_on_random_positions(name):
    rng = np.random.default_rng(2026)
    game, edition = get_game(name), naive_editions.EDITIONS[name]
    compared, ended = 0, set()
    while compared < 2500:
        state = random_position(name, rng)
        if state is None:
            continue
        legal = [game.format_move(a) for a in state.legal_actions()]
        assert legal == naive_editions.legal_moves(edition, naive_board(state), state.to_move), state
        after = check_move(name, state, state.legal_actions()[int(rng.integers(len(legal)))])
        ended.add(after.end_reason)
        compared += 1
    assert set(game.end_reasons) - {"both_40", "draw"} <= ended  # the random positions reach the usual ends


@pytest.mark.parametrize("name", EDITIONS)
def test_whole_random_games_match_naive_rules(name):
    rng = np.random.default_rng(11)
    game = get_game(name)
    for _ in range(60):
        state = game.initial(**random_options(name, rng))
        while not state.is_terminal:
            state = check_move(name, state, int(rng.choice(state.legal_actions())))
