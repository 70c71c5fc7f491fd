"""Ray actors for the toolkit's parallel work: ``--backend ray`` (``--address`` to join a running cluster).

The process pools stay the default on one machine; Ray spreads the same work over a cluster (docs/distributed.md).
This module holds what every use shares: :func:`connect`, :class:`Actors` (replaced when lost) and :func:`run_jobs`,
and the games of the arena and of tournaments: :func:`run_tasks` plays game tasks
(:mod:`training.competition.tasks`: each has a ``play()`` method) on ``workers`` actors, each building its agents
once, as the pool's worker processes do; results come back in task order and are identical to a local run's for the
same seed. AlphaZero self-play on Ray builds on it (:mod:`training.ray_selfplay`).

A lost actor (its process killed, its node gone) is replaced by a new one and its job is run again: a game is
replayed whole. The run goes on; ``replaced`` counts the actors lost.

This module imports Ray (``pip install "awale_env[rllib]"``); callers import it only for ``--backend ray``.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from agents.extras import needs_extra

with needs_extra("--backend ray"):  # without the extra: one line saying what to install
    import ray
    from ray.exceptions import NodeDiedError, RayActorError, WorkerCrashedError

#: What ``ray.get`` raises when the actor running a call is gone.
LOST_ACTOR_ERRORS = (RayActorError, WorkerCrashedError, NodeDiedError)


def connect(address: str | None) -> bool:
    """Join the Ray cluster at ``address`` ("auto": the one started on this machine by ``ray start``), or, when
    ``address`` is None, start a Ray for this process (not whatever cluster ``ray start`` last left on this machine;
    a job submitted to a cluster still joins it through its ``RAY_ADDRESS``). Nothing if Ray is already
    initialized. True when this call initialized Ray (the caller shuts it down)."""
    if ray.is_initialized():
        return False
    ray.init(address=address or os.environ.get("RAY_ADDRESS") or "local", include_dashboard=False)
    return True


@ray.remote(num_cpus=1)
class TaskActor:
    """Plays game tasks (anything with a ``play()`` method: an arena game, a tournament game between programs); a
    task's agents are built on first use and kept in the actor, as in the pool's worker processes."""

    def play(self, task: Any) -> Any:
        return task.play()


class Actors:
    """``count`` actors made by ``make(index)``; :meth:`replace` swaps a lost one for a new one."""

    def __init__(self, make: Callable[[int], Any], count: int) -> None:
        self.make = make
        self.handles = [make(index) for index in range(count)]
        self.replaced = 0

    def __len__(self) -> int:
        return len(self.handles)

    def replace(self, index: int) -> None:
        ray.kill(self.handles[index], no_restart=True)  # it may be half alive (its node unreachable)
        self.handles[index] = self.make(index)
        self.replaced += 1

    def kill(self) -> None:
        for handle in self.handles:
            ray.kill(handle, no_restart=True)


def run_jobs(
    actors: Actors,
    call: Callable[[Any, Any], ray.ObjectRef],
    jobs: Sequence[Any],
    pinned: bool,
    done: Callable[[Any], None] | None = None,
) -> list[Any]:
    """Run every job as ``call(actor, job)`` and return the results in job order. ``pinned``: job i runs on actor i
    (the actor holds its state); otherwise each idle actor takes the next job. A job whose actor is lost runs again
    on its replacement; ``done(result)`` is called after each finished job."""
    results: list[Any] = [None] * len(jobs)
    pending: dict[ray.ObjectRef, tuple[int, int]] = {}
    waiting = deque(range(len(jobs)))

    def submit(job: int, actor: int) -> None:
        pending[call(actors.handles[actor], jobs[job])] = (job, actor)

    for actor in range(len(actors)):
        if waiting:
            submit(waiting.popleft(), actor)
    while pending:
        (ref,), _ = ray.wait(list(pending), num_returns=1)
        job, actor = pending.pop(ref)
        try:
            results[job] = ray.get(ref)
        except LOST_ACTOR_ERRORS:
            actors.replace(actor)
            submit(job, actor)
            continue
        if done is not None:
            done(results[job])
        if waiting and not pinned:
            submit(waiting.popleft(), actor)
    return results


def run_tasks(
    tasks: Sequence[Any],
    workers: int,
    address: str | None,
    done: Callable[[Any], None] | None = None,
) -> list[Any]:
    """Play game tasks (``task.play()``: :mod:`training.competition.tasks`) on ``workers`` Ray actors (at
    ``address``, or a Ray started here); results in task order, and ``done(result)`` as each game ends."""
    if workers < 1:
        raise ValueError(f"games on Ray are played on --workers actors: give at least 1, got {workers}")
    owns_ray = connect(address)
    actors = Actors(lambda _: TaskActor.remote(), min(workers, len(tasks)) or 1)
    try:
        return run_jobs(actors, lambda handle, task: handle.play.remote(task), tasks, pinned=False, done=done)
    finally:
        actors.kill()
        if owns_ray:
            ray.shutdown()
