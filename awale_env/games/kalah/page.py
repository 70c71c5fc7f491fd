"""How the web page of ``awale serve`` draws Kalah: :data:`PAGE`, read through ``Game.page()``.

Player 0's pits 0..5 run left to right, player 1's 6..11 above them from right to left, the stores at the ends; the
person's row is at the bottom, each row numbered 0..5 from its owner's left, as its moves are written. The keys are
described in docs/web.md.
"""

from __future__ import annotations

from typing import Any

PITS_PER_SIDE = 6


def pit(index: int) -> dict[str, Any]:
    """Board pit ``index`` (0-11), labelled and played as its owner's move ``index % 6``."""
    move = str(index % PITS_PER_SIDE)
    return {"label": move, "owner": index // PITS_PER_SIDE, "seeds": [["board", index]], "move": move}


def view(rows: list[range]) -> list[list[dict[str, Any]]]:
    return [[pit(index) for index in row] for row in rows]


PAGE: dict[str, Any] = {
    "title": "Kalah, 6 × 4",
    "players": ["South", "North"],
    "pit_name": "pit",
    "store_label": "store",
    "colours": [{"css": "seed", "name": "seeds"}],
    "views": [
        view([range(11, 5, -1), range(0, 6)]),
        view([range(5, -1, -1), range(6, 12)]),
    ],
    "gap_before_row": None,
    "hint": "Sowing runs anticlockwise through your own store, not the opponent's. Each player's pits are numbered "
    "0-5 from their left, as moves are written. Click one of your pits to sow it; a last seed in your store gives you "
    "another turn, and one in an empty pit of yours captures it with the pit opposite.",
    "example": "2",
    "rule_choices": [
        {"label": "Kalah(6, 4), as OpenSpiel's mancala", "rules": {}},
        {"label": "Kalah(6, 6)", "rules": {"seeds_per_pit": 6}},
        {"label": "Kalah(6, 3)", "rules": {"seeds_per_pit": 3}},
        {"label": "Kalah(6, 4), empty-opposite captures", "rules": {"capture_empty_opposite": True}},
    ],
    "end_reasons": {
        "empty_row": "a row was empty (each player took the seeds left in their row)",
        "ply_limit": "the ply limit was reached (each player took the seeds left in their row)",
    },
    "rule_words": {},
    "move_note": None,
    "sowing_end": None,
}
