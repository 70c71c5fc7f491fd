"""tests/warm_kernels.py compiles the kernels on several processes at once: under its lock on numba's cache indexes,
every signature each process compiled is in the cache afterwards, and a later process loads them all."""

from __future__ import annotations

import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor

from warm_kernels import lock_numba_cache

#: Cached functions, each compiled for one signature per process; many, so that the processes' index writes
#: interleave.
MODULE = (
    "from numba import njit\n"
    + "".join(f"\n\n@njit(cache=True)\ndef plus_{number}(x):\n    return x + x + {number}\n" for number in range(12))
    + "\n\nFUNCTIONS = ["
    + ", ".join(f"plus_{number}" for number in range(12))
    + "]\n"
)
#: One argument per process: each compiles every function for its own type.
ARGUMENTS = ("1", "1.5", "1j", "True")


def compile_all(folder: str, argument: str) -> int:
    """Compile every function of the module in ``folder`` for the type of ``argument``; the compilations (cache
    misses)."""
    sys.path.insert(0, folder)
    import cached_functions

    for function in cached_functions.FUNCTIONS:
        function(eval(argument))
    return sum(sum(function.stats.cache_misses.values()) for function in cached_functions.FUNCTIONS)


def test_processes_compiling_one_function_at_once_keep_every_signature_in_the_cache(tmp_path, monkeypatch):
    (tmp_path / "cached_functions.py").write_text(MODULE)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    spawn = multiprocessing.get_context("spawn")
    lock = str(tmp_path / "lock")
    with ProcessPoolExecutor(len(ARGUMENTS), spawn, initializer=lock_numba_cache, initargs=(lock,)) as pool:
        compiled = list(pool.map(compile_all, [str(tmp_path)] * len(ARGUMENTS), ARGUMENTS))
    assert compiled == [12] * len(ARGUMENTS)  # a fresh cache: each process compiled its own signature
    with ProcessPoolExecutor(1, spawn) as pool:  # a process after them loads every signature, compiling none
        assert list(pool.map(compile_all, [str(tmp_path)] * len(ARGUMENTS), ARGUMENTS)) == [0] * len(ARGUMENTS)


def test_games_with_the_same_search_kernels_share_one_env_class_and_are_warmed_after_it():
    """The searches and the stepper compile once per env class: games whose kernels are all the same functions
    (the editions with transparent seeds) share one class, so a fresh install compiles them once, and the preload
    warms one game per class in parallel before the games that share it."""
    from dataclasses import fields

    from warm_kernels import compile_rounds

    from awale_env.games import GAMES
    from awale_env.kernels.search import SearchKernels

    kernels = {}
    for name, game in GAMES.items():
        try:
            kernels[name] = game.search
        except NotImplementedError:
            continue
    compiled = [
        f.name for f in fields(SearchKernels) if hasattr(getattr(next(iter(kernels.values())), f.name), "py_func")
    ]
    same = {(a, b) for a in kernels for b in kernels if a < b
            and all(getattr(kernels[a], f) is getattr(kernels[b], f) for f in compiled)}  # fmt: skip
    assert same, "no two games share their kernels: nothing to check"
    for a, b in same:
        assert kernels[a].env_type is kernels[b].env_type, (a, b)
    first, then = compile_rounds(list(GAMES))
    assert sorted(first + then) == sorted(GAMES)
    first_types = [kernels[name].env_type for name in first if name in kernels]
    assert len(set(first_types)) == len(first_types)
    assert all(kernels[name].env_type in first_types for name in then)
