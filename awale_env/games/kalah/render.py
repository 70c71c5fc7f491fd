"""Kalah's board as an RGB image, in the drawing style every game shares (:mod:`awale_env.drawing`), and as text
(:func:`awale_env.games.kalah.state.board_diagram`)."""

from __future__ import annotations

import numpy as np

from awale_env.games import two_rows
from awale_env.games.kalah.state import State, board_diagram, status_line


def render_ansi(state: State, last_action: int | None = None) -> str:
    """The board as text (:func:`awale_env.games.kalah.state.board_diagram`)."""
    return board_diagram(state, last_action)


def render_rgb(state: State, last_action: int | None = None) -> np.ndarray:
    """The 2 x 6 board as an RGB image (H x W x 3 uint8): player 1's row (pits 11..6) on top, player 0's (lighter
    holes, 0..5) below, each pit's seeds drawn and counted, the stores at the sides (player 1's left, player 0's
    right; sowing runs anticlockwise through them). ``last_action`` is named under the board: who played it cannot
    be told from the position (a move can give another turn)."""
    return two_rows.render_rgb(state, None, status_line(state, last_action))
