"""The 2024 edition in plain Python, for ``awale bot``'s fallback player (see :mod:`..awale16.plain`): the 2021
game with the colours' patterns swapped, blue seeds sown into every hole and red ones into the opponent's holes."""

from __future__ import annotations

from ..awale16.plain import NUM_HOLES, PlainRules


class Rules2024(PlainRules):
    name = "awale16_2024"
    patterns = ((2, NUM_HOLES // 2), (1, NUM_HOLES - 1))


RULES = Rules2024
