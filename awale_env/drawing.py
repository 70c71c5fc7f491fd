"""The drawing style every game's pictures share (wooden board, darker holes, seeds as dots, stores at the sides,
the last move ringed in yellow), so that the games look alike; each game lays out its own board with it."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

CELL = 72  # pixels per hole
MARGIN = 12
STORE_WIDTH = 64
TEXT_HEIGHT = 18
DOT_RADIUS = 4
DOTS_PER_ROW = 5
MAX_DOTS = 25  # seeds drawn per hole; the counts are written beside them anyway

WOOD, HOLE, OWN_HOLE, LAST = (150, 105, 60), (95, 62, 32), (120, 80, 40), (250, 215, 40)
TEXT = (255, 255, 255)
#: The colour of a seed in the games whose seeds have no colour.
SEED = (235, 222, 190)


def draw_dots(draw: ImageDraw.ImageDraw, cx: int, cy: int, colours: list[tuple[int, int, int]]) -> None:
    """One dot per colour (at most ``MAX_DOTS``) in a small grid centred on the hole."""
    colours = colours[:MAX_DOTS]
    step = 2 * DOT_RADIUS + 3
    rows = -(-len(colours) // DOTS_PER_ROW)
    for k, colour in enumerate(colours):
        x = cx + (k % DOTS_PER_ROW - (DOTS_PER_ROW - 1) / 2) * step
        y = cy + (k // DOTS_PER_ROW - (rows - 1) / 2) * step
        draw.ellipse((x - DOT_RADIUS, y - DOT_RADIUS, x + DOT_RADIUS, y + DOT_RADIUS), fill=colour)


def draw_stores(
    draw: ImageDraw.ImageDraw, width: int, board_height: int, labels: tuple[str, str], counts: tuple[int, int],
    font: ImageFont.ImageFont,
) -> None:  # fmt: skip
    """Both stores beside the board, player 1's on the left and player 0's on the right, each with its label and
    count (``labels`` and ``counts`` player 0's first)."""
    for player, x0 in ((1, MARGIN), (0, width - MARGIN - STORE_WIDTH)):
        draw.rounded_rectangle((x0 + 4, MARGIN + 4, x0 + STORE_WIDTH - 4, MARGIN + board_height - 4), 16, fill=HOLE)
        draw.text((x0 + 12, MARGIN + board_height // 2 - 12), labels[player], fill=TEXT, font=font)
        draw.text((x0 + 12, MARGIN + board_height // 2 + 4), str(counts[player]), fill=TEXT, font=font)


#: The height of a board of two rows of holes, each row's labels on its outer side.
TWO_ROWS_HEIGHT = 2 * (CELL + TEXT_HEIGHT)


def board_picture(columns: int, board_height: int, draw_board: Callable[[ImageDraw.ImageDraw, Any], None],
                  store_labels: tuple[str, str], stores: tuple[int, int], status: str) -> np.ndarray:  # fmt: skip
    """A position as an RGB image (H x W x 3 uint8) in every game's style: the board, ``columns`` holes wide and
    ``board_height`` high, drawn by ``draw_board(draw, font)`` between the two stores, ``status`` under it."""
    font = ImageFont.load_default()
    width = 2 * MARGIN + 2 * STORE_WIDTH + columns * CELL
    height = 2 * MARGIN + board_height + 2 * TEXT_HEIGHT
    image = Image.new("RGB", (width, height), WOOD)
    draw = ImageDraw.Draw(image)
    draw_board(draw, font)
    draw_stores(draw, width, board_height, store_labels, stores, font)
    draw.text((MARGIN, MARGIN + board_height + 6), status, fill=TEXT, font=font)
    return np.asarray(image, dtype=np.uint8).copy()


def two_row_cells(rows: tuple[Iterable[Any], Iterable[Any]]) -> Iterator[tuple[int, int, int, Any]]:
    """Where each hole of a two-row board goes: ``(x0, y0, label_y, item)`` for each item of the top row, then of the
    bottom row (the hole's corner, and where its labels go: above the top row, below the bottom one)."""
    for row, items in enumerate(rows):
        top = MARGIN + row * (CELL + TEXT_HEIGHT)
        for col, item in enumerate(items):
            x0, y0 = MARGIN + STORE_WIDTH + col * CELL, top + (TEXT_HEIGHT if row == 0 else 0)
            yield x0, y0, top if row == 0 else y0 + CELL, item


def draw_hole(draw: ImageDraw.ImageDraw, x0: int, y0: int, own: bool, last: bool,
              dots: list[tuple[int, int, int]]) -> None:  # fmt: skip
    """A hole whose corner is ``(x0, y0)``: lighter if ``own``, ringed in yellow if ``last``, its seeds as ``dots``."""
    box = (x0 + 4, y0 + 4, x0 + CELL - 4, y0 + CELL - 4)
    draw.ellipse(box, fill=OWN_HOLE if own else HOLE, outline=LAST if last else None, width=4)
    draw_dots(draw, x0 + CELL // 2, y0 + CELL // 2, dots)


def png_bytes(image: np.ndarray) -> bytes:
    """An RGB image (H x W x 3 uint8) as PNG bytes."""
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG")
    return buffer.getvalue()
