"""The 2024 edition of the course's two-colour Awale (docs/editions.md): the 2021 game with the colours swapped, blue
seeds sown into every hole and red ones into the opponent's holes only; 64 seeds, 32 actions, 2021's notation
(``14R``). It runs on the 2021 kernels with the colours relabelled where its State, search and batch meet them.
"""

from __future__ import annotations

from awale_env.games import register
from awale_env.games.awale16 import BOARD_FACTS
from awale_env.games.awale16.notation import format_move, parse_move
from awale_env.games.awale16_2024.state import DEFAULT_MAX_PLIES, GAME_NAME, State
from awale_env.games.editions import EditionGame

__all__ = ["DEFAULT_MAX_PLIES", "GAME", "GAME_NAME", "State", "format_move", "parse_move"]

GAME = register(
    EditionGame(name=GAME_NAME, title="Awale2024", state_type=State, default_max_plies=DEFAULT_MAX_PLIES,
                package=__name__, **BOARD_FACTS)
)  # fmt: skip
