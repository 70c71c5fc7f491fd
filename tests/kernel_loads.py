"""How many compiled kernels a process has loaded from numba's cache or compiled so far: a test reads it before and
after a timed move to check that the move loaded or compiled none (whatever the machine's load, unlike its time)."""

from __future__ import annotations

import sys

from numba.core.registry import CPUDispatcher


def kernels_loaded() -> int:
    """Cache hits and misses (loads and compiles) of every compiled function of the toolkit's imported modules."""
    return sum(
        sum(dispatcher.stats.cache_hits.values()) + sum(dispatcher.stats.cache_misses.values())
        for name, module in list(sys.modules.items())
        if name.split(".")[0] in ("agents", "awale_env")
        for dispatcher in vars(module).values()
        if isinstance(dispatcher, CPUDispatcher)
    )
