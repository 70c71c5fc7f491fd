"""AlphaZero self-play workers: what a worker plays each generation with the learner's weights
(:class:`WorkerSettings`, :func:`play_generation`), and :class:`SelfPlayPool`, the workers as processes on this
machine (:class:`training.alphazero.ray_selfplay.RaySelfPlayPool` has its interface on Ray actors).
"""

from __future__ import annotations

import io
import multiprocessing as mp
import os
import queue
import signal
import time
from dataclasses import dataclass

import torch

from agents.alphazero.network import NetworkConfig, RingNet, build_network, make_evaluator
from agents.alphazero.search_config import SearchConfig
from agents.alphazero.selfplay import Samples, SelfPlay
from agents.checkpoint import load_tensors
from competition.parent_death import die_with_parent
from training.alphazero.config import AlphaZeroConfig

#: Seconds a self-play process waits for a job before checking that the learner is still alive.
WORKER_POLL_SECONDS = 2.0


def weights_bytes(net: RingNet) -> bytes:
    """The learner's weights as the bytes that go to self-play workers (processes or Ray actors)."""
    buffer = io.BytesIO()
    torch.save(net.state_dict(), buffer)
    return buffer.getvalue()


def load_weights(net: RingNet, data: bytes) -> None:
    """Load into a self-play worker's ``net`` the weights sent by the learner, read without unpickling."""
    net.load_state_dict(load_tensors(data, "the learner's weights"))


@dataclass(frozen=True)
class WorkerSettings:
    """What a self-play worker needs of the run (the run's configuration, checked once by the learner, stays
    there): its network's shape, its search, and its games."""

    network: NetworkConfig
    search: SearchConfig
    games: int
    moves: int
    temperature_moves: int
    max_plies: int
    seed: int

    @classmethod
    def of(cls, config: AlphaZeroConfig) -> WorkerSettings:
        return cls(config.network_config(), config.search_config(), config.games_per_worker,
                   config.moves_per_generation, config.temperature_moves, config.max_plies, config.seed)  # fmt: skip

    def games_of(self, worker: int, start_generation: int) -> SelfPlay:
        """Worker ``worker``'s games, seeded from the run's seed, the worker and the generation it starts at."""
        seed = self.seed * 1_000_003 + worker * 1009 + start_generation
        return SelfPlay(self.games, self.search, self.temperature_moves, self.max_plies, seed, self.network.game)


def play_generation(games: SelfPlay, net: RingNet, moves: int) -> tuple[Samples, dict[str, float]]:
    """Play ``moves`` moves of every game of ``games`` with ``net``: the samples and the generation's figures."""
    evaluate = make_evaluator(net)
    done_games, done_plies, evaluations = games.games_finished, games.plies_finished, games.search.evaluations
    start = time.perf_counter()
    samples = Samples.concatenate([games.step(evaluate) for _ in range(moves)], games.game)
    stats = {
        "seconds": time.perf_counter() - start,
        "games": games.games_finished - done_games,
        "plies": games.plies_finished - done_plies,
        "moves": moves * len(games.rngs),
        "evaluations": games.search.evaluations - evaluations,
    }
    return samples, stats


def _next_job(jobs: mp.Queue) -> bytes | None:
    """The next job of a self-play process; None to stop, also when the learner died (killed: nobody told us)."""
    learner = mp.parent_process()
    while True:
        try:
            return jobs.get(timeout=WORKER_POLL_SECONDS)
        except queue.Empty:
            if learner is not None and not learner.is_alive():
                return None


def _worker_main(
    worker: int, settings: WorkerSettings, start_generation: int, jobs: mp.Queue, results: mp.Queue, parent: int
):
    """A self-play process: for each job (network weights), play a generation and send back its samples. It
    ignores Ctrl-C (inherited from :class:`SelfPlayPool`): the learner stops it, or its death does, at once
    (:func:`die_with_parent`: a learner killed with SIGKILL leaves no self-play playing on)."""
    die_with_parent(parent)
    results.cancel_join_thread()  # exit without waiting for a dead learner to read the last samples
    try:
        torch.set_num_threads(1)
        net = build_network(settings.network)
        games = settings.games_of(worker, start_generation)
        while (job := _next_job(jobs)) is not None:
            load_weights(net, job)
            results.put((worker, *play_generation(games, net, settings.moves)))
    except Exception as error:  # report to the learner instead of dying silently
        results.put((worker, None, f"{type(error).__name__}: {error}"))


class SelfPlayPool:
    """Self-play in ``workers`` processes, or in this process when ``workers`` is 0."""

    def __init__(self, config: AlphaZeroConfig, start_generation: int) -> None:
        self.config = config
        settings = WorkerSettings.of(config)
        self.local = settings.games_of(0, start_generation) if config.workers == 0 else None
        self.local_net = build_network(settings.network) if config.workers == 0 else None
        context = mp.get_context("spawn")
        self.jobs = [context.Queue() for _ in range(config.workers)]
        self.results = context.Queue()
        self.processes = [
            context.Process(
                target=_worker_main,
                args=(w, settings, start_generation, self.jobs[w], self.results, os.getpid()),
                daemon=True,
            )
            for w in range(config.workers)
        ]
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the workers inherit it: Ctrl-C reaches the learner
        try:
            for process in self.processes:
                process.start()
        finally:
            signal.signal(signal.SIGINT, handler)
        self.pending: bytes | None = None

    def start(self, net: RingNet) -> None:
        """Start a generation of self-play with ``net``'s current weights."""
        weights = weights_bytes(net)
        if self.local is not None:
            self.pending = weights
        for jobs in self.jobs:
            jobs.put(weights)

    def collect(self) -> tuple[Samples, dict[str, float]]:
        """Wait for the generation; samples in worker order (so the run is deterministic) and summed stats."""
        if self.local is not None:
            load_weights(self.local_net, self.pending)
            return play_generation(self.local, self.local_net, self.config.moves_per_generation)
        parts: dict[int, tuple[Samples, dict[str, float]]] = {}
        while len(parts) < len(self.processes):
            try:
                worker, samples, stats = self.results.get(timeout=5)
            except queue.Empty:
                dead = [w for w, p in enumerate(self.processes) if not p.is_alive() and w not in parts]
                if dead:
                    code = self.processes[dead[0]].exitcode
                    raise RuntimeError(f"self-play worker {dead[0]} died (exit code {code})") from None
                continue
            if samples is None:
                raise RuntimeError(f"self-play worker {worker} failed: {stats}")
            parts[worker] = (samples, stats)
        ordered = [parts[w] for w in sorted(parts)]
        total = {key: sum(s[key] for _, s in ordered) for key in ordered[0][1]}
        total["seconds"] = max(s["seconds"] for _, s in ordered)
        return Samples.concatenate([samples for samples, _ in ordered], self.config.game), total

    def close(self, wait: bool = True) -> None:
        """End the workers: after their generation (``wait``), or at once (a stopped run)."""
        for jobs in self.jobs:
            jobs.put(None)
        for process in self.processes:
            process.join(timeout=10 if wait else 0)
            if process.is_alive():
                process.terminate()
                process.join()
