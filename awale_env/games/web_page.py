"""What every game's web page data holds (``Game.page()``, read by the page of ``awale serve``; the keys are described
in docs/web.md), with the defaults most games take, so that a game's ``page.py`` says only what is its own."""

from __future__ import annotations

from typing import Any

#: The colours of the games whose seeds have none: the toolkit's plain seeds.
PLAIN_SEEDS = ({"css": "seed", "name": "seeds"},)


def page(*, title: str, players: tuple[str, str], views: list[Any], hint: str, example: str,
         end_reasons: dict[str, str], rule_choices: tuple[dict[str, Any], ...] = (), pit_name: str = "pit",
         store_label: str = "store", colours: tuple[dict[str, str], ...] = PLAIN_SEEDS,
         gap_before_row: int | None = None, rule_words: dict[str, dict[str, str]] | None = None,
         move_note: str | None = None, sowing_end: str | None = None) -> dict[str, Any]:  # fmt: skip
    """A game's page data (a JSON-able dict): ``views`` the board from each seat (rows of pits), ``end_reasons`` each
    end in words, ``rule_choices`` the rule flags the page offers, ``rule_words`` words for rule values that
    ``end_reasons`` name in braces, ``move_note`` and ``sowing_end`` what the page says of the last move."""
    return {
        "title": title,
        "players": list(players),
        "pit_name": pit_name,
        "store_label": store_label,
        "colours": [dict(colour) for colour in colours],
        "views": views,
        "gap_before_row": gap_before_row,
        "hint": hint,
        "example": example,
        "rule_choices": list(rule_choices),
        "end_reasons": end_reasons,
        "rule_words": rule_words or {},
        "move_note": move_note,
        "sowing_end": sowing_end,
    }
