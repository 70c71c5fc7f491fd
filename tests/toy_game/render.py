"""Pictures of a toy position: text, and an RGB image whose pits are shaded by their seeds (no drawing library)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .kernels import ROW, TOTAL_SEEDS
from .notation import LETTERS

CELL = 24  # pixels per pit
LAST = (200, 60, 60)  # the frame of the pit last played


def render_ansi(state: Any, last_action: int | None = None) -> str:
    """Player 1's row above player 0's (sowing runs anticlockwise), the stores and who is to move; the pit of
    ``last_action`` (the player who just moved) in brackets."""
    last = None if last_action is None else ROW * (1 - state.to_move) + last_action
    cells = [f"[{n}]" if pit == last else f" {n} " for pit, n in enumerate(state.board)]
    top = "".join(reversed(cells[ROW:]))
    bottom = "".join(cells[:ROW])
    end = f"over ({state.end_reason})" if state.is_terminal else f"player {state.to_move} to move"
    return f"{top}\n{bottom}\nstores {state.stores[0]} - {state.stores[1]}, ply {state.ply}, {end} ({LETTERS})"


def render_rgb(state: Any, last_action: int | None = None) -> np.ndarray:
    """A 2 x 3 grid of pits, darker for more seeds, player 1's row on top; the last played pit framed in red."""
    image = np.full((2 * CELL, ROW * CELL, 3), 240, dtype=np.uint8)
    last = None if last_action is None else ROW * (1 - state.to_move) + last_action
    for pit, seeds in enumerate(state.board):
        row, column = (1, pit) if pit < ROW else (0, 2 * ROW - 1 - pit)
        cell = image[row * CELL : (row + 1) * CELL, column * CELL : (column + 1) * CELL]
        cell[2:-2, 2:-2] = 220 - 180 * seeds // TOTAL_SEEDS
        if pit == last:
            cell[:2], cell[-2:], cell[:, :2], cell[:, -2:] = LAST, LAST, LAST, LAST
    return image
