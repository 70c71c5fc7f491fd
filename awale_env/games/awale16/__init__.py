"""The two-colour, 16-hole Awale (docs/rules.md): the default game of every environment, agent and tool.

Its ``State`` (:mod:`.state`, ``awale_env.State``) wraps the compiled rules (:mod:`.kernels`); moves are action
indices 0-31 (``2 * (hole - 1) + colour``) or strings like ``"14B"`` (:mod:`.notation`); :mod:`.render` draws it,
:mod:`.batch` steps many games at once and :mod:`.search` serves the compiled searches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from awale_env.games import register
from awale_env.games.awale16 import kernels
from awale_env.games.awale16.notation import format_move, parse_move
from awale_env.games.awale16.state import DEFAULT_MAX_PLIES, GAME_NAME, NUM_ACTIONS, State, board_diagram
from awale_env.games.base import Game

__all__ = [
    "DEFAULT_MAX_PLIES",
    "GAME",
    "GAME_NAME",
    "NUM_ACTIONS",
    "Awale16",
    "State",
    "board_diagram",
    "format_move",
    "parse_move",
]


@dataclass(frozen=True)
class Awale16(Game):
    """The two-colour, 16-hole Awale: moves are written ``"14B"``; no rule flags."""

    def _initial(self, max_plies: int | None, seed: int | None = None, **flags: Any) -> State:
        return State.initial(max_plies)  # no chance in this game: the seed changes nothing

    def action_shift(self, player: int) -> int:
        """Actions are absolute (rule 13); player 1's holes are player 0's turned by one hole (two actions)."""
        return 2 * player

    def format_move(self, action: int) -> str:
        return format_move(action)

    def parse_move(self, text: str) -> int:
        return parse_move(text)

    def render_rgb(self, state: State, last_action: int | None = None) -> np.ndarray:
        from awale_env.games.awale16.render import board_image  # here: Pillow loads when a picture is drawn

        return board_image(state, last_action)

    def render_ansi(self, state: State, last_action: int | None = None) -> str:
        from awale_env.games.awale16.render import ansi_board

        return ansi_board(state, last_action)


GAME = Awale16(
    GAME_NAME,
    "Awale",
    kernels.NUM_ACTIONS,
    kernels.OBS_SIZE,
    State,
    DEFAULT_MAX_PLIES,
    kernels.TOTAL_SEEDS,
    (),
    kernels.NUM_ACTIONS,  # both colours of every hole
    kernels.TOTAL_SEEDS / kernels.SEED_SCALE,
    kernels.END_REASONS,
    board_planes=(tuple(range(0, kernels.NUM_ACTIONS, 2)), tuple(range(1, kernels.NUM_ACTIONS, 2))),
    actions_per_position=2,
    own_positions=tuple(range(0, kernels.NUM_HOLES, 2)),
    symmetry_step=4,
    package=__name__,
)
register(GAME, default=True)
