"""Random numbers for compiled code: a xorshift64 generator whose state is a ``uint64[1]`` array, identical compiled
or not (``NUMBA_DISABLE_JIT=1``). Every game's playouts, the batch kernels' random opponents and the searches draw
from it."""

from __future__ import annotations

import numpy as np
from numba import njit

_MASK64 = (1 << 64) - 1


def make_rng(seed: int) -> np.ndarray:
    """A xorshift64 state for ``seed`` (any int), scrambled by splitmix64 so that nearby seeds differ."""
    z = (int(seed) + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    z ^= z >> 31
    return np.array([z or 1], dtype=np.uint64)


@njit(cache=True, error_model="numpy")
def next_random(rng):
    """Advance the xorshift64 state and return its new value."""
    x = rng[0]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    rng[0] = x
    return x


@njit(cache=True, error_model="numpy")
def random_below(rng, n):
    """A random integer in ``[0, n)``, from the high 32 bits by a multiply instead of a slow division."""
    return int(((next_random(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))
