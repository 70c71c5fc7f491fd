"""The agents the page plays against: which specs a client may ask for, and the worker processes they think in
(:mod:`awale_apps.web.thinker` is what runs there)."""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from agents import AGENTS, AgentSpecError, parse_spec
from awale_apps.web import thinker
from competition.arena import workers_ignore_interrupts

#: Offered on the page; any other spec can be typed in.
PRESETS = (
    "random",
    "greedy",
    "alphabeta:depth=6",
    "alphabeta:time=2",
    "mcts:simulations=2000",
    "ppo:pretrained",
    "alphazero:pretrained",
)

#: Upper bounds on agent parameters that size memory up front (for a client's spec; ``time`` is bounded by the cap).
PARAMETER_LIMITS = {
    ("alphabeta", "table_bits"): 20,  # 2**20 entries, about 16 MB per game
    ("alphazero", "simulations"): 50_000,  # the tree is allocated for every simulation, about 20 MB at 50,000
    ("alphazero", "leaves"): 64,
}

#: Extra seconds a worker gets beyond the think cap before the server gives up on it: compiling an agent's kernels on
#: its first use after a fresh install (numba caches them), and moves of other games queued on the same worker.
THINK_GRACE_SECONDS = 120.0
#: Building an agent may wait for the worker's warm-up (compiling the search kernels on a fresh install takes about a
#: minute) and load torch and a network.
PREPARE_SECONDS = 300.0


def check_spec(spec: str, max_think_seconds: float, trusted: bool) -> str:
    """The spec to build, or AgentSpecError when it asks for more than the server allows.

    The rest of the spec (names, types, ranges) is checked by ``agents.make`` when the worker builds the agent.
    ``path=`` would let a page make the server open files (a PyTorch checkpoint can run code), so only the
    operator's presets (``awale serve --preset``) may use it.
    """
    name, kwargs = parse_spec(spec)
    for key, value in kwargs.items():
        if key == "path" and not trusted:
            raise AgentSpecError(
                f"{name}: path= is refused here (the page may not open files on the server); use {name}:pretrained, "
                f"or start the server with --preset '{spec.strip()}' to offer that checkpoint"
            )
        kind = AGENTS[name].params.get(key, (str, ""))[0]
        if kind not in (int, float) or value is True:
            continue
        try:
            number = kind(value)
        except ValueError:
            continue  # agents.make names the bad value
        limit = max_think_seconds if key == "time" else PARAMETER_LIMITS.get((name, key))
        if limit is not None and number > limit:
            unit = " seconds per move" if key == "time" else ""
            raise AgentSpecError(f"{name}: {key}={value} is over this server's limit of {limit:g}{unit}")
    return spec.strip()


class AgentUnavailable(Exception):
    """The worker did not answer in time or died; it has been replaced."""


def processes_of(executor: ProcessPoolExecutor) -> list[Any]:
    """The processes of ``executor`` (the API offers no handle on them: CPython keeps them by PID until shutdown)."""
    return list((getattr(executor, "_processes", None) or {}).values())


class Thinkers:
    """One single-process executor per worker: a game always goes to the same worker, where its agent lives.
    ``shutdown_seconds``: how long :meth:`shutdown` lets a search under way finish before it kills the worker."""

    def __init__(self, workers: int, shutdown_seconds: float = 10.0) -> None:
        self._context = multiprocessing.get_context("spawn")  # no fork of a process running threads
        self._executors = [self._new_executor() for _ in range(workers)]
        #: The processes of executors replaced after a timeout or a crash, which may still be finishing their task.
        self._retired: list[multiprocessing.Process] = []
        self._shutdown_seconds = shutdown_seconds
        self._next = 0

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=1, mp_context=self._context)

    def _submit(self, worker: int, function: Callable[..., Any], *args: Any) -> Future[Any]:
        """``function(*args)`` in the worker, whose process, if this starts it, leaves Ctrl-C to the server."""
        with workers_ignore_interrupts():
            return self._executors[worker].submit(function, *args)

    @property
    def count(self) -> int:
        """The number of workers."""
        return len(self._executors)

    def assign(self) -> int:
        """The worker of a new game (round robin)."""
        self._next = (self._next + 1) % len(self._executors)
        return self._next

    def warm_up(self) -> None:
        for worker in range(self.count):
            self._submit(worker, thinker.warm_up)

    async def run(self, worker: int, timeout: float, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` in the worker; AgentUnavailable (and a fresh worker) after ``timeout`` seconds."""
        future = asyncio.wrap_future(self._submit(worker, function, *args))
        try:
            return await asyncio.wait_for(future, timeout)
        except (asyncio.TimeoutError, BrokenProcessPool) as error:
            # The stuck process finishes its search and exits (executors cannot kill a running task), or is killed by
            # shutdown().
            self._retired = [process for process in self._retired if process.is_alive()]  # a long server: no pile
            self._retired.extend(processes_of(self._executors[worker]))
            self._executors[worker].shutdown(wait=False)
            self._executors[worker] = self._new_executor()
            what = f"did not answer within {timeout:g} s" if isinstance(error, asyncio.TimeoutError) else "crashed"
            raise AgentUnavailable(f"the opponent's worker process {what}; it was restarted") from None

    def forget(self, worker: int, game_id: str) -> None:
        try:
            self._submit(worker, thinker.forget, game_id)
        except (BrokenProcessPool, RuntimeError):
            pass  # the worker is gone, and the game's agent with it

    def shutdown(self) -> None:
        """Stop the workers: a search under way may finish within ``shutdown_seconds`` (its time is capped), so the
        processes exit cleanly; a worker still busy then (compiling on a loaded machine, or stuck) is killed, so that
        Ctrl-C always ends the server."""
        processes = [*self._retired, *(process for executor in self._executors for process in processes_of(executor))]
        for executor in self._executors:
            executor.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + self._shutdown_seconds
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
        for executor in self._executors:
            executor.shutdown(wait=True)  # its manager thread, now that its process has ended
