"""The worker pool that plays game tasks (anything with a ``play()`` method and a ``label``:
:mod:`competition.tasks`, :mod:`competition.tournament`) in worker processes on this machine, or
on Ray actors (:mod:`competition.ray_backend`), results in task order whatever order they end in.

A worker process that dies (the out-of-memory killer, ``kill -9``) stops the pool at once with an
:class:`ArenaError` naming it and its game, rather than leaving it waiting for a game that will never come
(multiprocessing's Pool replaces it and waits forever). Ctrl-C reaches this process alone, which stops the workers;
the workers die with this process however it ends (``kill -9`` included: :mod:`competition.parent_death`).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection, wait
from typing import Any

from competition.parent_death import die_with_parent
from competition.programs import exit_status
from competition.progress import Clock, Progress

#: Where the games are played: worker processes on this machine, or Ray actors (competition.ray_backend).
BACKENDS = ("process", "ray")


class ArenaError(RuntimeError):
    """The games cannot go on: one of the pool's worker processes died (in the arena or a tournament)."""


class WorkerTraceback(Exception):
    """The traceback of an exception raised in a worker process: the ``__cause__`` of the one raised here."""


@contextmanager
def workers_ignore_interrupts() -> Iterator[None]:
    """Around starting worker processes: they start with Ctrl-C ignored (a setting a new process inherits and Python
    keeps), so that Ctrl-C, which a terminal sends to every process of the group, is handled by this process alone
    (which stops the workers) and no worker prints a traceback, not even one still starting. Only the main thread
    may change how signals are handled: from another thread the workers start as they are."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _serve(connection: Connection, parent: int) -> None:
    """A worker process: play each task received on ``connection`` and send back ``(result, None)``, or when the game
    raised ``(None, (pickled error or None, error as text, traceback))``; stop when the arena closes its end, and die
    with the arena's process ``parent`` however it ends (``kill -9`` too: :func:`die_with_parent`), which ends the
    game under way and, through their guards, its programs."""
    die_with_parent(parent)
    while True:
        try:
            task = connection.recv()
        except EOFError:
            return
        try:
            reply: tuple[Any, Any] = (task.play(), None)
        except Exception as error:
            try:
                pickled: bytes | None = pickle.dumps(error)
            except Exception:
                pickled = None
            reply = (None, (pickled, f"{type(error).__name__}: {error}", traceback.format_exc()))
        try:
            connection.send(reply)
        except OSError:
            return


def _exit_status(process: multiprocessing.process.BaseProcess) -> str:
    """How a dead worker process ended: its exit code, or the signal that killed it."""
    process.join(timeout=5)
    code = process.exitcode
    if code is None:
        return "exit code unknown"
    if code >= 0:
        return exit_status(code)
    oom = ", as by the out-of-memory killer" if -code == signal.SIGKILL else ""
    return f"exit code {code}: {exit_status(code)}{oom}"


class _Worker:
    """A worker process (started here) with this end of its pipe, and the task it plays (with its position)."""

    def __init__(self, context: Any, name: str) -> None:
        self.name = name
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, os.getpid()), daemon=True)
        self.process.start()
        theirs.close()  # its only copy left in the worker: the pipe ends (EOFError here) when the worker dies
        self.job: tuple[int, Any] | None = None

    def give(self, job: tuple[int, Any] | None) -> None:
        self.job = job
        if job is not None:
            try:
                self.connection.send(job[1])
            except OSError:
                pass  # it died: its end of the pipe is closed, which collect() reports

    def collect(self) -> tuple[int, Any]:
        """The position and result of the task it played; ArenaError if it died, the game's error if it raised."""
        assert self.job is not None
        position, task = self.job
        try:
            result, failure = self.connection.recv()
        except (EOFError, OSError):
            raise ArenaError(
                f"{self.name} worker process {self.process.pid} died ({_exit_status(self.process)}) during {task.label}"
            ) from None
        self.job = None
        if failure is not None:
            pickled, text, trace = failure
            try:
                error = pickle.loads(pickled)
            except Exception:
                error = RuntimeError(text)
            raise error from WorkerTraceback(trace)
        return position, result


def _run_in_processes(
    tasks: Sequence[Any], workers: int, finished: Callable[[Any], None], name: str = "arena"
) -> list[Any]:
    """Play ``tasks`` on ``workers`` worker processes, one task at a time each; results in task order, and
    ``finished(result)`` as each comes. The arena waits on the workers' pipes and on their process sentinels, so a
    worker that dies raises ArenaError at once (multiprocessing's Pool replaces it and waits forever for its game).
    Leaving, on an error or Ctrl-C, terminates every worker without waiting for the games under way; the workers
    leave Ctrl-C to this process."""
    context = multiprocessing.get_context("spawn")
    results: list[Any] = [None] * len(tasks)
    jobs = iter(enumerate(tasks))
    pool: list[_Worker] = []
    try:
        with workers_ignore_interrupts():
            for _ in range(min(workers, len(tasks))):
                pool.append(_Worker(context, name))
        for worker in pool:
            worker.give(next(jobs, None))
        while busy := [worker for worker in pool if worker.job is not None]:
            ready = set(wait([worker.connection for worker in busy] + [worker.process.sentinel for worker in busy]))
            for worker in busy:
                if worker.connection in ready or worker.process.sentinel in ready:
                    position, result = worker.collect()
                    results[position] = result
                    finished(result)
                    worker.give(next(jobs, None))
    finally:
        for worker in pool:
            worker.process.terminate()
        for worker in pool:
            worker.process.join(timeout=10)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.connection.close()
    return results


def run_tasks(
    tasks: Sequence[Any],
    workers: int = 1,
    progress: bool = True,
    backend: str = "process",
    address: str | None = None,
    finished: Callable[[Any], None] | None = None,
    name: str = "arena",
    replayed: Callable[[Any], None] | None = None,
    runtime_env: str | None = None,
) -> list[Any]:
    """Play every task (``task.play()``), in ``workers`` processes if more than one, or with ``backend="ray"`` on
    ``workers`` Ray actors of the cluster at ``address`` with the runtime environment ``runtime_env`` (a JSON object
    or a JSON/YAML file: :mod:`competition.ray_backend`); results in task order, ``finished(result)`` called as each
    game ends (in the order they end) and, on Ray, ``replayed(task)`` for a game played again after its actor was
    lost. ArenaError if a worker process dies (``name`` says whose: the arena's, a tournament's)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if runtime_env is not None and backend != "ray":
        raise ValueError("a runtime environment (--runtime-env) is for backend='ray'")
    # the first game of each worker carries its start: the time left is estimated from the games after them
    bar = Progress(name, len(tasks), 0, "game", Clock(), progress, warmup=workers)

    def done(result: Any) -> None:
        if finished is not None:
            with bar.above():  # what it prints (a tournament's faults) lands above the bar
                finished(result)
        bar.update(1)

    try:
        if backend == "ray":
            from competition.ray_backend import run_tasks as run_tasks_on_ray  # imports Ray: only for this backend

            return run_tasks_on_ray(tasks, workers, address, done, replayed, runtime_env, f"{name} actor")
        if workers <= 1:
            results = []
            for task in tasks:
                results.append(task.play())
                done(results[-1])
            return results
        return _run_in_processes(tasks, workers, done, name)
    finally:
        bar.close()
