"""How the web page of ``awale serve`` draws the 2024 edition: :data:`PAGE`, read through ``Game.page()`` (drawn
like every edition, :func:`awale_env.games.editions.page.edition_page`)."""

from __future__ import annotations

from typing import Any

from awale_env.games.editions.page import FEW_SEEDS, PLY_LIMIT, edition_page

PAGE: dict[str, Any] = edition_page(
    "Two-colour Awale, 2024 edition (colours swapped)",
    "Sowing runs 1 → 16 (anticlockwise on screen). Blue seeds go into every hole, red seeds only into the "
    "opponent's holes. Click R or B under one of your holes to take all its seeds of that colour.",
    "14R",
    {
        "score": "a player captured 33 seeds or more",
        "draw": "both players captured 32 seeds",
        "few_seeds": FEW_SEEDS.format(8),
        "ply_limit": PLY_LIMIT,
    },
    colours=("red", "blue"),
    moves=("R", "B"),
)
