"""A toy mancala, 2 x 3 pits and 12 seeds: the smallest real game package, written as every game of
``awale_env.games`` is (docs/architecture.md, "Adding a game: one folder of rules"), and registered from the tests
alone.

:mod:`.kernels` holds its compiled rules, :mod:`.state` its State, :mod:`.notation` and :mod:`.render` how moves and
positions are written and drawn, :mod:`.search` what the compiled searches and the vector env's stepper call.
"""

from __future__ import annotations

from awale_env.games import register
from awale_env.games.base import Game

from . import kernels
from .state import DEFAULT_MAX_PLIES, GAME_NAME, State

__all__ = ["GAME", "State"]


GAME = register(
    Game(
        name=GAME_NAME,
        title="Toy",
        state_type=State,
        obs_size=kernels.OBS_SIZE,
        default_max_plies=DEFAULT_MAX_PLIES,
        total_seeds=kernels.TOTAL_SEEDS,
        board_entries=kernels.NUM_PITS,
        max_board_entry=1.0,  # a pit holds at most every seed: TOTAL_SEEDS / TOTAL_SEEDS
        package=__name__,
    )
)
