"""Classic Oware, 2 x 6 (docs/rules_oware.md), with the rule flags of its two presets (``"texts"``, ``"openspiel"``).

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
from awale_env.games.oware import kernels
from awale_env.games.oware.state import (
    DEFAULT_MAX_PLIES,
    GAME_NAME,
    NUM_ACTIONS,
    PRESETS,
    Rules,
    State,
    board_diagram,
    key_position,
    last_pit,
    status_line,
)

__all__ = [
    "DEFAULT_MAX_PLIES",
    "GAME",
    "GAME_NAME",
    "NUM_ACTIONS",
    "PRESETS",
    "Oware",
    "Rules",
    "State",
    "board_diagram",
    "key_position",
    "last_pit",
    "render_rgb",
    "status_line",
]


@dataclass(frozen=True)
class Oware(Game):
    """Classic Oware: ``preset`` ``"texts"`` (default) or ``"openspiel"`` and each rule flag of :class:`Rules`."""

    def _initial(self, max_plies: int | None, seed: int | None = None, **flags: Any) -> State:
        return State.initial(max_plies=max_plies, seed=seed, **flags)

    def render_rgb(self, state: State, last_action: int | None = None) -> np.ndarray:
        from awale_env.games.oware.render import render_rgb  # here: Pillow loads when a picture is drawn

        return render_rgb(state, last_action)

    def render_ansi(self, state: State, last_action: int | None = None) -> str:
        return board_diagram(state, last_action)


def __getattr__(name: str) -> Any:
    """``render_rgb`` (loaded on first use, with Pillow) and ``core``, the kernels' old name."""
    if name == "render_rgb":
        from awale_env.games.oware.render import render_rgb

        return render_rgb
    if name == "core":
        warnings.warn("awale_env.games.oware.core is deprecated: use awale_env.games.oware.kernels", DeprecationWarning,
                      stacklevel=2)  # fmt: skip
        return kernels
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


GAME = Oware(
    GAME_NAME,
    "Oware",
    NUM_ACTIONS,
    kernels.OBS_SIZE,
    State,
    DEFAULT_MAX_PLIES,
    kernels.TOTAL_SEEDS,
    ("preset", "first_player", "grand_slam", "on_repetition", "on_no_move", "stop_at_majority"),
    kernels.NUM_PITS,
    kernels.TOTAL_SEEDS / kernels.SEED_SCALE,
    kernels.END_REASONS,
    board_planes=(tuple(range(kernels.NUM_PITS)),),
    own_positions=tuple(range(kernels.ROW)),
    package=__name__,
)
register(GAME)
