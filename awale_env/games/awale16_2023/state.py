"""The 2023 edition's State (docs/editions.md): one transparent seed per hole beside 2 red and 2 blue, on the
kernels of the editions with transparent seeds (:mod:`awale_env.games.editions`)."""

from __future__ import annotations

from awale_env.games.editions import kernels as core
from awale_env.games.editions.state import TransparentState

GAME_NAME = "awale16_2023"
DEFAULT_MAX_PLIES = 400
#: One transparent seed per hole (80 seeds), sown alone; 41 wins, 40-40 is a draw, no move limit.
RULES = core.rules_code(False, 1, 41, 40, 0)
END_REASONS = (None, "score", "draw", "few_seeds", "ply_limit")
TOTAL_SEEDS = 80


class State(TransparentState):
    """A position of the 2023 edition: one transparent seed per hole (80 seeds); ``NTR`` / ``NTB`` sow a hole's
    transparent seeds alone, in red's or blue's pattern; 41 seeds win, 40-40 is a draw, fewer than 10 seeds on the
    board end the game."""

    __slots__ = ()

    game_name = GAME_NAME
    end_reasons = END_REASONS
    total_seeds = TOTAL_SEEDS
    default_max_plies = DEFAULT_MAX_PLIES

    @classmethod
    def _rules_code(cls) -> int:
        return RULES
