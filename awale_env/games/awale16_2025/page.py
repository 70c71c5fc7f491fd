"""The 2025 edition's web page (``Game.page()``), drawn as every edition with transparent seeds is
(:func:`awale_env.games.editions.page.edition_page`)."""

from __future__ import annotations

from typing import Any

from awale_env.games.editions.page import FEW_SEEDS, PLY_LIMIT, edition_page

PAGE: dict[str, Any] = edition_page(
    "Two-colour Awale, 2025 edition (transparent seeds)",
    "Sowing runs 1 → 16 (anticlockwise on screen). Red seeds go into every hole, blue seeds only into the "
    "opponent's holes. TR and TB sow a hole's transparent seeds first, then its red or blue seeds from where they "
    "stopped, all the way red or blue seeds go. Click a button under one of your holes.",
    "12TB",
    {
        "score": "a player captured 49 seeds or more",
        "both_40": "both players hold 40 seeds or more (the students' server rule)",
        "few_seeds": FEW_SEEDS.format(10),
        "ply_limit": PLY_LIMIT,
        "move_limit": "400 moves were played (seeds left on the board count for nobody)",
    },
    [
        {"label": "January 2026 handout: 400-move limit", "rules": {}},
        {"label": "students' server: the game ends when both hold 40", "rules": {"end_at_both_40": True}},
    ],
)
