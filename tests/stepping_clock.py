"""A clock for the tests of time budgets: ``perf_counter()`` moves on by a fixed step at each reading, so a timed
search reads the same times on a quiet and on a busy machine. A test puts it in place of the ``time`` module that an
agent's module reads (:func:`use_stepping_clock`) and checks that the search keeps its budget by the clock it reads,
which no load can break; how fast a search is on real time is for the benchmarks (``benchmarks/``)."""

from __future__ import annotations

import types
from typing import Any


class SteppingClock:
    """``perf_counter()``: ``step`` seconds more at every reading; ``readings`` counts them."""

    def __init__(self, step: float) -> None:
        self.step, self.now, self.readings = step, 0.0, 0

    def perf_counter(self) -> float:
        self.now += self.step
        self.readings += 1
        return self.now


def use_stepping_clock(monkeypatch: Any, step: float, *places: tuple[Any, str]) -> SteppingClock:
    """One stepping clock in place of the time module at each ``(module, name)`` of ``places`` (``name``: what the
    module calls the ``time`` module it imported) for the test."""
    clock = SteppingClock(step)
    for module, name in places:
        monkeypatch.setattr(module, name, types.SimpleNamespace(perf_counter=clock.perf_counter))
    return clock
