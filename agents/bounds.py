"""The bounds of a numeric setting (:class:`Bounds`), in one place for every layer that declares settings: the
agents' (:class:`agents.alphazero.search_config.SearchConfig`) and the trainers' options (:mod:`training.options`,
which shows them in ``--help``). What a value breaks and what a setting allows are worded here once, so that a
search setting and a trainer's option are refused and described alike.
"""

from __future__ import annotations

import math
from dataclasses import field, fields
from typing import Any, NamedTuple

#: The key of a dataclass field's metadata that holds its :class:`Bounds` (:func:`setting`).
BOUNDS = "bounds"


class Bounds(NamedTuple):
    """What a numeric setting allows: from ``least`` (excluded when ``open``) to ``most``."""

    least: float
    most: float = math.inf
    open: bool = False

    def text(self) -> str:
        """What a float setting allows: ``a finite number > 0``, ``in [0, 1]``."""
        if self.most == math.inf:
            return f"a finite number {'>' if self.open else '>='} {_number(self.least)}"
        return f"in {'(' if self.open else '['}{_number(self.least)}, {_number(self.most)}]"

    def words(self, integer: bool) -> str:
        """What the setting allows, as ``--help`` says it after the default: ``from 1 to 4096``, ``at least 0``, or
        for a float :meth:`text`."""
        if not integer:
            return self.text()
        return f"at least {self.least}" if self.most == math.inf else f"from {self.least} to {self.most}"

    def refusal(self, value: Any, integer: bool) -> str | None:
        """What ``value`` breaks (``must be at most 4,096``), None if the setting allows it; a float must be finite,
        an integer must be an int (a bool is neither)."""
        if integer:
            if isinstance(value, bool) or not isinstance(value, int):
                return f"must be an integer {self.words(True)}"
            if value > self.most:
                return f"must be at most {self.most:,}"
            if value < self.least:
                return {0: "must not be negative", 1: "must be a positive integer"}.get(
                    self.least, f"must be at least {self.least:,}"
                )
            return None
        number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if number and self.least <= value <= self.most and not (self.open and value == self.least):
            return None
        return f"must be {self.text()}"


def _number(value: float) -> str:
    """``value`` as a bound is written: ``1000000``, not ``1e+06``."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def setting(default: Any, bounds: Bounds | None = None) -> Any:
    """A dataclass field of ``default`` and the ``bounds`` it allows (read by :func:`field_bounds`)."""
    return field(default=default, metadata={BOUNDS: bounds})


def field_bounds(config_type: type) -> dict[str, Bounds]:
    """The :class:`Bounds` of each field of the dataclass ``config_type`` declared by :func:`setting` with some."""
    return {item.name: item.metadata[BOUNDS] for item in fields(config_type) if item.metadata.get(BOUNDS) is not None}
