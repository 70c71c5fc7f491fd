"""Kalah's board as an RGB image, in the drawing style every game shares (:mod:`awale_env.drawing`), and as text
(:func:`awale_env.games.kalah.state.board_diagram`)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from awale_env.drawing import (
    CELL,
    HOLE,
    MARGIN,
    OWN_HOLE,
    SEED,
    STORE_WIDTH,
    TEXT,
    TEXT_HEIGHT,
    WOOD,
    draw_dots,
    draw_stores,
)  # fmt: skip
from awale_env.games.kalah import kernels as core
from awale_env.games.kalah.state import State, board_diagram, status_line


def render_ansi(state: State, last_action: int | None = None) -> str:
    """The board as text (:func:`awale_env.games.kalah.state.board_diagram`)."""
    return board_diagram(state, last_action)


def render_rgb(state: State, last_action: int | None = None) -> np.ndarray:
    """The 2 x 6 board as an RGB image (H x W x 3 uint8): player 1's row (pits 11..6) on top, player 0's (lighter
    holes, 0..5) below, each pit's seeds drawn and counted, the stores at the sides (player 1's left, player 0's
    right; sowing runs anticlockwise through them). ``last_action`` is named under the board: who played it cannot
    be told from the position (a move can give another turn)."""
    font = ImageFont.load_default()
    row_height = CELL + TEXT_HEIGHT
    board_height = 2 * row_height
    width = 2 * MARGIN + 2 * STORE_WIDTH + core.ROW * CELL
    height = 2 * MARGIN + board_height + 2 * TEXT_HEIGHT
    image = Image.new("RGB", (width, height), WOOD)
    draw = ImageDraw.Draw(image)
    left = MARGIN + STORE_WIDTH
    board = state.board
    for screen_row, pits in enumerate((range(11, 5, -1), range(core.ROW))):
        top = MARGIN + screen_row * row_height
        for col, pit in enumerate(pits):
            x0, y0 = left + col * CELL, top + (TEXT_HEIGHT if screen_row == 0 else 0)
            box = (x0 + 4, y0 + 4, x0 + CELL - 4, y0 + CELL - 4)
            draw.ellipse(box, fill=OWN_HOLE if pit < core.ROW else HOLE)
            draw_dots(draw, x0 + CELL // 2, y0 + CELL // 2, [SEED] * board[pit])
            label_y = top if screen_row == 0 else y0 + CELL
            draw.text((x0 + 6, label_y + 3), str(pit), fill=TEXT, font=font)
            draw.text((x0 + CELL - 22, label_y + 3), str(board[pit]), fill=TEXT, font=font)
    draw_stores(draw, width, board_height, ("P0", "P1"), state.stores, font)
    last = "" if last_action is None else f" | last move {last_action}"
    draw.text((MARGIN, MARGIN + board_height + 6), status_line(state) + last, fill=TEXT, font=font)
    return np.asarray(image, dtype=np.uint8).copy()
