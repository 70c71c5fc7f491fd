"""The 2024 edition of the course's two-colour Awale (docs/editions.md): the 2021 game with the colours swapped, blue
seeds sown into every hole and red ones into the opponent's holes only; 64 seeds, 32 actions, 2021's notation
(``14R``). It runs on the 2021 kernels with the colours relabelled where its State, search and batch meet them.
"""

from __future__ import annotations

from awale_env.games import register
from awale_env.games.awale16 import kernels
from awale_env.games.awale16.notation import format_move, parse_move
from awale_env.games.awale16_2023 import EditionGame
from awale_env.games.awale16_2024.state import DEFAULT_MAX_PLIES, GAME_NAME, State

__all__ = ["DEFAULT_MAX_PLIES", "GAME", "GAME_NAME", "State", "format_move", "parse_move"]

GAME = EditionGame(
    GAME_NAME,
    "Awale2024",
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
register(GAME)
