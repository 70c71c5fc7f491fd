"""Ray actors for AlphaZero self-play and the arena: ``--backend ray`` (``--address`` to join a running cluster).

The process pool stays the default on one machine; Ray spreads the same work over a cluster (docs/distributed.md).
Two entry points, called by the trainers:

* :class:`RaySelfPlayPool` has the interface of :class:`training.alphazero.SelfPlayPool` (``start(net)``,
  ``collect()``, ``close()``), so a run on Ray keeps the same metrics, checkpoints and gating. Each of the
  ``workers`` actors holds a network and its ``games_per_worker`` games; every generation it receives the new
  weights (one copy in Ray's object store, shared by all actors) and plays ``moves_per_generation`` moves.
* :func:`run_tasks` plays arena games (:class:`training.arena.GameTask`) on ``workers`` actors, each building its
  agents once, as the arena's worker processes do; results come back in task order and are identical to a local
  run's for the same seed.

A lost actor (its process killed, its node gone) is replaced by a new one and its job is run again: an arena game is
replayed whole; a self-play worker restarts its games from new openings seeded by the generation (as a resumed run
does: games in flight are not part of a checkpoint) and plays the generation again with the same weights. The run
goes on; ``replaced`` counts the actors lost.

This module imports Ray (``pip install "awale_env[rllib]"``); the trainers import it only for ``--backend ray``.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import torch

from agents.alphazero.network import build_network
from agents.alphazero.selfplay import Samples
from agents.extras import needs_extra
from training import arena
from training.alphazero import AlphaZeroConfig, load_weights, play_generation, self_play_games, weights_bytes

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
class SelfPlayActor:
    """One self-play worker: a network and the games of worker ``worker``, started at ``start_generation``."""

    def __init__(self, config: dict[str, Any], worker: int, start_generation: int) -> None:
        torch.set_num_threads(1)
        self.config = AlphaZeroConfig(**{**config, "references": tuple(config["references"])})
        self.net = build_network(self.config.network_config())
        self.games = self_play_games(self.config, worker, start_generation)

    def play(self, weights: bytes) -> tuple[Samples, dict[str, float]]:
        """Load the generation's weights and play its moves; the finished games' samples and the stats."""
        load_weights(self.net, weights)
        return play_generation(self.games, self.net, self.config.moves_per_generation)


@ray.remote(num_cpus=1)
class ArenaActor:
    """Plays arena tasks; its agents are built on first use and kept (:func:`training.arena.run_task`)."""

    def play(self, task: arena.GameTask) -> arena.GameResult:
        return arena.run_task(task)


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


class RaySelfPlayPool:
    """AlphaZero self-play on ``config.workers`` Ray actors (see the module docstring); the interface of
    :class:`training.alphazero.SelfPlayPool`. Joins ``config.address`` (or starts Ray here)."""

    def __init__(self, config: AlphaZeroConfig, start_generation: int) -> None:
        self.config = config
        self.generation = start_generation
        self.owns_ray = connect(config.address)
        settings = config.to_dict()
        self.actors = Actors(lambda w: SelfPlayActor.remote(settings, w, self.generation), config.workers)
        self.weights: ray.ObjectRef | None = None

    @property
    def replaced(self) -> int:
        """Actors lost and replaced so far."""
        return self.actors.replaced

    def start(self, net: torch.nn.Module) -> None:
        """Start a generation of self-play with ``net``'s current weights."""
        self.weights = ray.put(weights_bytes(net))
        self.calls = {w: handle.play.remote(self.weights) for w, handle in enumerate(self.actors.handles)}

    def collect(self) -> tuple[Samples, dict[str, float]]:
        """Wait for the generation; samples in worker order and summed stats, as the process pool gives them."""
        calls = self.calls

        def call(handle: Any, worker: int) -> ray.ObjectRef:
            first = calls.pop(worker, None)  # the call started by start(); a replacement actor gets a new one
            return first if first is not None else handle.play.remote(self.weights)

        parts = run_jobs(self.actors, call, range(len(self.actors)), pinned=True)
        self.generation += 1
        total = {key: sum(stats[key] for _, stats in parts) for key in parts[0][1]}
        total["seconds"] = max(stats["seconds"] for _, stats in parts)
        return Samples.concatenate([samples for samples, _ in parts], self.config.game), total

    def close(self, wait: bool = True) -> None:
        """End the actors (and Ray, if this pool started it); ``wait`` is the process pool's and means nothing
        here: an actor's generation is of no use once the run stops."""
        self.actors.kill()
        if self.owns_ray:
            ray.shutdown()


def run_tasks(
    tasks: list[arena.GameTask],
    workers: int,
    address: str | None,
    done: Callable[[arena.GameResult], None] | None = None,
) -> list[arena.GameResult]:
    """Play arena tasks on ``workers`` Ray actors (at ``address``, or a Ray started here); results in task order, and
    ``done(result)`` as each game ends."""
    if workers < 1:
        raise ValueError(f"the arena on Ray plays on --workers actors: give at least 1, got {workers}")
    owns_ray = connect(address)
    actors = Actors(lambda _: ArenaActor.remote(), min(workers, len(tasks)) or 1)
    try:
        return run_jobs(actors, lambda handle, task: handle.play.remote(task), tasks, pinned=False, done=done)
    finally:
        actors.kill()
        if owns_ray:
            ray.shutdown()
