"""The 2023 edition's web page (``Game.page()``), drawn as every game on the 16-hole board is
(:func:`awale_env.games.holes.hole_page`)."""

from __future__ import annotations

from typing import Any

from awale_env.games.holes import hole_page

PAGE: dict[str, Any] = hole_page(
    "Two-colour Awale, 2023 edition (transparent seeds)", win=41, draw=40, few=10, example="12TB",
    moves_say="TR and TB sow a hole's transparent seeds alone, the way red or blue seeds go. Click a button under "
    "one of your holes.",
)  # fmt: skip
