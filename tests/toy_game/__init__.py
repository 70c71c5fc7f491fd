"""A toy mancala, 2 x 3 pits and 12 seeds: the smallest real game package, written as every game of
``awale_env.games`` is (docs/architecture.md, "Adding a game in five steps"), and registered from the tests alone.

:mod:`.kernels` holds its compiled rules, :mod:`.state` its State, :mod:`.notation` and :mod:`.render` how moves and
positions are written and drawn, :mod:`.search` what the compiled searches call. It has no ``batch`` module: the
vector env runs it on the pure-Python batch built on its State.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from awale_env.games import register
from awale_env.games.base import Game

from . import kernels
from .notation import format_move, parse_move
from .render import board_image, board_text
from .state import DEFAULT_MAX_PLIES, GAME_NAME, State

__all__ = ["GAME", "State", "Toy"]


@dataclass(frozen=True)
class Toy(Game):
    """The toy game: no rule flags, no chance; moves written ``A``-``C``."""

    def _initial(self, max_plies: int | None, seed: int | None = None, **flags: Any) -> State:
        return self.state_type.initial(max_plies)

    def format_move(self, action: int) -> str:
        return format_move(action)

    def parse_move(self, text: str) -> int:
        return parse_move(text)

    def render_rgb(self, state: State, last_action: int | None = None) -> np.ndarray:
        return board_image(state, last_action)

    def render_ansi(self, state: State, last_action: int | None = None) -> str:
        return board_text(state, last_action)


GAME = Toy(
    GAME_NAME,
    "Toy",
    kernels.NUM_ACTIONS,
    kernels.OBS_SIZE,
    State,
    DEFAULT_MAX_PLIES,
    kernels.TOTAL_SEEDS,
    (),
    kernels.NUM_PITS,
    1.0,  # a pit holds at most every seed: TOTAL_SEEDS / TOTAL_SEEDS
    kernels.END_REASONS,
    package=__name__,
)
register(GAME)
