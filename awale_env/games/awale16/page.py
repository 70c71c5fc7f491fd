"""How the web page of ``awale serve`` draws the two-colour Awale: :data:`PAGE`, read through ``Game.page()``.

The board is one row of holes 16..9 above holes 1..8 for both seats (sowing runs 1 -> 16, anticlockwise on screen);
each hole shows its red and blue seeds and, under the mover's own holes, one button per colour (moves ``"3R"``,
``"3B"``). The keys are described in docs/web.md.
"""

from __future__ import annotations

from typing import Any

COLOURS = (("R", "red"), ("B", "blue"))


def hole(number: int) -> dict[str, Any]:
    """Hole ``number`` (1-16): player 0 owns the odd holes; a move takes one colour of its seeds."""
    return {
        "label": str(number),
        "owner": (number - 1) % 2,
        "seeds": [[colour, number - 1] for _, colour in COLOURS],
        "buttons": [{"move": f"{number}{letter}", "text": letter, "colour": colour} for letter, colour in COLOURS],
    }


BOARD = [
    [hole(number) for number in range(16, 8, -1)],
    [hole(number) for number in range(1, 9)],
]

PAGE: dict[str, Any] = {
    "title": "Two-colour Awale, 16 holes",
    "players": ["odd holes", "even holes"],
    "pit_name": "hole",
    "store_label": "store",
    "colours": [{"css": colour, "name": colour} for _, colour in COLOURS],
    "views": [BOARD, BOARD],  # the same board from both seats
    "gap_before_row": None,
    "hint": "Sowing runs 1 → 16 (anticlockwise on screen). Red seeds go into every hole, blue seeds only into the "
    "opponent's holes. Click R or B under one of your holes to take all its seeds of that colour.",
    "example": "14B",
    "rule_choices": [],
    "end_reasons": {
        "score": "a player captured 33 seeds or more",
        "draw": "both players captured 32 seeds",
        "few_seeds": "fewer than 8 seeds were left on the board (they count for nobody)",
        "ply_limit": "the ply limit was reached (seeds left on the board count for nobody)",
    },
    "rule_words": {},
    "move_note": None,
    "sowing_end": None,
}
