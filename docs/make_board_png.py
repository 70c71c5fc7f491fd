"""Draw docs/board.png, the README's picture, with the project's own renderer: the position after twelve plies of
alpha-beta (depth 4) against MCTS (2,000 simulations), the last move (6R, a capture) ringed.

Usage: python docs/make_board_png.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from awale_env import State
from awale_env.games.awale16.render import render_rgb

MOVES = "1R 14B 11B 8B 5B 2R 15B 4B 9B 14B 7R 6R".split()
OUT = Path(__file__).with_name("board.png")


def position() -> tuple[State, int]:
    """The position drawn and the action that led to it."""
    state = State.initial()
    for move in MOVES:
        last = state.to_action(move)
        state = state.play(last)
    return state, last


def main() -> None:
    Image.fromarray(render_rgb(*position())).quantize(32).save(OUT, optimize=True)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
