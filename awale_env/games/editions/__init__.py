"""The course editions' shared machinery (docs/editions.md), which the edition games build on: not a game itself (it
registers none). :class:`EditionGame` is every edition's Game, :mod:`.render` draws any edition, and the kernels of
the editions with transparent seeds (:mod:`.kernels`, :mod:`.search`, :mod:`.notation`) play each of them, told apart
by a rules code (:class:`~.state.TransparentState`). What every edition's State shares, and its web page, are the
16-hole board's (:mod:`awale_env.games.holes`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from awale_env.games.base import Game
from awale_env.games.editions import kernels
from awale_env.games.editions.state import TransparentState
from awale_env.games.holes import EditionState

__all__ = ["EditionGame", "EditionState", "TransparentState", "transparent_game"]


@dataclass(frozen=True)
class EditionGame(Game):
    """A course edition of the two-colour Awale: moves in its State's notation, the editions' pictures; its rule
    options go to its State's ``initial``."""

    def _initial(self, max_plies: int | None, seed: int | None = None, **flags: Any) -> EditionState:
        return self.state_type.initial(max_plies, **flags)  # no chance in these games: the seed changes nothing

    def format_move(self, action: int) -> str:
        return self.state_type.format_move(action)

    def parse_move(self, text: str) -> int:
        return self.state_type.parse_move(text)

    def render_rgb(self, state: EditionState, last_action: int | None = None) -> np.ndarray:
        from awale_env.games.editions.render import render_rgb  # here: Pillow loads when a picture is drawn

        return render_rgb(state, last_action)

    def render_ansi(self, state: EditionState, last_action: int | None = None) -> str:
        from awale_env.games.editions.render import render_ansi

        return render_ansi(state, last_action)


def transparent_game(state_type: type[TransparentState], title: str, rule_options: tuple[str, ...], package: str
                     ) -> EditionGame:  # fmt: skip
    """The Game of an edition with transparent seeds whose State is ``state_type``."""
    planes = tuple(tuple(range(slot, kernels.BOARD_SIZE, kernels.COLOURS)) for slot in range(kernels.COLOURS))
    return EditionGame(
        name=state_type.game_name,
        title=title,
        state_type=state_type,
        obs_size=kernels.OBS_SIZE,
        default_max_plies=state_type.default_max_plies,
        total_seeds=state_type.total_seeds,
        board_entries=kernels.BOARD_SIZE,  # every colour of every hole
        max_board_entry=state_type.total_seeds / kernels.SEED_SCALE,
        rule_options=rule_options,
        board_planes=planes,
        actions_per_position=kernels.ACTIONS_PER_HOLE,
        own_positions=tuple(range(0, kernels.NUM_HOLES, 2)),
        symmetry_step=2 * kernels.ACTIONS_PER_HOLE,
        absolute_actions=True,
        package=package,
    )
