"""Pictures of a position: a coloured text board (ANSI) and an RGB image drawn with Pillow (no matplotlib).

Both use the layout of :func:`awale_env.rules.board_diagram`: holes 1-8 on the bottom row left to right, 16-9
above them, so sowing runs anticlockwise on screen; player 0 owns the odd holes (marked ``*``).
"""

from __future__ import annotations

import io
from typing import Any

import gymnasium
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from awale_env.notation import format_move
from awale_env.rules import State, board_diagram

TOP_ROW = range(16, 8, -1)
BOTTOM_ROW = range(1, 9)

_RED, _BLUE, _BOLD, _RESET = "\x1b[31m", "\x1b[34m", "\x1b[1m", "\x1b[0m"


def status_line(state: State, last_action: int | None = None) -> str:
    """Stores, ply and whose turn it is or the result (the last line of :func:`board_diagram`), and the last move."""
    line = board_diagram(state).splitlines()[-1]
    return line if last_action is None else f"{line} | last move {format_move(last_action)}"


def ansi_board(state: State, last_action: int | None = None) -> str:
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

CELL = 72  # pixels per hole
MARGIN = 12
STORE_WIDTH = 64
TEXT_HEIGHT = 18
DOT_RADIUS = 4
DOTS_PER_ROW = 5
MAX_DOTS = 25  # seeds drawn per hole; the counts are written underneath anyway

_WOOD, _HOLE, _OWN_HOLE, _LAST = (150, 105, 60), (95, 62, 32), (120, 80, 40), (250, 215, 40)
_RED_SEED, _BLUE_SEED, _TEXT = (215, 40, 40), (40, 90, 220), (255, 255, 255)


def _draw_seeds(draw: ImageDraw.ImageDraw, cx: int, cy: int, red: int, blue: int) -> None:
    """Red then blue dots in a small grid centred on the hole."""
    colours = ([_RED_SEED] * red + [_BLUE_SEED] * blue)[:MAX_DOTS]
    step = 2 * DOT_RADIUS + 3
    rows = -(-len(colours) // DOTS_PER_ROW)
    for k, colour in enumerate(colours):
        x = cx + (k % DOTS_PER_ROW - (DOTS_PER_ROW - 1) / 2) * step
        y = cy + (k // DOTS_PER_ROW - (rows - 1) / 2) * step
        draw.ellipse((x - DOT_RADIUS, y - DOT_RADIUS, x + DOT_RADIUS, y + DOT_RADIUS), fill=colour)


def board_image(state: State, last_action: int | None = None) -> np.ndarray:
    """The board as an RGB image (H x W x 3 uint8): holes with their red and blue seeds drawn and counted, the
    stores at the sides (player 1's on the left, player 0's on the right), the last move's hole ringed in yellow."""
    font = ImageFont.load_default()
    width = 2 * MARGIN + 2 * STORE_WIDTH + 8 * CELL
    board_height = 2 * (CELL + TEXT_HEIGHT)
    height = 2 * MARGIN + board_height + 2 * TEXT_HEIGHT
    image = Image.new("RGB", (width, height), _WOOD)
    draw = ImageDraw.Draw(image)
    last_hole = None if last_action is None else (last_action >> 1) + 1
    left = MARGIN + STORE_WIDTH
    for row, holes in enumerate((TOP_ROW, BOTTOM_ROW)):
        top = MARGIN + row * (CELL + TEXT_HEIGHT)
        for col, h in enumerate(holes):
            x0, y0 = left + col * CELL, top + (TEXT_HEIGHT if row == 0 else 0)
            box = (x0 + 4, y0 + 4, x0 + CELL - 4, y0 + CELL - 4)
            draw.ellipse(box, fill=_OWN_HOLE if h % 2 else _HOLE, outline=_LAST if h == last_hole else None, width=4)
            red, blue = int(state.seeds[2 * h - 2]), int(state.seeds[2 * h - 1])
            _draw_seeds(draw, x0 + CELL // 2, y0 + CELL // 2, red, blue)
            label_y = top if row == 0 else y0 + CELL
            draw.text((x0 + 6, label_y + 3), f"{h}{'*' if h % 2 else ''}", fill=_TEXT, font=font)
            draw.text((x0 + CELL - 36, label_y + 3), f"{red}R", fill=_RED_SEED, font=font)
            draw.text((x0 + CELL - 18, label_y + 3), f"{blue}B", fill=_BLUE_SEED, font=font)
    for player, x0 in ((1, MARGIN), (0, width - MARGIN - STORE_WIDTH)):
        draw.rounded_rectangle((x0 + 4, MARGIN + 4, x0 + STORE_WIDTH - 4, MARGIN + board_height - 4), 16, fill=_HOLE)
        draw.text((x0 + 12, MARGIN + board_height // 2 - 12), f"P{player}", fill=_TEXT, font=font)
        draw.text((x0 + 12, MARGIN + board_height // 2 + 4), str(state.stores[player]), fill=_TEXT, font=font)
    text = status_line(state, last_action)
    draw.text((MARGIN, MARGIN + board_height + 6), text, fill=_TEXT, font=font)
    return np.asarray(image, dtype=np.uint8).copy()


def png_bytes(state: State, last_action: int | None = None) -> bytes:
    """The board image as PNG bytes (for notebooks: ``State._repr_png_``)."""
    buffer = io.BytesIO()
    Image.fromarray(board_image(state, last_action)).save(buffer, format="PNG")
    return buffer.getvalue()


def render(mode: str | None, state: Any, last_action: int | None = None) -> str | np.ndarray | None:
    """What an environment's ``render()`` returns in ``mode`` for a State of any game: the text board, the RGB
    image, or None after printing the board (``"human"``); None with a warning when the environment was made without
    a render mode. The drawings are the game's own (:class:`awale_env.games.Game`)."""
    from awale_env.games import game_of  # here: the games' modules import this one for its drawing style

    if mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'")
        return None
    game = game_of(state)
    if mode == "rgb_array":
        return game.render_rgb(state, last_action)
    text = game.render_ansi(state, last_action)
    if mode == "ansi":
        return text
    print(text)
    return None
