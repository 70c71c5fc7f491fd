"""Hawalis's board as an RGB image, in the drawing style every game shares (:mod:`awale_env.drawing`), and as text
(:func:`awale_env.games.hawalis.state.board_diagram`). Both mark where the last move ended, which says more than the
pit it started from, so they need no ``last_action``."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from awale_env import drawing
from awale_env.drawing import CELL, HOLE, LAST, MARGIN, OWN_HOLE, SEED, STORE_WIDTH, TEXT, TEXT_HEIGHT, WOOD
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
    font = ImageFont.load_default()
    row_height = CELL + TEXT_HEIGHT
    board_height = 4 * row_height + _GAP
    width = 2 * MARGIN + 2 * STORE_WIDTH + 7 * CELL
    height = 2 * MARGIN + board_height + 2 * TEXT_HEIGHT
    image = Image.new("RGB", (width, height), WOOD)
    draw = ImageDraw.Draw(image)
    last = last_cell(state)
    left = MARGIN + STORE_WIDTH
    for screen_row, (row, owner, _) in enumerate(ROWS):
        top = MARGIN + screen_row * row_height + (_GAP if owner == 0 else 0)
        for col in range(7):
            player, k = GRID[row, col]
            seeds = int(state.pits[core.SIDE * player + k])
            x0, y0 = left + col * CELL, top + TEXT_HEIGHT
            outline = LAST if (row, col) == last else None
            box = (x0 + 4, y0 + 4, x0 + CELL - 4, y0 + CELL - 4)
            draw.ellipse(box, fill=OWN_HOLE if owner == 0 else HOLE, outline=outline, width=4)
            drawing.draw_dots(draw, x0 + CELL // 2, y0 + CELL // 2, [SEED] * seeds)
            draw.text((x0 + 6, top + 3), f"{'SN'[player]}{k}", fill=TEXT, font=font)
            draw.text((x0 + CELL - 22, top + 3), str(seeds), fill=TEXT, font=font)
    drawing.draw_stores(draw, width, board_height, PLAYER_NAMES, state.captured, font)
    draw.text((MARGIN, MARGIN + board_height + 6), status_line(state), fill=TEXT, font=font)
    return np.asarray(image, dtype=np.uint8).copy()
