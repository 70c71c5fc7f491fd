"""The environment of a fresh process that compiles the shared kernels for a game registered from the tests, in a
numba cache of its own (why its own: ``SHARED_KERNEL_CHECKS`` in tests/conftest.py).

The cache starts as a copy of the shared kernels' cache: what the test game does not change (the random numbers, the
other games' kernels the agents load) is loaded, not compiled again, and only the test game's own specialisations
are compiled (about 15 CPU-s less). They compile with LLVM's optimisation off (``NUMBA_OPT=0``, about 17 CPU-s less
for each test game): numba types and lowers the same code, and a test that checks what the kernels compute for the
game, not how fast, loses nothing.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from conftest import SHARED_CACHES
from numba.core.caching import UserProvidedCacheLocator

ROOT = Path(__file__).resolve().parent.parent


def seed_cache(folder: Path) -> None:
    """Copy the shared packages' numba cache (indexes and data, as they are in each ``__pycache__``) into ``folder``,
    where a process with ``NUMBA_CACHE_DIR=folder`` looks for them."""
    for package in SHARED_CACHES:
        for index in (ROOT / package).rglob("__pycache__/*.nbi"):
            source = index.parent.parent / "source.py"  # the locator uses the source file's folder only
            target = folder / UserProvidedCacheLocator.get_suitable_cache_subpath(str(source))
            target.mkdir(parents=True, exist_ok=True)
            for file in (index, *index.parent.glob(index.stem + ".*.nbc")):
                shutil.copy2(file, target / file.name)


def own_cache_env(folder: Path) -> dict[str, str]:
    """This process's environment for a fresh process whose numba cache is ``folder``, seeded with the shared cache
    (:func:`seed_cache`), compiling unoptimised."""
    seed_cache(folder)
    return {**os.environ, "NUMBA_CACHE_DIR": str(folder), "NUMBA_OPT": "0"}
