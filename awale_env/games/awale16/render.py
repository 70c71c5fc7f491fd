"""Pictures of a position: a coloured text board (ANSI) and an RGB image drawn with Pillow (no matplotlib).

Both use the layout of :func:`awale_env.games.awale16.state.board_diagram`: holes 1-8 on the bottom row left to
right, 16-9 above them, so sowing runs anticlockwise on screen; player 0 owns the odd holes (marked ``*``). The
drawing style is every game's (:mod:`awale_env.drawing`).
"""

from __future__ import annotations

import numpy as np
from PIL import ImageDraw, ImageFont

from awale_env import drawing
from awale_env.drawing import CELL, TEXT
from awale_env.drawing import png_bytes as image_png
from awale_env.games.awale16.notation import format_move
from awale_env.games.awale16.state import State, board_diagram
from awale_env.games.holes import BOTTOM as BOTTOM_ROW
from awale_env.games.holes import TOP as TOP_ROW

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
    last_hole = None if last_action is None else (last_action >> 1) + 1

    def draw_board(draw: ImageDraw.ImageDraw, font: ImageFont.ImageFont) -> None:
        for x0, y0, label_y, h in drawing.two_row_cells((TOP_ROW, BOTTOM_ROW)):
            red, blue = int(state.seeds[2 * h - 2]), int(state.seeds[2 * h - 1])
            drawing.draw_hole(draw, x0, y0, h % 2 == 1, h == last_hole, [_RED_SEED] * red + [_BLUE_SEED] * blue)
            draw.text((x0 + 6, label_y + 3), f"{h}{'*' if h % 2 else ''}", fill=TEXT, font=font)
            draw.text((x0 + CELL - 36, label_y + 3), f"{red}R", fill=_RED_SEED, font=font)
            draw.text((x0 + CELL - 18, label_y + 3), f"{blue}B", fill=_BLUE_SEED, font=font)

    text = status_line(state, last_action)
    return drawing.board_picture(8, drawing.TWO_ROWS_HEIGHT, draw_board, ("P0", "P1"), state.stores, text)


def png_bytes(state: State, last_action: int | None = None) -> bytes:
    """The board image as PNG bytes."""
    return image_png(render_rgb(state, last_action))
