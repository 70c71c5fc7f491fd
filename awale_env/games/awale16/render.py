"""Pictures of a position: a coloured text board (ANSI) and an RGB image drawn with Pillow (no matplotlib).

Both use the layout of :func:`awale_env.games.awale16.state.board_diagram`: holes 1-8 on the bottom row left to
right, 16-9 above them, so sowing runs anticlockwise on screen; player 0 owns the odd holes (marked ``*``). The
drawing style is every game's (:mod:`awale_env.drawing`).
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from awale_env import drawing
from awale_env.drawing import CELL, HOLE, LAST, MARGIN, OWN_HOLE, STORE_WIDTH, TEXT, TEXT_HEIGHT, WOOD
from awale_env.drawing import png_bytes as image_png
from awale_env.games.awale16.notation import format_move
from awale_env.games.awale16.state import State, board_diagram

TOP_ROW = range(16, 8, -1)
BOTTOM_ROW = range(1, 9)

_RED, _BLUE, _BOLD, _RESET = "\x1b[31m", "\x1b[34m", "\x1b[1m", "\x1b[0m"


def status_line(state: State, last_action: int | None = None) -> str:
    """Stores, ply and whose turn it is or the result (the last line of :func:`board_diagram`), and the last move."""
    line = board_diagram(state).splitlines()[-1]
    return line if last_action is None else f"{line} | last move {format_move(last_action)}"


def render_ansi(state: State, last_action: int | None = None) -> str:
    """The board as text with ANSI colours: red and blue counts per hole, the last move's hole in brackets."""
    last_hole = None if last_action is None else (last_action >> 1) + 1

    def row(holes: range) -> tuple[str, str]:
        labels, cells = [], []
        for h in holes:
            red, blue = int(state.seeds[2 * h - 2]), int(state.seeds[2 * h - 1])
            label = f"{h}{'*' if h % 2 else ' '}"
            cell = f"{_RED}{red:>2}{_RESET} {_BLUE}{blue:<2}{_RESET}"
            labels.append(f"{label:>6} ")
            cells.append(f"[{cell}]" if h == last_hole else f" {cell} ")
        return "".join(labels), "".join(cells)

    top_labels, top_cells = row(TOP_ROW)
    bottom_labels, bottom_cells = row(BOTTOM_ROW)
    legend = f"each hole: {_RED}red{_RESET} {_BLUE}blue{_RESET}"
    return "\n".join(
        [
            top_labels,
            top_cells,
            bottom_cells,
            bottom_labels,
            f"{_BOLD}{status_line(state, last_action)}{_RESET}",
            legend,
        ]
    )


# --- the image -----------------------------------------------------------------------------------------------------

_RED_SEED, _BLUE_SEED = (215, 40, 40), (40, 90, 220)


def render_rgb(state: State, last_action: int | None = None) -> np.ndarray:
    """The board as an RGB image (H x W x 3 uint8): holes with their red and blue seeds drawn and counted, the
    stores at the sides (player 1's on the left, player 0's on the right), the last move's hole ringed in yellow."""
    font = ImageFont.load_default()
    width = 2 * MARGIN + 2 * STORE_WIDTH + 8 * CELL
    board_height = 2 * (CELL + TEXT_HEIGHT)
    height = 2 * MARGIN + board_height + 2 * TEXT_HEIGHT
    image = Image.new("RGB", (width, height), WOOD)
    draw = ImageDraw.Draw(image)
    last_hole = None if last_action is None else (last_action >> 1) + 1
    left = MARGIN + STORE_WIDTH
    for row, holes in enumerate((TOP_ROW, BOTTOM_ROW)):
        top = MARGIN + row * (CELL + TEXT_HEIGHT)
        for col, h in enumerate(holes):
            x0, y0 = left + col * CELL, top + (TEXT_HEIGHT if row == 0 else 0)
            box = (x0 + 4, y0 + 4, x0 + CELL - 4, y0 + CELL - 4)
            draw.ellipse(box, fill=OWN_HOLE if h % 2 else HOLE, outline=LAST if h == last_hole else None, width=4)
            red, blue = int(state.seeds[2 * h - 2]), int(state.seeds[2 * h - 1])
            drawing.draw_dots(draw, x0 + CELL // 2, y0 + CELL // 2, [_RED_SEED] * red + [_BLUE_SEED] * blue)
            label_y = top if row == 0 else y0 + CELL
            draw.text((x0 + 6, label_y + 3), f"{h}{'*' if h % 2 else ''}", fill=TEXT, font=font)
            draw.text((x0 + CELL - 36, label_y + 3), f"{red}R", fill=_RED_SEED, font=font)
            draw.text((x0 + CELL - 18, label_y + 3), f"{blue}B", fill=_BLUE_SEED, font=font)
    drawing.draw_stores(draw, width, board_height, ("P0", "P1"), state.stores, font)
    text = status_line(state, last_action)
    draw.text((MARGIN, MARGIN + board_height + 6), text, fill=TEXT, font=font)
    return np.asarray(image, dtype=np.uint8).copy()


def png_bytes(state: State, last_action: int | None = None) -> bytes:
    """The board image as PNG bytes."""
    return image_png(render_rgb(state, last_action))
