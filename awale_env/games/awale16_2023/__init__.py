"""The 2023 edition of the course's two-colour Awale (docs/editions.md): one transparent seed per hole beside 2 red and
2 blue (80 seeds); ``NTR`` / ``NTB`` sow a hole's transparent seeds alone, in red's or blue's pattern; 41 seeds win.

Its modules also serve the other editions: :class:`EditionGame` (here) and :class:`~.state.EditionState` are what
every edition's Game and State share, :mod:`.render` draws any edition, and the kernels (:mod:`.kernels`,
:mod:`.batch`, :mod:`.search`) play every edition with transparent seeds, told apart by a rules code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from awale_env.games import register
from awale_env.games.awale16_2023 import kernels
from awale_env.games.awale16_2023.notation import format_move, parse_move
from awale_env.games.awale16_2023.state import (
    DEFAULT_MAX_PLIES,
    GAME_NAME,
    EditionState,
    State,
    TransparentState,
)
from awale_env.games.base import Game

__all__ = [
    "DEFAULT_MAX_PLIES",
    "GAME",
    "GAME_NAME",
    "EditionGame",
    "EditionState",
    "State",
    "TransparentState",
    "format_move",
    "parse_move",
    "transparent_game",
]


@dataclass(frozen=True)
class EditionGame(Game):
    """A course edition of the two-colour Awale: moves in its State's notation, absolute actions (player 1's are
    player 0's turned by one hole), the editions' pictures; its rule options go to its State's ``initial``."""

    def _initial(self, max_plies: int | None, seed: int | None = None, **flags: Any) -> EditionState:
        return self.state_type.initial(max_plies, **flags)  # no chance in these games: the seed changes nothing

    def action_shift(self, player: int) -> int:
        return self.actions_per_position * player

    def format_move(self, action: int) -> str:
        return self.state_type.format_move(action)

    def parse_move(self, text: str) -> int:
        return self.state_type.parse_move(text)

    def render_rgb(self, state: EditionState, last_action: int | None = None) -> np.ndarray:
        from awale_env.games.awale16_2023.render import board_image  # here: Pillow loads when a picture is drawn

        return board_image(state, last_action)

    def render_ansi(self, state: EditionState, last_action: int | None = None) -> str:
        from awale_env.games.awale16_2023.render import ansi_board

        return ansi_board(state, last_action)


def transparent_game(state_type: type[TransparentState], title: str, rule_options: tuple[str, ...], package: str
                     ) -> EditionGame:  # fmt: skip
    """The Game of an edition with transparent seeds whose State is ``state_type``."""
    planes = tuple(tuple(range(slot, kernels.BOARD_SIZE, kernels.COLOURS)) for slot in range(kernels.COLOURS))
    return EditionGame(
        state_type.game_name,
        title,
        kernels.NUM_ACTIONS,
        kernels.OBS_SIZE,
        state_type,
        state_type.default_max_plies,
        state_type.total_seeds,
        rule_options,
        kernels.BOARD_SIZE,  # every colour of every hole
        state_type.total_seeds / kernels.SEED_SCALE,
        state_type.end_reasons,
        board_planes=planes,
        actions_per_position=kernels.ACTIONS_PER_HOLE,
        own_positions=tuple(range(0, kernels.NUM_HOLES, 2)),
        symmetry_step=2 * kernels.ACTIONS_PER_HOLE,
        package=package,
    )


GAME = transparent_game(State, "Awale2023", (), __name__)
register(GAME)
