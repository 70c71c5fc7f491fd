"""How the web page of ``awale serve`` draws Kalah: :data:`PAGE`, read through ``Game.page()``.

Player 0's pits 0..5 run left to right, player 1's 6..11 above them from right to left, the stores at the ends; the
person's row is at the bottom, each row numbered 0..5 from its owner's left, as its moves are written
(:data:`awale_env.games.two_rows.PAGE_VIEWS`). The keys are described in docs/web.md.
"""

from __future__ import annotations

from typing import Any

from awale_env.games.two_rows import PAGE_VIEWS
from awale_env.games.web_page import page

PAGE: dict[str, Any] = page(
    title="Kalah, 6 × 4",
    players=("South", "North"),
    views=PAGE_VIEWS,
    hint="Sowing runs anticlockwise through your own store, not the opponent's. Each player's pits are numbered 0-5 "
    "from their left, as moves are written. Click one of your pits to sow it; a last seed in your store gives you "
    "another turn, and one in an empty pit of yours captures it with the pit opposite.",
    example="2",
    rule_choices=(
        {"label": "Kalah(6, 4), as OpenSpiel's mancala", "rules": {}},
        {"label": "Kalah(6, 6)", "rules": {"seeds_per_pit": 6}},
        {"label": "Kalah(6, 3)", "rules": {"seeds_per_pit": 3}},
        {"label": "Kalah(6, 4), empty-opposite captures", "rules": {"capture_empty_opposite": True}},
    ),
    end_reasons={
        "empty_row": "a row was empty (each player took the seeds left in their row)",
        "ply_limit": "the ply limit was reached (each player took the seeds left in their row)",
    },
)
