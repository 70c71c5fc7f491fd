"""The 2025 edition's State (docs/editions.md): two transparent seeds per hole (96 seeds); ``NTR`` / ``NTB`` take a
hole's transparent seeds and its seeds of the chosen colour, the transparent ones sown first; 49 seeds win, and the
game stops after 400 moves (a rule: more captured seeds wins). The rules are the kernels of the editions with
transparent seeds (:mod:`awale_env.games.editions.kernels`) with this edition's rules code."""

from __future__ import annotations

from awale_env.games.editions import kernels as core
from awale_env.games.editions.state import TransparentState

GAME_NAME = "awale16_2025"
TOTAL_SEEDS = 96
#: The move limit of the January 2026 handout: after 400 moves (both players') the game stops.
MOVE_LIMIT = 400
#: No ply limit beyond the rules' move limit by default.
DEFAULT_MAX_PLIES = None
#: The store both players reach to end the game with the rule option ``end_at_both_40``.
BOTH_40 = 40
END_REASONS = (None, "score", "both_40", "few_seeds", "ply_limit", "move_limit")


def rules_code(end_at_both_40: bool) -> int:
    """The kernels' rules code of the 2025 edition with or without the ``end_at_both_40`` option."""
    if not isinstance(end_at_both_40, bool):
        raise ValueError(f"end_at_both_40 must be True or False, got {end_at_both_40!r}")
    return core.rules_code(True, 2, 49, BOTH_40 if end_at_both_40 else core.NO_PAIR, MOVE_LIMIT)


class State(TransparentState):
    """A position of the 2025 edition (96 seeds, 64 actions ``4 * (N - 1) + k``, k = 0 R, 1 B, 2 TR, 3 TB).

    ``end_at_both_40`` (default False) reproduces the students' tournament server of 2025: the game also ends as soon
    as both players hold 40 seeds or more (checked after the 49-seed win and before the 10-seed end), the one with
    more seeds winning. The 400-move limit ends the game as ``"move_limit"``; ``max_plies`` (default None) can stop
    it earlier, as ``"ply_limit"``.
    """

    __slots__ = ()

    game_name = GAME_NAME
    end_reasons = END_REASONS
    total_seeds = TOTAL_SEEDS
    default_max_plies = DEFAULT_MAX_PLIES
    rule_flags = ("end_at_both_40",)

    @classmethod
    def _rules_code(cls, end_at_both_40: bool = False) -> int:
        return rules_code(end_at_both_40)

    @property
    def end_at_both_40(self) -> bool:
        """Whether both players holding 40 seeds or more ends the game (the rule option)."""
        return self._rules == rules_code(True)

    def rule_settings(self) -> dict[str, bool]:
        return {"end_at_both_40": self.end_at_both_40}
