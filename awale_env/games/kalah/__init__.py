"""Kalah, 2 x 6 with stores (docs/rules_kalah.md): OpenSpiel's ``mancala`` by default, with the rule flags
``seeds_per_pit`` (1-6) and ``capture_empty_opposite``. A move whose last seed lands in the mover's store gives it
another turn.

Its ``State`` and ``Rules`` (:mod:`.state`) wrap the compiled rules (:mod:`.kernels`); :mod:`.render` draws it,
:mod:`.search` serves the compiled searches and the vector env, :mod:`.page` the web page.
"""

from __future__ import annotations

from awale_env.games import register
from awale_env.games.base import Game
from awale_env.games.kalah import kernels
from awale_env.games.kalah.state import DEFAULT_MAX_PLIES, GAME_NAME, NUM_ACTIONS, Rules, State, board_diagram

__all__ = ["DEFAULT_MAX_PLIES", "GAME", "GAME_NAME", "NUM_ACTIONS", "Rules", "State", "board_diagram"]


GAME = register(
    Game(
        name=GAME_NAME,
        title="Kalah",
        state_type=State,
        obs_size=kernels.OBS_SIZE,
        default_max_plies=DEFAULT_MAX_PLIES,
        total_seeds=kernels.NUM_PITS * kernels.DEFAULT_SEEDS_PER_PIT,
        board_entries=kernels.NUM_PITS,
        max_board_entry=kernels.MAX_TOTAL_SEEDS / kernels.SEED_SCALE,
        rule_options=("seeds_per_pit", "capture_empty_opposite"),
        board_planes=(tuple(range(kernels.NUM_PITS)),),
        own_positions=tuple(range(kernels.ROW)),
        package=__name__,
    )
)
