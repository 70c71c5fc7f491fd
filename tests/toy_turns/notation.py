"""The toy game's move notation, which the game with another turn keeps."""

from toy_game.notation import format_move, parse_move

__all__ = ["format_move", "parse_move"]
