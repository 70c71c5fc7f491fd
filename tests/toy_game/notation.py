"""How the toy game's moves are written: the mover's pits are ``A``, ``B``, ``C`` from left to right (actions 0-2)."""

from __future__ import annotations

from numbers import Integral

from awale_env.errors import IllegalMoveError

LETTERS = "ABC"


def format_move(action: int) -> str:
    """``"A"``, ``"B"`` or ``"C"`` for actions 0, 1, 2."""
    if isinstance(action, bool) or not isinstance(action, Integral) or not 0 <= action < len(LETTERS):
        raise IllegalMoveError(f"action {action!r} out of range: toy actions are 0-{len(LETTERS) - 1}")
    return LETTERS[action]


def parse_move(text: str) -> int:
    """The action of ``"A"``, ``"B"`` or ``"C"`` (surrounding spaces allowed); IllegalMoveError for anything else."""
    move = text.strip() if isinstance(text, str) else ""
    if len(move) != 1 or move not in LETTERS:
        raise IllegalMoveError(f"malformed move {text!r}: toy moves are the letters {', '.join(LETTERS)}")
    return LETTERS.index(move)
