"""How the web page of ``awale serve`` draws the 2024 edition: :data:`PAGE`, read through ``Game.page()`` (drawn
like every game on the 16-hole board, :func:`awale_env.games.holes.hole_page`): blue seeds go into every hole."""

from __future__ import annotations

from typing import Any

from awale_env.games.holes import TAKE_A_COLOUR, hole_page

PAGE: dict[str, Any] = hole_page(
    "Two-colour Awale, 2024 edition (colours swapped)", win=33, draw=32, few=8, moves_say=TAKE_A_COLOUR,
    example="14R", sown_everywhere="blue", colours=("red", "blue"), moves=("R", "B"),
)  # fmt: skip
