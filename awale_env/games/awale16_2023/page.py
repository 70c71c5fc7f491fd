"""The 2023 edition's web page (``Game.page()``), drawn as every edition with transparent seeds is
(:func:`awale_env.games.editions.page.edition_page`)."""

from __future__ import annotations

from typing import Any

from awale_env.games.editions.page import FEW_SEEDS, PLY_LIMIT, edition_page

PAGE: dict[str, Any] = edition_page(
    "Two-colour Awale, 2023 edition (transparent seeds)",
    "Sowing runs 1 → 16 (anticlockwise on screen). Red seeds go into every hole, blue seeds only into the "
    "opponent's holes. TR and TB sow a hole's transparent seeds alone, the way red or blue seeds go. Click a button "
    "under one of your holes.",
    "12TB",
    {
        "score": "a player captured 41 seeds or more",
        "draw": "both players captured 40 seeds",
        "few_seeds": FEW_SEEDS.format(10),
        "ply_limit": PLY_LIMIT,
    },
)
