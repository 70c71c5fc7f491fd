"""The 2025 edition in plain Python, for ``awale bot``'s fallback player (see :mod:`..awale16.plain`): two
transparent seeds per hole, a transparent move also sows the hole's seeds of its colour, 49 seeds win, 400 moves
end the game; the rule flag ``end_at_both_40``."""

from __future__ import annotations

from ..awale16_2023.plain import NO_PAIR, TransparentRules


class Rules2025(TransparentRules):
    name = "awale16_2025"
    end_reasons = (None, "score", "both_40", "few_seeds", "ply_limit", "move_limit")
    flags = {"end_at_both_40": False}
    default_max_plies = None
    win, few = 49, 10
    transparent_per_hole = 2
    with_colour = True
    move_limit = 400

    def __init__(self, max_plies: int | None = None, **flags: object) -> None:
        super().__init__(max_plies, **flags)
        self.pair = 40 if self.settings["end_at_both_40"] else NO_PAIR


RULES = Rules2025
