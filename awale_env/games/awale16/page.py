"""How the web page of ``awale serve`` draws the two-colour Awale: :data:`PAGE`, read through ``Game.page()``.

The board is one row of holes 16..9 above holes 1..8 for both seats (sowing runs 1 -> 16, anticlockwise on screen);
each hole shows its red and blue seeds and, under the mover's own holes, one button per colour (moves ``"3R"``,
``"3B"``): the 16-hole board's page (:func:`awale_env.games.holes.hole_page`).
"""

from __future__ import annotations

from typing import Any

from awale_env.games.holes import TAKE_A_COLOUR, hole_page

PAGE: dict[str, Any] = hole_page(
    "Two-colour Awale, 16 holes", win=33, draw=32, few=8, moves_say=TAKE_A_COLOUR, example="14B",
    colours=("red", "blue"), moves=("R", "B"),
)  # fmt: skip
