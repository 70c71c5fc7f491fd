"""AlphaZero training: self-play workers with batched search, a replay buffer, gating and reference matches.

Run ``awale train alphazero --help`` (or ``python -m training.alphazero --help``); every field of
:class:`AlphaZeroConfig` is a command-line option (tyro, as CleanRL does). The run directory follows the conventions
every trainer shares (:mod:`training.runs`: ``--run-dir``, default ``runs/alphazero-<game>``, ``--resume``,
``config.json``, ``tb/``) and holds ``best.pt`` (the agent's checkpoint), ``state.pt`` (everything to resume from:
networks, optimizer, replay buffer, counters, random states) and ``metrics.csv`` (one row per generation). A
generation ends by writing ``best.pt``, its metrics row, then ``state.pt``, each atomically: after a kill at any
moment a resume goes on from the last ``state.pt`` and first rewrites ``best.pt`` and drops later metrics rows, so all
three describe the same generation. Checkpoints are read with ``weights_only=True``: never any code from them.

Each generation the learner sends the current best network to the self-play workers (processes), trains the
candidate network on the replay buffer while they play, then adds their finished games to the buffer. Every
``gate_every`` generations the candidate plays the best network and replaces it when it scores at least
``gate_threshold``; every ``reference_every`` generations the best network plays fixed reference agents in the
arena. ``--game`` picks the game and with it the network (:func:`agents.alphazero.network.build_network`). The
number of training steps depends only on the data, never on
timing, so a run with one worker (or ``workers=0``, self-play in the learner's process) is deterministic under its
seed.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import json
import math
import multiprocessing as mp
import queue
import signal
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import torch
import tyro
from torch.nn import functional as F

from agents.alphazero.mcts import SearchConfig
from agents.alphazero.network import (
    CheckpointError,
    NetworkConfig,
    RingNet,
    build_network,
    checkpoint_network_config,
    load_network,
    make_evaluator,
    network_from_checkpoint,
    num_rotations,
    read_checkpoint,
    rotate_samples,
    save_checkpoint,
)
from agents.alphazero.selfplay import Samples, SelfPlay, play_match
from agents.checkpoint import load_arrays, load_tensors
from agents.extras import needs_extra
from agents.registry import format_spec
from awale_env.games import DEFAULT_GAME, GAMES, get_game
from training import runs
from training.arena import BACKENDS

TRAINER_NAME = "alphazero"
STATE_FILE = "state.pt"
BEST_FILE = "best.pt"
#: Where runs kept the replay buffer before ``state.pt`` held it (read when resuming such a run).
REPLAY_FILE = "replay.npz"
#: Seconds a self-play process waits for a job before checking that the learner is still alive.
WORKER_POLL_SECONDS = 2.0
#: The options a resume may change: the run's length, its workers, its reference matches and how it runs here.
RESUMABLE = (
    "generations",
    "workers",
    "reference_every",
    "references",
    "reference_games",
    "reference_simulations",
    "torch_threads",
    "progress",
    "backend",
    "address",
    "runtime_env",
)


@dataclass
class NetworkOptions:
    """The shape of the network a trainer makes (:class:`RingNet`), options of every trainer of one; the trainer's
    configuration names the ``game``."""

    channels: int = 64
    """convolution channels of the residual trunk"""
    blocks: int = 4
    """residual blocks"""
    value_hidden: int = 64
    """hidden units of the value head"""

    def network_config(self) -> NetworkConfig:
        return NetworkConfig(channels=self.channels, blocks=self.blocks, value_hidden=self.value_hidden, game=self.game)


@dataclass
class AlphaZeroConfig(NetworkOptions):
    """Hyper-parameters of an AlphaZero run (all settable from the command line)."""

    run_dir: Annotated[str | None, runs.computed_default("runs/alphazero-<game>", "DIR")] = None
    """the run's directory: config.json, checkpoints, metrics.csv and TensorBoard events (tb/)"""
    seed: int = 0
    """seed of self-play, training and evaluation"""
    resume: Annotated[bool, runs.resume_option(RESUMABLE)] = False
    generations: int = 200
    """generations to train (self-play, training, evaluation)"""
    game: Annotated[str, tyro.conf.arg(help=f"the game to learn: {', '.join(GAMES)}")] = DEFAULT_GAME
    # network (its shape: NetworkOptions)
    init_from: Annotated[str | None, runs.computed_default("a new network", "CHECKPOINT")] = None
    """start from the network of this AlphaZero checkpoint (a run's best.pt, the shipped network's file), of the
    run's game and shape, instead of a new one"""
    # search and self-play
    simulations: int = 100
    """simulations per self-play move"""
    c_puct: float = 1.5
    """PUCT exploration weight"""
    fpu_reduction: float = 0.2
    """first-play urgency: unvisited children get the parent's value minus this"""
    dirichlet_alpha: float = 0.5
    """root Dirichlet noise concentration"""
    noise_fraction: float = 0.25
    """share of root prior replaced by noise"""
    temperature_moves: int = 16
    """plies played in proportion to visit counts (temperature 1) before playing the most visited move"""
    max_plies: Annotated[int | None, runs.computed_default("the game's ply limit", "INT")] = None
    """ply limit of the self-play and gating games"""
    workers: int = 2
    """self-play worker processes (0: self-play in the learner's process), or Ray actors with --backend ray"""
    backend: str = "process"
    """where self-play runs: process (worker processes here) or ray (Ray actors; needs the rllib extra)"""
    address: Annotated[str | None, runs.computed_default("start Ray here", "ADDRESS")] = None
    """with --backend ray, the Ray cluster to join ("auto": the one started here)"""
    runtime_env: Annotated[str | None, runs.computed_default("none", "JSON|FILE")] = None
    """with --backend ray, Ray's runtime environment for the actors: a JSON object or a JSON/YAML file (working_dir,
    py_modules, pip; docs/distributed.md)"""
    games_per_worker: int = 128
    """games each worker plays side by side (the network's batch size)"""
    moves_per_generation: int = 24
    """moves each worker plays in each of its games per generation"""
    # training
    replay_size: int = 150_000
    """samples kept in the replay buffer"""
    min_replay: int = 4_000
    """samples needed before training starts"""
    batch_size: int = 256
    """samples per training step"""
    sample_reuse: float = 4.0
    """training steps per generation = new samples * sample_reuse / batch_size"""
    learning_rate: float = 1e-3
    """AdamW learning rate"""
    weight_decay: float = 1e-4
    """AdamW weight decay"""
    value_loss_weight: float = 1.0
    """weight of the value loss against the policy loss"""
    augment: bool = True
    """train on a random rotation of each sample, in a game whose board has rotations (Game.symmetry_step)"""
    torch_threads: int = 1
    """torch threads of the learner (each worker uses one)"""
    # evaluation
    gate_every: int = 4
    """generations between gating matches (candidate vs best)"""
    gate_games: int = 64
    """games of a gating match (pairs with seats swapped)"""
    gate_simulations: int = 64
    """simulations per move in gating matches"""
    gate_threshold: float = 0.55
    """score the candidate needs against the best network to replace it"""
    reference_every: int = 20
    """generations between reference matches (0: never)"""
    references: tuple[str, ...] = ("greedy", "alphabeta:depth=4", "mcts:simulations=2000")
    """arena agent specs the best network plays"""
    reference_games: int = 10
    """games against each reference (even: pairs with seats swapped)"""
    reference_simulations: int = 100
    """simulations per move of the best network in reference matches"""
    progress: bool = True
    """show progress: a bar on a terminal, a line per generation in a log"""

    def __post_init__(self) -> None:
        if not runs.parsing():  # on the command line, runs.parse checks once tyro is done
            self.check()

    def check(self) -> None:
        """ValueError naming the first bad option and what it allows; run whenever a configuration is
        built, from Python, a command line or a run's config.json."""
        for name in ("c_puct", "dirichlet_alpha", "sample_reuse", "learning_rate"):
            runs.check_number(self, name, 0, exclusive=True)
        for name in ("weight_decay", "value_loss_weight"):
            runs.check_number(self, name, 0)
        for name in ("noise_fraction", "gate_threshold"):
            runs.check_number(self, name, 0, 1)
        runs.check_types(self)
        if self.game not in GAMES:
            raise ValueError(f"--game must be one of {', '.join(GAMES)}, got {self.game!r}")
        positive = ("generations", "simulations", "games_per_worker", "moves_per_generation", "replay_size",
                    "batch_size", "gate_every", "gate_games", "gate_simulations", "reference_games",
                    "reference_simulations", "torch_threads", "channels", "blocks", "value_hidden")  # fmt: skip
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"{runs.option(name)} must be a positive integer, got {getattr(self, name)!r}")
        for name in ("workers", "min_replay", "reference_every", "temperature_moves"):
            if getattr(self, name) < 0:
                raise ValueError(f"{runs.option(name)} must not be negative, got {getattr(self, name)!r}")
        if self.max_plies is not None and self.max_plies < 1:
            raise ValueError(f"--max-plies must be a positive integer, got {self.max_plies!r}")
        if self.backend not in BACKENDS:
            raise ValueError(f"--backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.backend == "ray":
            if self.workers < 1:
                raise ValueError("--backend ray plays on --workers Ray actors: --workers must be at least 1")
            with needs_extra("--backend ray"):  # a missing Ray said before the run directory is made
                import ray  # noqa: F401
        for name in ("gate_games", "reference_games"):
            if getattr(self, name) % 2:
                raise ValueError(f"{name} must be even (pairs with seats swapped), got {getattr(self, name)}")
        self.network_config()
        self.search_config()
        if self.reference_every:
            self._check_references()

    def _check_references(self) -> None:
        """Fail now, not at the first reference match (whose errors a run only reports), on a reference agent that
        cannot be built or does not play the game."""
        from agents import make  # the registry builds agents lazily: cheap for the usual references
        from agents.base import game_refusal

        for spec in self.references:
            refusal = game_refusal(make(spec), spec, self.game)
            if refusal is not None:
                raise ValueError(f"references: {refusal}")

    def search_config(self, simulations: int | None = None) -> SearchConfig:
        return SearchConfig(
            simulations=simulations or self.simulations,
            c_puct=self.c_puct,
            fpu_reduction=self.fpu_reduction,
            dirichlet_alpha=self.dirichlet_alpha,
            noise_fraction=self.noise_fraction,
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["references"] = list(self.references)
        return data


class ReplayBuffer:
    """The latest ``capacity`` samples in a ring."""

    def __init__(self, capacity: int, game: str = DEFAULT_GAME) -> None:
        self.game = get_game(game)
        self.obs = np.zeros((capacity, self.game.obs_size), np.float32)
        self.policy = np.zeros((capacity, self.game.num_actions), np.float32)
        self.value = np.zeros(capacity, np.float32)
        self.size = 0
        self.next = 0

    def add(self, samples: Samples) -> None:
        capacity = len(self.value)
        for start in range(0, len(samples), capacity):
            part = slice(start, min(start + capacity, len(samples)))
            n = part.stop - part.start
            rows = (self.next + np.arange(n)) % capacity
            self.obs[rows] = samples.obs[part]
            self.policy[rows] = samples.policy[part]
            self.value[rows] = samples.value[part]
            self.next = (self.next + n) % capacity
            self.size = min(self.size + n, capacity)

    def sample(self, rng: np.random.Generator, batch: int, augment: bool) -> tuple[np.ndarray, ...]:
        rows = rng.integers(0, self.size, batch)
        obs, policy = self.obs[rows], self.policy[rows]
        if augment and self.game.symmetry_step:
            shifts = rng.integers(0, num_rotations(self.game), batch)
            obs, policy = rotate_samples(obs, policy, shifts, self.game)
        return obs, policy, self.value[rows]

    def state(self) -> dict[str, Any]:
        """The buffer as tensors (copies: a view would save the whole ring), for the run's ``state.pt``."""
        rows = slice(0, self.size)
        arrays = {"obs": self.obs[rows], "policy": self.policy[rows], "value": self.value[rows]}
        return {key: torch.from_numpy(array.copy()) for key, array in arrays.items()} | {"next": self.next}

    def restore(self, state: dict[str, Any], source: str) -> None:
        """Refill the empty buffer from :meth:`state` (or the arrays of a ``replay.npz``, where runs kept the buffer
        before ``state.pt`` held it); CheckpointError for anything but this game's samples."""
        try:
            obs, policy, value = (np.asarray(state[key], dtype=np.float32) for key in ("obs", "policy", "value"))
            next_row = int(state["next"])
        except (KeyError, TypeError, ValueError) as error:
            raise CheckpointError(f"{source}: its replay buffer is unreadable: {error}") from None
        n = len(value)
        if obs.shape != (n, self.game.obs_size) or policy.shape != (n, self.game.num_actions) or value.ndim != 1:
            raise CheckpointError(f"{source}: its replay buffer does not hold samples of {self.game.name}")
        self.add(Samples(obs, policy, value))
        self.next = next_row % len(self.value)


def weights_bytes(net: RingNet) -> bytes:
    """The learner's weights as the bytes that go to self-play workers (processes or Ray actors)."""
    buffer = io.BytesIO()
    torch.save(net.state_dict(), buffer)
    return buffer.getvalue()


def load_weights(net: RingNet, data: bytes) -> None:
    """Load into a self-play worker's ``net`` the weights sent by the learner, read without unpickling."""
    net.load_state_dict(load_tensors(data, "the learner's weights"))


def self_play_games(config: AlphaZeroConfig, worker: int, start_generation: int) -> SelfPlay:
    """Self-play worker ``worker``'s games, seeded from the run's seed, the worker and the generation it starts at."""
    return SelfPlay(
        config.games_per_worker,
        config.search_config(),
        config.temperature_moves,
        config.max_plies,
        seed=config.seed * 1_000_003 + worker * 1009 + start_generation,
        game=config.game,
    )


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


def _worker_main(worker: int, config: dict[str, Any], start_generation: int, jobs: mp.Queue, results: mp.Queue):
    """A self-play process: for each job (network weights), play a generation and send back its samples. It
    ignores Ctrl-C (inherited from :class:`SelfPlayPool`): the learner stops it, or its death does."""
    results.cancel_join_thread()  # exit without waiting for a dead learner to read the last samples
    try:
        torch.set_num_threads(1)
        cfg = AlphaZeroConfig(**{**config, "references": tuple(config["references"])})
        net = build_network(cfg.network_config())
        games = self_play_games(cfg, worker, start_generation)
        while (job := _next_job(jobs)) is not None:
            load_weights(net, job)
            results.put((worker, *play_generation(games, net, cfg.moves_per_generation)))
    except Exception as error:  # report to the learner instead of dying silently
        results.put((worker, None, f"{type(error).__name__}: {error}"))


class SelfPlayPool:
    """Self-play in ``workers`` processes, or in this process when ``workers`` is 0."""

    def __init__(self, config: AlphaZeroConfig, start_generation: int) -> None:
        self.config = config
        self.local = self_play_games(config, 0, start_generation) if config.workers == 0 else None
        self.local_net = build_network(config.network_config()) if config.workers == 0 else None
        context = mp.get_context("spawn")
        self.jobs = [context.Queue() for _ in range(config.workers)]
        self.results = context.Queue()
        self.processes = [
            context.Process(
                target=_worker_main,
                args=(w, config.to_dict(), start_generation, self.jobs[w], self.results),
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


def train_steps(
    net: RingNet, optimizer: torch.optim.Optimizer, buffer: ReplayBuffer, config: AlphaZeroConfig,
    steps: int, rng: np.random.Generator,
) -> dict[str, float]:  # fmt: skip
    """``steps`` AdamW steps on cross-entropy to the search policies plus squared error to the outcomes."""
    net.train()
    policy_total = value_total = 0.0
    for _ in range(steps):
        obs, policy, value = (torch.from_numpy(a) for a in buffer.sample(rng, config.batch_size, config.augment))
        logits, predicted = net(obs)
        policy_loss = -(policy * F.log_softmax(logits, dim=1)).sum(1).mean()
        value_loss = F.mse_loss(predicted, value)
        optimizer.zero_grad(set_to_none=True)
        (policy_loss + config.value_loss_weight * value_loss).backward()
        optimizer.step()
        policy_total += policy_loss.item()
        value_total += value_loss.item()
    net.eval()
    return {"policy_loss": policy_total / max(steps, 1), "value_loss": value_total / max(steps, 1), "steps": steps}


def gate_candidate(run: Run, generation: int) -> float:
    """Play the candidate against the best network; promote it when it scores ``gate_threshold``. Return its score."""
    config = run.config
    wins, draws, _ = play_match(
        make_evaluator(run.candidate),
        make_evaluator(run.best),
        config.gate_games,
        config.search_config(config.gate_simulations),
        config.max_plies,
        seed=config.seed * 7919 + generation,
        game=config.game,
    )
    score = (wins + 0.5 * draws) / config.gate_games
    if score >= config.gate_threshold:
        run.best.load_state_dict(run.candidate.state_dict())
        run.best_generation = generation
        run.totals["promotions"] += 1
    return score


def reference_scores(best_path: Path, config: AlphaZeroConfig, seed: int) -> dict[str, float]:
    """Score (wins + draws / 2 over games) of the best network against each reference agent in the arena."""
    from training import arena  # the arena and agent registry live beside this trainer

    spec = format_spec("alphazero", {"path": str(best_path), "simulations": config.reference_simulations})
    scores = {}
    for reference in config.references:
        result = arena.play_match(
            spec, reference, games=config.reference_games, seed=seed, progress=False, game=config.game
        )
        scores[reference] = next(s.score for s in result.standings if s.agent == spec)
    return scores


def initial_network(config: AlphaZeroConfig) -> RingNet:
    """The network of ``config.init_from``; a CheckpointError unless it plays the run's game with its shape."""
    net = load_network(config.init_from, config.game)
    if net.config != config.network_config():
        raise CheckpointError(
            f"--init-from {config.init_from!r} holds a network {net.config.to_dict()}, not the configured "
            f"{config.network_config().to_dict()}: give its --channels, --blocks and --value-hidden"
        )
    return net


class Run:
    """The state of a training run: networks, optimizer, replay buffer, clock, logs (in a directory prepared by
    :func:`training.runs.start`)."""

    def __init__(self, config: AlphaZeroConfig) -> None:
        self.config = config
        self.dir = Path(config.run_dir)
        torch.manual_seed(config.seed)
        torch.set_num_threads(config.torch_threads)
        self.candidate = build_network(config.network_config())
        if config.init_from is not None and not config.resume:  # a resume has its own networks
            self.candidate.load_state_dict(initial_network(config).state_dict())
        self.best = copy.deepcopy(self.candidate).eval()
        self.optimizer = torch.optim.AdamW(
            self.candidate.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
        )
        self.buffer = ReplayBuffer(config.replay_size, config.game)
        self.rng = np.random.default_rng(config.seed)
        self.generation = 0
        self.totals = {"games": 0, "samples": 0, "steps": 0, "promotions": 0}
        self.best_generation = 0
        elapsed = 0.0
        if config.resume:
            elapsed = self._resume()
        self.clock = runs.Clock(elapsed)
        self.metrics = runs.CsvLog(self.dir / "metrics.csv", "generation")
        self.metrics.keep_until(self.generation)  # forget what a stopped run logged after its checkpoint
        self.writer = runs.tensorboard_writer(self.dir, self.generation)

    def _resume(self) -> float:
        """Load the checkpoint (``state.pt``: everything a generation ends with) and make ``best.pt`` its best
        network again (a run killed after writing ``best.pt`` had not finished that generation); return the seconds
        the run has trained."""
        path = self.dir / STATE_FILE
        source = repr(str(path))
        payload = read_checkpoint(path)
        if checkpoint_network_config(payload) != self.config.network_config().to_dict():
            raise CheckpointError(
                f"{source} holds a network {checkpoint_network_config(payload)}, not the configured "
                f"{self.config.network_config().to_dict()}: resume with the same network options"
            )
        self.candidate.load_state_dict(network_from_checkpoint(payload, source=source).state_dict())
        self.best.load_state_dict(network_from_checkpoint(payload, "best_state_dict", source).state_dict())
        try:
            self.optimizer.load_state_dict(payload["optimizer"])
            self.generation = int(payload["generation"])
            self.best_generation = int(payload["best_generation"])
            self.totals = {key: int(value) for key, value in payload["totals"].items()}
            self.rng.bit_generator.state = json.loads(payload["rng"])
            torch.set_rng_state(payload["torch_rng"])
            elapsed = float(payload.get("elapsed", 0.0))
        except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as error:
            raise CheckpointError(f"{source} lacks or mangles the training state: {error}") from None
        if "replay" in payload:
            self.buffer.restore(payload["replay"], source)
        elif (self.dir / REPLAY_FILE).exists():
            replay = self.dir / REPLAY_FILE
            self.buffer.restore(load_arrays(replay.read_bytes(), repr(str(replay))), repr(str(replay)))
        self.save_best()
        return elapsed

    def save(self) -> None:
        """Write the run's checkpoints now (``best.pt``, ``state.pt``): a run set up by hand (the AlphaZero notebook
        puts the shipped network in a new run) that ``--resume`` goes on from."""
        self.save_best()
        self.save_state()

    def save_best(self) -> None:
        """Write ``best.pt``, the agent's checkpoint (the reference matches play it)."""
        save_checkpoint(
            self.dir / BEST_FILE,
            self.best,
            generation=self.best_generation,
            search={"simulations": self.config.simulations, "c_puct": self.config.c_puct},
            run_config=self.config.to_dict(),
        )

    def save_state(self) -> None:
        """Write ``state.pt``, everything a resume goes on from, replay buffer included: the generation's last
        write, so that ``best.pt`` and ``metrics.csv``, written before it, never run ahead of it after a resume."""
        save_checkpoint(
            self.dir / STATE_FILE,
            self.candidate,
            best_state_dict=self.best.state_dict(),
            optimizer=self.optimizer.state_dict(),
            generation=self.generation,
            best_generation=self.best_generation,
            totals=self.totals,
            elapsed=self.clock.elapsed(),
            rng=json.dumps(self.rng.bit_generator.state),
            torch_rng=torch.get_rng_state(),
            replay=self.buffer.state(),
            run_config=self.config.to_dict(),
        )
        (self.dir / REPLAY_FILE).unlink(missing_ok=True)  # an older run's buffer, in state.pt from now on

    def log(self, row: dict[str, Any]) -> None:
        for key, value in row.items():
            if key != "generation" and isinstance(value, (int, float)):
                self.writer.add_scalar(runs.tag(key), value, self.generation)
        self.writer.flush()
        self.metrics.append([row])


def generation_summary(run: Run, stats: dict[str, float], losses: dict[str, float], gate: float | None) -> str:
    """What a generation did, in a few words; says why when it finished no game or trained no step."""
    config = run.config
    if stats["games"]:
        games = f"{int(stats['games'])} games"
    else:
        games = f"no game finished (a game outlasts the {config.moves_per_generation} moves of a generation)"
    if losses["steps"]:
        training = f"loss {losses['policy_loss']:.2f}/{losses['value_loss']:.2f}"
    else:
        training = f"no training yet ({run.buffer.size:,} of {config.min_replay:,} samples to start)"
    gating = "" if gate is None else f", gate {gate:.0%}"
    return f"generation {run.generation}: {games}, {training}{gating}, best = generation {run.best_generation}"


def train(config: AlphaZeroConfig) -> Run:
    """Run (or with ``config.resume`` continue) training to ``config.generations`` generations; return the run."""
    config, _ = runs.start(TRAINER, config)
    run = Run(config)
    if config.backend == "ray":
        from training.ray_backend import RaySelfPlayPool  # imports Ray: only for this backend

        pool = RaySelfPlayPool(config, run.generation)
    else:
        pool = SelfPlayPool(config, run.generation)
    progress = runs.Progress(TRAINER_NAME, config.generations, run.generation, "generation", run.clock,
                             config.progress, every=0)  # fmt: skip
    new_samples = 0
    finished = False
    try:
        while run.generation < config.generations:
            pool.start(run.best)
            steps = 0
            if run.buffer.size >= config.min_replay:
                steps = math.ceil(max(new_samples, config.batch_size) * config.sample_reuse / config.batch_size)
            losses = train_steps(run.candidate, run.optimizer, run.buffer, config, steps, run.rng)
            run.totals["steps"] += steps
            generation = run.generation + 1
            gate = gate_candidate(run, generation) if generation % config.gate_every == 0 and steps > 0 else None
            samples, stats = pool.collect()
            run.buffer.add(samples)
            new_samples = len(samples)
            run.generation = generation
            run.totals["games"] += int(stats["games"])
            run.totals["samples"] += new_samples
            row: dict[str, Any] = {
                "generation": run.generation,
                "elapsed_s": round(run.clock.elapsed(), 1),
                "games": run.totals["games"],
                "generation_games": int(stats["games"]),
                "samples": run.totals["samples"],
                "train_steps": run.totals["steps"],
                "policy_loss": losses["policy_loss"] if steps else "",
                "value_loss": losses["value_loss"] if steps else "",
                "selfplay_moves_per_s": stats["moves"] / max(stats["seconds"], 1e-9),
                "evaluations_per_s": stats["evaluations"] / max(stats["seconds"], 1e-9),
                "mean_game_plies": stats["plies"] / stats["games"] if stats["games"] else "",
                "actors_replaced": int(stats.get("actors_replaced", 0)),
                "games_restarted": int(stats.get("games_restarted", 0)),
                "gate_score": "" if gate is None else gate,
                "best_generation": run.best_generation,
                **{f"vs_{reference}": "" for reference in config.references},
            }
            run.save_best()
            if config.reference_every and run.generation % config.reference_every == 0:
                try:
                    for reference, score in reference_scores(run.dir / BEST_FILE, config, run.generation).items():
                        row[f"vs_{reference}"] = score
                except Exception as error:  # a reference match must never end a long run
                    progress.note(f"reference matches skipped: {type(error).__name__}: {error}")
            run.log(row)
            run.save_state()  # the generation is complete: a resume goes on from here
            progress.update(1, generation_summary(run, stats, losses, gate))
        finished = True
    finally:
        progress.close()
        pool.close(wait=finished)
        run.writer.close()
    return run


def resolved(config: AlphaZeroConfig) -> AlphaZeroConfig:
    """``config`` with the game's defaults filled in (run directory, ply limit)."""
    game = get_game(config.game)
    return dataclasses.replace(
        config,
        run_dir=config.run_dir or runs.default_run_dir(TRAINER_NAME, game.name),
        max_plies=game.default_max_plies if config.max_plies is None else config.max_plies,
        references=tuple(config.references),
    )


TRAINER = runs.Trainer(TRAINER_NAME, AlphaZeroConfig, resolved, train, STATE_FILE, RESUMABLE)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (``awale train alphazero``): parse :class:`AlphaZeroConfig` with tyro and train."""
    run = runs.main(TRAINER, argv, __doc__.splitlines()[0])
    best = run.dir / BEST_FILE
    print(f"best network: {best} (play it with the agent spec {runs.play_spec('alphazero', best)})")


if __name__ == "__main__":
    main()
