"""The toy game's pictures, which the game with another turn keeps."""

from toy_game.render import render_ansi, render_rgb

__all__ = ["render_ansi", "render_rgb"]
