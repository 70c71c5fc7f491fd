"""Move notation of the editions with transparent seeds: hole number 1-16, then ``R``, ``B``, ``TR`` or ``TB``
(``3R``, ``12TB``; lower case accepted, ``12tb``); action ``4 * (N - 1) + k``, k = 0 R, 1 B, 2 TR, 3 TB."""

from __future__ import annotations

import re
from numbers import Integral

from awale_env.errors import IllegalMoveError
from awale_env.games.editions.kernels import ACTIONS_PER_HOLE, NUM_ACTIONS

#: What each action of a hole takes, in action order.
KINDS = ("R", "B", "TR", "TB")
_MOVE = re.compile(r"(1[0-6]|[1-9])(R|B|TR|TB)", re.IGNORECASE)


def parse_move(text: str) -> int:
    """The action index of a move string (any letter case); IllegalMoveError for any other spelling."""
    match = _MOVE.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise IllegalMoveError(
            f"malformed move {text!r}: expected a hole number 1-16 followed by R, B, TR or TB, e.g. '3R' or '12TB'"
        )
    return ACTIONS_PER_HOLE * (int(match.group(1)) - 1) + KINDS.index(match.group(2).upper())


def format_move(action: int) -> str:
    """The move string of an action index (0 -> '1R', 11 -> '3TB')."""
    if isinstance(action, bool) or not isinstance(action, Integral) or not 0 <= action < NUM_ACTIONS:
        raise IllegalMoveError(f"action {action!r} out of range: actions are integers 0-{NUM_ACTIONS - 1}")
    hole, kind = divmod(int(action), ACTIONS_PER_HOLE)
    return f"{hole + 1}{KINDS[kind]}"
