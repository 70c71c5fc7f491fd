"""Hawalis, the Omani 4 x 7 relay-sowing mancala (docs/rules_hawalis.md): rule flags ``first_player`` and
``endless_move``.

Its ``State`` and ``Rules`` (:mod:`.state`) wrap the compiled rules (:mod:`.kernels`); :mod:`.render` draws it,
:mod:`.batch` steps many games at once and :mod:`.search` serves the compiled searches.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from awale_env.games import register
from awale_env.games.base import Game
from awale_env.games.hawalis import kernels
from awale_env.games.hawalis.state import (
    DEFAULT_MAX_PLIES,
    GAME_NAME,
    NUM_ACTIONS,
    OBS_SIZE,
    PLAYER_NAMES,
    Rules,
    State,
    board_diagram,
    grid_position,
    status_line,
)

__all__ = [
    "DEFAULT_MAX_PLIES",
    "GAME",
    "GAME_NAME",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "PLAYER_NAMES",
    "Hawalis",
    "Rules",
    "State",
    "board_diagram",
    "grid_position",
    "render_rgb",
    "status_line",
]


@dataclass(frozen=True)
class Hawalis(Game):
    """Hawalis, 4 x 7 with relay sowing. Its pictures mark where the last move ended, which says more than the pit
    it started from."""

    def _initial(self, max_plies: int | None, seed: int | None = None, **flags: Any) -> State:
        return State.initial(max_plies=max_plies, seed=seed, **flags)

    def render_rgb(self, state: State, last_action: int | None = None) -> np.ndarray:
        from awale_env.games.hawalis.render import render_rgb  # here: Pillow loads when a picture is drawn

        return render_rgb(state)

    def render_ansi(self, state: State, last_action: int | None = None) -> str:
        return board_diagram(state)


def __getattr__(name: str) -> Any:
    """``render_rgb`` (loaded on first use, with Pillow) and ``core``, the kernels' old name."""
    if name == "render_rgb":
        from awale_env.games.hawalis.render import render_rgb

        return render_rgb
    if name == "core":
        warnings.warn("awale_env.games.hawalis.core is deprecated: use awale_env.games.hawalis.kernels",
                      DeprecationWarning, stacklevel=2)  # fmt: skip
        return kernels
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


GAME = Hawalis(
    GAME_NAME,
    "Hawalis",
    NUM_ACTIONS,
    OBS_SIZE,
    State,
    DEFAULT_MAX_PLIES,
    2 * kernels.SEEDS_PER_SIDE,
    ("first_player", "endless_move"),
    kernels.BOARD_SIZE,
    kernels.SEEDS_PER_SIDE / kernels.SEED_SCALE,  # captured seeds leave the board: a side holds <= 28
    kernels.END_REASONS,
    board_planes=(
        tuple(range(kernels.SIDE)),
        tuple(kernels.SIDE + (kernels.INNER - 1 - k) % kernels.SIDE for k in range(kernels.SIDE)),
    ),
    own_positions=tuple(range(kernels.INNER)),  # the outer row (it never captures), the ring's first half
    package=__name__,
)
register(GAME)
