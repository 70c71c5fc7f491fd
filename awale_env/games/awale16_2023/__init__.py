"""The 2023 edition of the course's two-colour Awale (docs/editions.md): one transparent seed per hole beside 2 red and
2 blue (80 seeds); ``NTR`` / ``NTB`` sow a hole's transparent seeds alone, in red's or blue's pattern; 41 seeds win.
Its Game and kernels are the editions' (:mod:`awale_env.games.editions`).
"""

from __future__ import annotations

from awale_env.games import register
from awale_env.games.awale16_2023.state import DEFAULT_MAX_PLIES, GAME_NAME, State
from awale_env.games.editions import transparent_game
from awale_env.games.editions.notation import format_move, parse_move

__all__ = ["DEFAULT_MAX_PLIES", "GAME", "GAME_NAME", "State", "format_move", "parse_move"]

GAME = register(transparent_game(State, "Awale2023", (), __name__))
