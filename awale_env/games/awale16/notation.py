"""Move notation ``NC`` (rule 5): hole number 1-16 and colour R or B, e.g. ``14B``; action ``2 * (N - 1) + c``."""

from __future__ import annotations

import re
from numbers import Integral

from awale_env.errors import IllegalMoveError
from awale_env.games.awale16.kernels import NUM_ACTIONS

_MOVE = re.compile(r"(1[0-6]|[1-9])([RBrb])")
_COLOURS = "RB"


def parse_move(text: str) -> int:
    """The action index of a move string. Lower-case colours are accepted; any other spelling is an error."""
    match = _MOVE.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise IllegalMoveError(
            f"malformed move {text!r}: expected a hole number 1-16 followed by R or B, e.g. '14B' or '3r'"
        )
    return 2 * (int(match.group(1)) - 1) + _COLOURS.index(match.group(2).upper())


def format_move(action: int) -> str:
    """The move string of an action index (0 -> '1R', 27 -> '14B')."""
    if isinstance(action, bool) or not isinstance(action, Integral) or not 0 <= action < NUM_ACTIONS:
        raise IllegalMoveError(f"action {action!r} out of range: actions are integers 0-{NUM_ACTIONS - 1}")
    return f"{(action >> 1) + 1}{_COLOURS[action & 1]}"
