"""The 2025 edition of the course's two-colour Awale (docs/editions.md), this year's students' game: two transparent
seeds per hole beside 2 red and 2 blue (96 seeds); ``NTR`` / ``NTB`` sow the hole's transparent seeds, then its seeds
of the chosen colour from where they stopped; 49 seeds win; the game stops after 400 moves. Rule option
``end_at_both_40`` (the students' tournament server). Its kernels are the transparent editions' of
:mod:`awale_env.games.editions`, with this edition's rules code.
"""

from __future__ import annotations

from awale_env.games import register
from awale_env.games.awale16_2025.state import DEFAULT_MAX_PLIES, GAME_NAME, MOVE_LIMIT, State
from awale_env.games.editions import transparent_game
from awale_env.games.editions.notation import format_move, parse_move

__all__ = ["DEFAULT_MAX_PLIES", "GAME", "GAME_NAME", "MOVE_LIMIT", "State", "format_move", "parse_move"]

GAME = register(transparent_game(State, "Awale2025", State.rule_flags, __name__))
