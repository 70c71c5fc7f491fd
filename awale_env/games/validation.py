"""The checks every game's State makes on its input (``initial``, ``from_position``, ``from_dict``), in one place so
that every game refuses the same bad values with the same ValueError naming the field and what it allows.

A value that passes fits the compiled kernels: counts are non-negative ints, and plies and ply limits stay below
:data:`MAX_PLY`, so the kernels' int64 ply counters never overflow (a limit beyond it would type-check in Python and
fail inside numba, or raise OverflowError, at the first move).
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral
from typing import Any

#: A State's ``max_plies`` as the compiled kernels of every game take it when there is no limit.
NO_LIMIT = 0
#: The largest ply and ply limit a State takes: far beyond any game, well inside the kernels' int64 counters.
MAX_PLY = 2**62


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer (a Python or NumPy one), not a bool."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an int in ``low..high`` (no upper bound for None), or ValueError naming ``name`` and the range."""
    if not is_int(value) or value < low or (high is not None and value > high):
        bound = f"an integer {low}-{high}" if high is not None else f"an integer >= {low}"
        raise ValueError(f"{name} must be {bound}, got {value!r}")
    return int(value)


def check_counts(name: str, values: Any, length: int, unit: str = "counts") -> list[int]:
    """``values`` (any iterable but a string) as ``length`` non-negative ints, or ValueError naming ``name``, the
    entry at fault and what is allowed. ``unit`` names the entries in the message (``"pit counts"``)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ValueError(f"{name} must be a sequence of {length} {unit}, got {values!r}")
    values = list(values)
    if len(values) != length:
        raise ValueError(f"{name} must hold {length} {unit}, got {len(values)}")
    for i, v in enumerate(values):
        if not is_int(v):
            raise ValueError(f"{name}[{i}] must be an integer, got {v!r}")
        if v < 0:
            raise ValueError(f"{name}[{i}] must not be negative, got {v}")
    return [int(v) for v in values]


def check_ply(ply: Any) -> int:
    """A position's ply: an int ``0..MAX_PLY``."""
    return check_int("ply", ply, 0, MAX_PLY)


def check_max_plies(max_plies: Any) -> int:
    """A ply limit as the kernels take it: ``NO_LIMIT`` for None, else an int ``1..MAX_PLY``."""
    if max_plies is None:
        return NO_LIMIT
    if not is_int(max_plies) or not 1 <= max_plies <= MAX_PLY:
        raise ValueError(f"max_plies must be a positive integer up to 2**62, or None for no limit, got {max_plies!r}")
    return int(max_plies)


def check_seed(seed: Any) -> int | None:
    """A seed for what a game leaves to chance: None (fresh entropy) or a non-negative int."""
    return None if seed is None else check_int("seed", seed, 0)


def digit_index(text: Any, below: int) -> int | None:
    """The number a string of ASCII digits spells (white space around it allowed) when it is below ``below``; None
    for anything else, however many digits it has (``int()`` refuses very long ones with a ValueError)."""
    digits = text.strip() if isinstance(text, str) else ""
    if not (digits.isascii() and digits.isdigit()):
        return None
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(below)) or int(digits) >= below:
        return None
    return int(digits)
