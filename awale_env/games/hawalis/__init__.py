"""Hawalis, the Omani 4 x 7 relay-sowing mancala (docs/rules_hawalis.md): rule flags ``first_player`` and
``endless_move``.

Relay sowing and the endless-move check are compiled in :mod:`.kernels`; ``State`` and ``Rules`` (:mod:`.state`)
wrap them, :mod:`.search` serves them to the compiled searches and the vector env, :mod:`.render` draws the board.
"""

from __future__ import annotations

from typing import Any

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
    "Rules",
    "State",
    "board_diagram",
    "grid_position",
    "render_rgb",
    "status_line",
]


def __getattr__(name: str) -> Any:
    """``render_rgb``, loaded on first use (with Pillow)."""
    if name == "render_rgb":
        from awale_env.games.hawalis.render import render_rgb

        return render_rgb
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


GAME = register(
    Game(
        name=GAME_NAME,
        title="Hawalis",
        state_type=State,
        obs_size=OBS_SIZE,
        default_max_plies=DEFAULT_MAX_PLIES,
        total_seeds=2 * kernels.SEEDS_PER_SIDE,
        board_entries=kernels.BOARD_SIZE,
        max_board_entry=kernels.SEEDS_PER_SIDE / kernels.SEED_SCALE,  # captures leave the board: a side holds <= 28
        rule_options=("first_player", "endless_move"),
        board_planes=(
            tuple(range(kernels.SIDE)),
            tuple(kernels.SIDE + (kernels.INNER - 1 - k) % kernels.SIDE for k in range(kernels.SIDE)),
        ),
        own_positions=tuple(range(kernels.INNER)),  # the outer row (it never captures), the ring's first half
        package=__name__,
    )
)
