"""Pictures of an edition's position, with two or three seed colours (red, blue and transparent): a coloured text
board (ANSI) and an RGB image drawn with Pillow in every game's style (:mod:`awale_env.drawing`).

Both use the layout of :func:`awale_env.games.editions.state.board_diagram`: holes 1-8 on the bottom row left to
right, 16-9 above them, so sowing runs anticlockwise on screen; player 0 owns the odd holes (marked ``*``).
"""

from __future__ import annotations

import numpy as np
from PIL import ImageDraw, ImageFont

from awale_env import drawing
from awale_env.drawing import CELL, TEXT
from awale_env.games.holes import BOTTOM as BOTTOM_ROW
from awale_env.games.holes import LETTERS, EditionState, status_line
from awale_env.games.holes import TOP as TOP_ROW

#: Each colour's ANSI escape (transparent seeds in the terminal's own text colour, readable on light and dark
#: backgrounds) and its seeds' colour in the image (pale glass, readable on wood).
ANSI = {"red": "\x1b[31m", "blue": "\x1b[34m", "transparent": "\x1b[39m"}
RGB = {"red": (215, 40, 40), "blue": (40, 90, 220), "transparent": (225, 240, 245)}
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"


def _marked_hole(state: EditionState, last_action: int | None) -> int | None:
    return None if last_action is None else last_action // state.actions_per_hole + 1


def render_ansi(state: EditionState, last_action: int | None = None) -> str:
    """The board as text with ANSI colours: each colour's count per hole, the last move's hole in brackets."""
    marked = _marked_hole(state, last_action)
    counts = {colour: state.counts_of(colour) for colour in state.colours}
    width = 3 * len(state.colours)  # a cell: each count in 2 characters, a space between and one either side

    def row(holes: range) -> tuple[str, str]:
        labels, cells = [], []
        for h in holes:
            cell = " ".join(f"{ANSI[colour]}{counts[colour][h - 1]:>2}{_RESET}" for colour in state.colours)
            labels.append(f"{h}{'*' if h % 2 else ' '}".rjust(width) + " ")
            cells.append(f"[{cell}]" if h == marked else f" {cell} ")
        return "".join(labels), "".join(cells)

    top_labels, top_cells = row(TOP_ROW)
    bottom_labels, bottom_cells = row(BOTTOM_ROW)
    legend = "each hole: " + " ".join(f"{ANSI[colour]}{colour}{_RESET}" for colour in state.colours)
    status = f"{_BOLD}{status_line(state, last_action)}{_RESET}"
    return "\n".join([top_labels, top_cells, bottom_cells, bottom_labels, status, legend])


def render_rgb(state: EditionState, last_action: int | None = None) -> np.ndarray:
    """The board as an RGB image (H x W x 3 uint8): holes with their seeds drawn in their colours and counted
    (``2R 2B 1T``), the stores at the sides (player 1's on the left, player 0's on the right), the last move's hole
    ringed in yellow."""
    marked = _marked_hole(state, last_action)
    counts = {colour: state.counts_of(colour) for colour in state.colours}

    def draw_board(draw: ImageDraw.ImageDraw, font: ImageFont.ImageFont) -> None:
        for x0, y0, label_y, h in drawing.two_row_cells((TOP_ROW, BOTTOM_ROW)):
            dots = [RGB[colour] for colour in state.colours for _ in range(counts[colour][h - 1])]
            drawing.draw_hole(draw, x0, y0, h % 2 == 1, h == marked, dots)
            draw.text((x0 + 4, label_y + 3), f"{h}{'*' if h % 2 else ''}", fill=TEXT, font=font)
            for k, colour in enumerate(reversed(state.colours)):
                text = f"{counts[colour][h - 1]}{LETTERS[colour]}"
                draw.text((x0 + CELL - 16 * (k + 1), label_y + 3), text, fill=RGB[colour], font=font)

    status = status_line(state, last_action)
    return drawing.board_picture(8, drawing.TWO_ROWS_HEIGHT, draw_board, ("P0", "P1"), state.stores, status)
