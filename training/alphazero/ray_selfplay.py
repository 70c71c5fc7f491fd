"""AlphaZero self-play on Ray actors (``awale train alphazero --backend ray``): :class:`RaySelfPlayPool` has the
interface of :class:`training.alphazero.selfplay_pool.SelfPlayPool` (``start(net)``, ``collect()``, ``close()``), so a
run on Ray keeps the same metrics, checkpoints and gating. Each of the ``workers`` actors holds a network and its
``games_per_worker`` games; every generation it receives the new weights (one copy in Ray's object store, shared by
all actors) and plays ``moves_per_generation`` moves. A lost actor is replaced
(:class:`competition.ray_backend.Actors`): the new one restarts its games from new openings seeded by the generation
(as a resumed run does: games in flight are
not part of a checkpoint) and plays the generation again with the same weights; the run says so in one line and
counts it (``actors_replaced``, ``games_restarted``: columns of ``metrics.csv``). ``config.runtime_env``
(``--runtime-env``) is the runtime environment of the Ray this pool starts or joins
(:func:`competition.ray_backend.connect`).

This module imports Ray (``pip install "awale_env[rllib]"``); the trainer imports it only for ``--backend ray``.
"""

from __future__ import annotations

from typing import Any

import torch

from agents.alphazero.network import build_network
from agents.alphazero.selfplay import Samples
from competition.ray_backend import Actors, connect, ray, run_jobs
from training.alphazero.config import AlphaZeroConfig
from training.alphazero.selfplay_pool import WorkerSettings, load_weights, play_generation, weights_bytes


@ray.remote(num_cpus=1)
class SelfPlayActor:
    """One self-play worker: a network and the games of worker ``worker``, started at ``start_generation``."""

    def __init__(self, settings: WorkerSettings, worker: int, start_generation: int) -> None:
        torch.set_num_threads(1)
        self.settings = settings
        self.net = build_network(settings.network)
        self.games = settings.games_of(worker, start_generation)

    def play(self, weights: bytes) -> tuple[Samples, dict[str, float]]:
        """Load the generation's weights and play its moves; the finished games' samples and the stats."""
        load_weights(self.net, weights)
        return play_generation(self.games, self.net, self.settings.moves)


class RaySelfPlayPool:
    """AlphaZero self-play on ``config.workers`` Ray actors (see the module docstring); the interface of
    :class:`training.alphazero.selfplay_pool.SelfPlayPool`. Joins ``config.address`` (or starts Ray here)."""

    def __init__(self, config: AlphaZeroConfig, start_generation: int) -> None:
        self.config = config
        self.generation = start_generation
        self.owns_ray = connect(config.address, config.runtime_env)
        settings = WorkerSettings.of(config)
        make = lambda w: SelfPlayActor.remote(settings, w, self.generation)  # noqa: E731
        self.actors = Actors(make, config.workers, "self-play actor")
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

        def redo(worker: int) -> str:
            return (f"its {self.config.games_per_worker} games restart from new openings and play generation "
                    f"{self.generation + 1} again")  # fmt: skip

        replaced = self.actors.replaced
        parts = run_jobs(self.actors, call, range(len(self.actors)), pinned=True, redo=redo)
        self.generation += 1
        total = {key: sum(stats[key] for _, stats in parts) for key in parts[0][1]}
        total["seconds"] = max(stats["seconds"] for _, stats in parts)
        total["actors_replaced"] = self.actors.replaced - replaced
        total["games_restarted"] = total["actors_replaced"] * self.config.games_per_worker
        return Samples.concatenate([samples for samples, _ in parts], self.config.game), total

    def close(self, wait: bool = True) -> None:
        """End the actors (and Ray, if this pool started it); ``wait`` is the process pool's and means nothing
        here: an actor's generation is of no use once the run stops."""
        self.actors.kill()
        if self.owns_ray:
            ray.shutdown()
