"""Hawalis's board as an RGB image, in the drawing style every game shares (:mod:`awale_env.drawing`), and as text
(:func:`awale_env.games.hawalis.state.board_diagram`). Both mark where the last move ended, which says more than the
pit it started from, so they need no ``last_action``."""

from __future__ import annotations

import numpy as np
from PIL import ImageDraw, ImageFont

from awale_env import drawing
from awale_env.drawing import CELL, MARGIN, SEED, STORE_WIDTH, TEXT, TEXT_HEIGHT
from awale_env.games.hawalis import kernels as core
from awale_env.games.hawalis.state import GRID, PLAYER_NAMES, ROWS, State, board_diagram, last_cell, status_line

_GAP = 10  # pixels between North's rows and South's


def render_ansi(state: State, last_action: int | None = None) -> str:
    """The board as text (:func:`awale_env.games.hawalis.state.board_diagram`)."""
    return board_diagram(state)


def render_rgb(state: State, last_action: int | None = None) -> np.ndarray:
    """The 4 x 7 board as an RGB image (H x W x 3 uint8): North's rows on top, South's (lighter holes) below, each
    pit's seeds drawn and counted with its local index, the captured seeds at the sides (North's left, South's
    right), the pit where the last move ended ringed in yellow."""
    row_height = CELL + TEXT_HEIGHT
    last = last_cell(state)

    def draw_board(draw: ImageDraw.ImageDraw, font: ImageFont.ImageFont) -> None:
        for screen_row, (row, owner, _) in enumerate(ROWS):
            top = MARGIN + screen_row * row_height + (_GAP if owner == 0 else 0)
            for col in range(7):
                player, k = GRID[row, col]
                seeds = int(state.pits[core.SIDE * player + k])
                x0, y0 = MARGIN + STORE_WIDTH + col * CELL, top + TEXT_HEIGHT
                drawing.draw_hole(draw, x0, y0, owner == 0, (row, col) == last, [SEED] * seeds)
                draw.text((x0 + 6, top + 3), f"{'SN'[player]}{k}", fill=TEXT, font=font)
                draw.text((x0 + CELL - 22, top + 3), str(seeds), fill=TEXT, font=font)

    board_height = 4 * row_height + _GAP
    return drawing.board_picture(7, board_height, draw_board, PLAYER_NAMES, state.captured, status_line(state))
