"""The 2025 edition's web page (``Game.page()``), drawn as every game on the 16-hole board is
(:func:`awale_env.games.holes.hole_page`), with its two rule choices."""

from __future__ import annotations

from typing import Any

from awale_env.games.holes import hole_page

PAGE: dict[str, Any] = hole_page(
    "Two-colour Awale, 2025 edition (transparent seeds)",
    win=49,
    few=10,
    moves_say="TR and TB sow a hole's transparent seeds first, then its red or blue seeds from where they stopped, "
    "all the way red or blue seeds go. Click a button under one of your holes.",
    example="12TB",
    end_reasons={
        "both_40": "both players hold 40 seeds or more (the students' server rule)",
        "move_limit": "400 moves were played (seeds left on the board count for nobody)",
    },
    rule_choices=(
        {"label": "January 2026 handout: 400-move limit", "rules": {}},
        {"label": "students' server: the game ends when both hold 40", "rules": {"end_at_both_40": True}},
    ),
)
