"""Classic Oware, 2 x 6 (docs/rules_oware.md), with the rule flags of its two presets (``"texts"``, ``"openspiel"``).

Its rules, compiled (:mod:`.kernels`), are what ``State`` and ``Rules`` (:mod:`.state`) wrap, what :mod:`.search`
hands the compiled searches and the vector env, and what :mod:`.render` draws.
"""

from __future__ import annotations

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
    "Rules",
    "State",
    "board_diagram",
    "key_position",
    "last_pit",
    "status_line",
]


GAME = register(
    Game(
        name=GAME_NAME,
        title="Oware",
        state_type=State,
        obs_size=kernels.OBS_SIZE,
        default_max_plies=DEFAULT_MAX_PLIES,
        total_seeds=kernels.TOTAL_SEEDS,
        board_entries=kernels.NUM_PITS,
        max_board_entry=kernels.TOTAL_SEEDS / kernels.SEED_SCALE,
        rule_options=("preset", "first_player", "grand_slam", "on_repetition", "on_no_move", "stop_at_majority"),
        board_planes=(tuple(range(kernels.NUM_PITS)),),
        own_positions=tuple(range(kernels.ROW)),
        package=__name__,
    )
)
