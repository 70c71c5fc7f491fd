"""The two-colour, 16-hole Awale (docs/rules.md): the default game of every environment, agent and tool.

Its ``State`` (:mod:`.state`, ``awale_env.State``) wraps the compiled rules (:mod:`.kernels`); moves are action
indices 0-31 (``2 * (hole - 1) + colour``) or strings like ``"14B"`` (:mod:`.notation`); :mod:`.render` draws it,
:mod:`.search` serves the compiled searches and the vector env.
"""

from __future__ import annotations

from awale_env.games import register
from awale_env.games.awale16 import kernels
from awale_env.games.awale16.notation import format_move, parse_move
from awale_env.games.awale16.state import DEFAULT_MAX_PLIES, GAME_NAME, NUM_ACTIONS, State, board_diagram
from awale_env.games.base import Game

__all__ = [
    "BOARD_FACTS",
    "DEFAULT_MAX_PLIES",
    "GAME",
    "GAME_NAME",
    "NUM_ACTIONS",
    "State",
    "board_diagram",
    "format_move",
    "parse_move",
]


#: What the two-colour board is to a learner, shared by the editions that keep it (2024's).
BOARD_FACTS = dict(
    obs_size=kernels.OBS_SIZE,
    total_seeds=kernels.TOTAL_SEEDS,
    board_entries=kernels.NUM_ACTIONS,  # both colours of every hole
    max_board_entry=kernels.TOTAL_SEEDS / kernels.SEED_SCALE,
    board_planes=(tuple(range(0, kernels.NUM_ACTIONS, 2)), tuple(range(1, kernels.NUM_ACTIONS, 2))),
    actions_per_position=2,
    own_positions=tuple(range(0, kernels.NUM_HOLES, 2)),
    symmetry_step=4,
    absolute_actions=True,  # rule 13: player 1's holes are player 0's turned by one hole (two actions)
)

GAME = register(
    Game(name=GAME_NAME, title="Awale", state_type=State, default_max_plies=DEFAULT_MAX_PLIES, package=__name__,
         **BOARD_FACTS),
    default=True,
)  # fmt: skip
