"""Load (on a fresh clone: compile) the numba kernels the tests use, once, before parallel test workers start.

With ``pytest -n`` every worker would otherwise compile the same kernels at the same time on a fresh clone (twice the
work, and a timed test may meet a compilation its serial order had done earlier). tests/conftest.py runs
:func:`warm` in pytest's controller process when tests run in parallel, one game per process on as many processes as
the run has workers (compiling is most of a fresh clone's minutes before the first test, and one process compiles on
one core); ``python tests/warm_kernels.py`` runs it alone. With a warm cache it costs a few seconds.
"""

from __future__ import annotations

import multiprocessing
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import TextIO

import numpy as np


def warm_game(name: str) -> str:
    """Play a little of the game ``name`` through its State, compiled playouts, vector env (in self-play and against
    its random opponent) and the search agents; what it loaded and how long it took."""
    from numba.core.errors import NumbaIRAssumptionWarning

    import agents
    from awale_env.games import GAMES
    from awale_env.kernels.rng import make_rng
    from awale_env.vector import AwaleVectorEnv

    warnings.simplefilter("ignore", NumbaIRAssumptionWarning)  # numba's pedantic self-check: pages of it per game
    began = time.perf_counter()
    game = GAMES[name]
    state = game.initial()
    state.play(state.legal_actions()[0]).observation_tensor(0)
    try:
        game.search.random_playouts(state, 2, make_rng(0))
    except NotImplementedError:  # a game without search kernels
        return f"rules only, {time.perf_counter() - began:.1f} s"
    for opponent in (None, "random"):
        envs = AwaleVectorEnv(4, opponent=opponent, game=game.name)
        envs.reset(seed=0)
        envs.step(np.argmax(envs.action_masks(), axis=1))
    for spec in ("alphabeta:depth=2", "mcts:simulations=16"):
        agents.make(spec, seed=0).act(state)
    return f"rules, vector env and searches, {time.perf_counter() - began:.1f} s"


def named_warm_game(name: str) -> tuple[str, str]:
    """``name`` and what :func:`warm_game` says of it (a pool's results come back as they end)."""
    return name, warm_game(name)


def lock_numba_cache(lock_path: str) -> None:
    """Make this process read and write numba's cache indexes under the file lock ``lock_path``.

    numba reads a function's cache index, adds an entry and writes it back with no lock between processes (numba
    issue #10128): two processes compiling two signatures of one function at once (the shared searches, for two
    games) could lose an entry, or give both the same data file. Holding one lock around every index read and write
    makes each a step of its own; the compiling itself, outside it, runs in parallel.
    """
    from filelock import FileLock
    from numba.core.caching import IndexDataCacheFile

    lock = FileLock(lock_path)
    for name in ("load", "save"):
        unlocked = getattr(IndexDataCacheFile, name)

        def locked(self, *args, _unlocked=unlocked):
            with lock:
                return _unlocked(self, *args)

        setattr(IndexDataCacheFile, name, locked)


def compile_rounds(names: list[str]) -> tuple[list[str], list[str]]:
    """``names`` in two rounds: first one game per search env class, then the games sharing an env class with one
    of those (the editions with transparent seeds), whose compiled searches and stepper the first round has cached:
    two processes warming them at once would both compile the same kernels."""
    from awale_env.games import GAMES

    first, then, env_types = [], [], set()
    for name in names:
        try:
            env_type = GAMES[name].search.env_type
        except NotImplementedError:  # a game without search kernels
            env_type = name
        (then if env_type in env_types else first).append(name)
        env_types.add(env_type)
    return first, then


def warm(out: TextIO | None = sys.stderr, processes: int = 1) -> float:
    """Warm every registered game (:func:`warm_game`) on ``processes`` processes, saying on ``out`` (None: nothing)
    how long each game took as it ends; the seconds it took."""

    def say(text: str) -> None:
        if out is not None:
            print(text, file=out, flush=True)

    from awale_env.games import GAMES

    start = time.perf_counter()
    names = list(GAMES)
    processes = max(1, min(processes, len(names)))
    say(f"tests/warm_kernels.py: loading the numba kernels of {len(names)} games on {processes} process(es) before the "
        "test workers start (compiling them on a fresh clone: minutes)")  # fmt: skip
    if processes == 1:
        for name in names:
            say(f"  {name}: {warm_game(name)}")
    else:
        with tempfile.TemporaryDirectory() as folder:
            lock_path = str(Path(folder) / "numba-cache.lock")
            spawn = multiprocessing.get_context("spawn")
            with spawn.Pool(processes, lock_numba_cache, (lock_path,)) as pool:  # its end terminates the workers
                for games in compile_rounds(names):
                    for name, text in pool.imap_unordered(named_warm_game, games):
                        say(f"  {name}: {text}")
    seconds = time.perf_counter() - start
    say(f"tests/warm_kernels.py: kernels loaded in {seconds:.1f} s")
    return seconds


if __name__ == "__main__":
    warm()
