"""How the web page of ``awale serve`` draws any edition (:func:`edition_page`): one row of holes 16..9 above holes
1..8 for both seats (sowing runs 1 -> 16, anticlockwise on screen), each hole showing its seeds of every colour and,
under the mover's own holes, one button per move (``3R``, ``3B``, ``3TR``, ``3TB``). The keys are described in
docs/web.md."""

from __future__ import annotations

from typing import Any

#: Each colour on the page: the State field of its counts, the dots' style and its name in a hole's tooltip.
#: Transparent seeds are drawn as the toolkit's plain seeds.
COLOURS = {"red": ("red", "red"), "blue": ("blue", "blue"), "transparent": ("seed", "transparent")}
#: Each move of a hole: its letters and the colour of its button (the pattern it sows in).
MOVES = {"R": "red", "B": "blue", "TR": "red", "TB": "blue"}


def edition_page(title: str, hint: str, example: str, end_reasons: dict[str, str],
                 rule_choices: list[dict[str, Any]] | None = None, colours: tuple[str, ...] = tuple(COLOURS),
                 moves: tuple[str, ...] = tuple(MOVES)) -> dict[str, Any]:  # fmt: skip
    """The page data of an edition whose holes hold ``colours`` (``State.to_dict()`` fields; by default those of the
    editions with transparent seeds) and offer ``moves`` (by default theirs), with its rule options' choices."""

    def hole(number: int) -> dict[str, Any]:
        return {
            "label": str(number),
            "owner": (number - 1) % 2,
            "seeds": [[colour, number - 1] for colour in colours],
            "buttons": [{"move": f"{number}{move}", "text": move, "colour": MOVES[move]} for move in moves],
        }

    board = [[hole(number) for number in range(16, 8, -1)], [hole(number) for number in range(1, 9)]]
    return {
        "title": title,
        "players": ["odd holes", "even holes"],
        "pit_name": "hole",
        "store_label": "store",
        "colours": [{"css": COLOURS[colour][0], "name": COLOURS[colour][1]} for colour in colours],
        "views": [board, board],  # the same board from both seats
        "gap_before_row": None,
        "hint": hint,
        "example": example,
        "rule_choices": rule_choices or [],
        "end_reasons": end_reasons,
        "rule_words": {},
        "move_note": None,
        "sowing_end": None,
    }


#: What ends a game, in words, for the endings every edition has.
FEW_SEEDS = "fewer than {} seeds were left on the board (they count for nobody)"
PLY_LIMIT = "the ply limit was reached (seeds left on the board count for nobody)"


#: What ends a game, in words, for the endings every edition has.
FEW_SEEDS = "fewer than {} seeds were left on the board (they count for nobody)"
PLY_LIMIT = "the ply limit was reached (seeds left on the board count for nobody)"
