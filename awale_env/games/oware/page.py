"""How the web page of ``awale serve`` draws Oware: :data:`PAGE`, read through ``Game.page()``.

Player 0's pits 0..5 run left to right, player 1's 6..11 above them from right to left; the person's row is at the
bottom, each row numbered 0..5 from its owner's left, as its moves are written
(:data:`awale_env.games.two_rows.PAGE_VIEWS`). The keys are described in docs/web.md.
"""

from __future__ import annotations

from typing import Any

from awale_env.games.two_rows import PAGE_VIEWS
from awale_env.games.web_page import page

PAGE: dict[str, Any] = page(
    title="Oware, 2 × 6",
    players=("South", "North"),
    views=PAGE_VIEWS,
    hint="Sowing runs anticlockwise and skips the pit it started from. Each player's pits are numbered 0-5 from their "
    "left, as moves are written. Click one of your pits to sow it; ending in the opponent's row on 2 or 3 seeds "
    "captures them and the pits before it holding 2 or 3.",
    example="3",
    rule_choices=(
        {"label": "texts: grand slam forbidden", "rules": {"preset": "texts"}},
        {"label": "openspiel: abapa, 25 seeds win", "rules": {"preset": "openspiel"}},
    ),
    # {on_repetition} and {on_no_move}: the game's rule of that name, in the words of rule_words.
    end_reasons={
        "repetition": "a position repeated ({on_repetition})",
        "majority": "a store reached 25 seeds, or both 24 (each player took the seeds left in their row)",
        "no_move": "the player to move had no legal move ({on_no_move})",
        "ply_limit": "the ply limit was reached ({on_repetition})",
    },
    rule_words={
        rule: {
            "discard": "seeds left on the board count for nobody",
            "own_side": "each player took the seeds left in their row",
        }
        for rule in ("on_repetition", "on_no_move")
    },
)
