"""AlphaZero training: self-play workers with batched search, a replay buffer, gating and reference matches.

Run ``python -m training.alphazero --help`` (or ``awale train alphazero --help``); every field of
:class:`AlphaZeroConfig` is a command-line option (tyro, as CleanRL does).

Each generation the learner sends the current best network to the self-play workers (processes), trains the
candidate network on the replay buffer while they play, then adds their finished games to the buffer. Every
``gate_every`` generations the candidate plays the best network and replaces it when it scores at least
``gate_threshold``; every ``reference_every`` generations the best network plays fixed reference agents in the
arena. ``--game`` picks the game (awale16, the default, oware or hawalis) and with it the network
(:func:`agents.alphazero.network.build_network`). The number of training steps depends only on the data, never on
timing, so a run with one worker (or ``workers=0``, self-play in the learner's process) is deterministic under its
seed.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import math
import multiprocessing as mp
import queue
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import tyro
from torch.nn import functional as F
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from agents.alphazero.mcts import SearchConfig
from agents.alphazero.network import (
    NUM_ROTATIONS,
    AwaleNet,
    CheckpointError,
    NetworkConfig,
    RingNet,
    build_network,
    checkpoint_network_config,
    make_evaluator,
    network_from_checkpoint,
    read_checkpoint,
    rotate_samples,
    save_checkpoint,
)
from agents.alphazero.selfplay import Samples, SelfPlay, play_match
from awale_env.games import DEFAULT_GAME, GAMES, get_game

STATE_FILE = "state.pt"
BEST_FILE = "best.pt"
REPLAY_FILE = "replay.npz"


@dataclass
class AlphaZeroConfig:
    """Hyper-parameters of an AlphaZero run (all settable from the command line)."""

    run_dir: str = "runs/alphazero"
    """directory for checkpoints, TensorBoard events and metrics.csv"""
    seed: int = 0
    """seed of self-play, training and evaluation"""
    resume: bool = False
    """continue the run saved in run_dir"""
    generations: int = 200
    """generations to train (self-play, training, evaluation)"""
    game: str = DEFAULT_GAME
    """the game to learn: awale16, oware or hawalis (each with its default rules)"""
    # network
    channels: int = 64
    """convolution channels of the residual trunk"""
    blocks: int = 4
    """residual blocks"""
    value_hidden: int = 64
    """hidden units of the value head"""
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
    max_plies: int = 400
    """ply limit of the games (rule 11)"""
    workers: int = 2
    """self-play worker processes (0: self-play in the learner's process)"""
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
    """train on a random rotation (by 2k holes) of each sample (awale16; the other games have no board symmetry)"""
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
    """show a progress bar"""

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"game must be one of {', '.join(GAMES)}, got {self.game!r}")
        positive = ("generations", "simulations", "games_per_worker", "moves_per_generation", "replay_size",
                    "batch_size", "gate_every", "gate_games", "gate_simulations", "reference_games",
                    "reference_simulations", "torch_threads")  # fmt: skip
        for name in positive:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        for name in ("workers", "min_replay", "reference_every", "temperature_moves"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, got {getattr(self, name)!r}")
        for name in ("gate_games", "reference_games"):
            if getattr(self, name) % 2:
                raise ValueError(f"{name} must be even (pairs with seats swapped), got {getattr(self, name)}")
        if not 0 <= self.gate_threshold <= 1:
            raise ValueError(f"gate_threshold must be in [0, 1], got {self.gate_threshold}")
        if not self.sample_reuse > 0 or not self.learning_rate > 0:
            raise ValueError("sample_reuse and learning_rate must be positive")
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

    def network_config(self) -> NetworkConfig:
        return NetworkConfig(channels=self.channels, blocks=self.blocks, value_hidden=self.value_hidden, game=self.game)

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
        if augment and self.game.name == "awale16":  # the rotations of the two-colour board; no other game has any
            obs, policy = rotate_samples(obs, policy, rng.integers(0, NUM_ROTATIONS, batch))
        return obs, policy, self.value[rows]

    def save(self, path: Path) -> None:
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, obs=self.obs[: self.size], policy=self.policy[: self.size], value=self.value[: self.size],
                 next=self.next)  # fmt: skip
        tmp.replace(path)

    def load(self, path: Path) -> None:
        with np.load(path) as data:
            self.add(Samples(data["obs"], data["policy"], data["value"]))
            self.next = int(data["next"]) % len(self.value)


def _weights_bytes(net: AwaleNet | RingNet) -> bytes:
    buffer = io.BytesIO()
    torch.save(net.state_dict(), buffer)
    return buffer.getvalue()


def _load_weights(net: AwaleNet | RingNet, data: bytes) -> None:
    net.load_state_dict(torch.load(io.BytesIO(data), weights_only=True))


def _self_play_games(config: AlphaZeroConfig, worker: int, start_generation: int) -> SelfPlay:
    return SelfPlay(
        config.games_per_worker,
        config.search_config(),
        config.temperature_moves,
        config.max_plies,
        seed=config.seed * 1_000_003 + worker * 1009 + start_generation,
        game=config.game,
    )


def _play_generation(games: SelfPlay, net: AwaleNet | RingNet, moves: int) -> tuple[Samples, dict[str, float]]:
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


def _worker_main(worker: int, config: dict[str, Any], start_generation: int, jobs: mp.Queue, results: mp.Queue):
    """A self-play process: for each job (network weights), play a generation and send back its samples."""
    try:
        torch.set_num_threads(1)
        cfg = AlphaZeroConfig(**{**config, "references": tuple(config["references"])})
        net = build_network(cfg.network_config())
        games = _self_play_games(cfg, worker, start_generation)
        while (job := jobs.get()) is not None:
            _load_weights(net, job)
            results.put((worker, *_play_generation(games, net, cfg.moves_per_generation)))
    except Exception as error:  # report to the learner instead of dying silently
        results.put((worker, None, f"{type(error).__name__}: {error}"))


class SelfPlayPool:
    """Self-play in ``workers`` processes, or in this process when ``workers`` is 0."""

    def __init__(self, config: AlphaZeroConfig, start_generation: int) -> None:
        self.config = config
        self.local = _self_play_games(config, 0, start_generation) if config.workers == 0 else None
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
        for process in self.processes:
            process.start()
        self.pending: bytes | None = None

    def start(self, net: AwaleNet | RingNet) -> None:
        """Start a generation of self-play with ``net``'s current weights."""
        weights = _weights_bytes(net)
        if self.local is not None:
            self.pending = weights
        for jobs in self.jobs:
            jobs.put(weights)

    def collect(self) -> tuple[Samples, dict[str, float]]:
        """Wait for the generation; samples in worker order (so the run is deterministic) and summed stats."""
        if self.local is not None:
            _load_weights(self.local_net, self.pending)
            return _play_generation(self.local, self.local_net, self.config.moves_per_generation)
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

    def close(self) -> None:
        for jobs in self.jobs:
            jobs.put(None)
        for process in self.processes:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()


def train_steps(
    net: AwaleNet | RingNet, optimizer: torch.optim.Optimizer, buffer: ReplayBuffer, config: AlphaZeroConfig,
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

    spec = f"alphazero:path={best_path},simulations={config.reference_simulations}"
    scores = {}
    for reference in config.references:
        result = arena.play_match(
            spec, reference, games=config.reference_games, seed=seed, progress=False, game=config.game
        )
        scores[reference] = next(s.score for s in result.standings if s.agent == spec)
    return scores


class Run:
    """The state of a training run: networks, optimizer, replay buffer, logs."""

    def __init__(self, config: AlphaZeroConfig) -> None:
        self.config = config
        self.dir = Path(config.run_dir)
        torch.manual_seed(config.seed)
        torch.set_num_threads(config.torch_threads)
        self.candidate = build_network(config.network_config())
        self.best = copy.deepcopy(self.candidate).eval()
        self.optimizer = torch.optim.AdamW(
            self.candidate.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
        )
        self.buffer = ReplayBuffer(config.replay_size, config.game)
        self.rng = np.random.default_rng(config.seed)
        self.generation = 0
        self.totals = {"games": 0, "samples": 0, "steps": 0, "promotions": 0}
        self.best_generation = 0
        if config.resume:
            self._resume()
        elif (self.dir / STATE_FILE).exists():
            raise FileExistsError(f"{str(self.dir)!r} already holds a run: pass --resume or choose another --run-dir")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.writer = SummaryWriter(str(self.dir))
        (self.dir / "config.json").write_text(json.dumps(config.to_dict(), indent=2))

    def _resume(self) -> None:
        path = self.dir / STATE_FILE
        payload = read_checkpoint(path)
        if checkpoint_network_config(payload) != self.config.network_config().to_dict():
            raise CheckpointError(
                f"{str(path)!r} holds a network {checkpoint_network_config(payload)}, not the configured "
                f"{self.config.network_config().to_dict()}: resume with the same network options"
            )
        self.candidate.load_state_dict(network_from_checkpoint(payload, source=repr(str(path))).state_dict())
        self.best.load_state_dict(network_from_checkpoint(payload, "best_state_dict", repr(str(path))).state_dict())
        self.optimizer.load_state_dict(payload["optimizer"])
        self.generation = int(payload["generation"])
        self.best_generation = int(payload["best_generation"])
        self.totals = {key: int(value) for key, value in payload["totals"].items()}
        self.rng.bit_generator.state = json.loads(payload["rng"])
        torch.set_rng_state(payload["torch_rng"])
        if (self.dir / REPLAY_FILE).exists():
            self.buffer.load(self.dir / REPLAY_FILE)

    def save(self) -> None:
        save_checkpoint(
            self.dir / BEST_FILE,
            self.best,
            generation=self.best_generation,
            search={"simulations": self.config.simulations, "c_puct": self.config.c_puct},
            run_config=self.config.to_dict(),
        )
        self.buffer.save(self.dir / REPLAY_FILE)
        save_checkpoint(
            self.dir / STATE_FILE,
            self.candidate,
            best_state_dict=self.best.state_dict(),
            optimizer=self.optimizer.state_dict(),
            generation=self.generation,
            best_generation=self.best_generation,
            totals=self.totals,
            rng=json.dumps(self.rng.bit_generator.state),
            torch_rng=torch.get_rng_state(),
            run_config=self.config.to_dict(),
        )

    def log(self, row: dict[str, Any]) -> None:
        for key, value in row.items():
            if key != "generation" and isinstance(value, (int, float)):
                self.writer.add_scalar(key, value, self.generation)
        self.writer.flush()
        path = self.dir / "metrics.csv"
        new = not path.exists()
        with path.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(row), extrasaction="ignore")
            if new:
                writer.writeheader()
            writer.writerow(row)


def train(config: AlphaZeroConfig) -> Run:
    """Run (or resume) training to ``config.generations`` generations; return the finished run."""
    run = Run(config)
    pool = SelfPlayPool(config, run.generation)
    bar = tqdm(total=config.generations, initial=run.generation, disable=not config.progress, desc="alphazero")
    new_samples = 0
    started = time.perf_counter()
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
                "elapsed_s": round(time.perf_counter() - started, 1),
                "games": run.totals["games"],
                "samples": run.totals["samples"],
                "train_steps": run.totals["steps"],
                "policy_loss": losses["policy_loss"],
                "value_loss": losses["value_loss"],
                "selfplay_moves_per_s": stats["moves"] / max(stats["seconds"], 1e-9),
                "evaluations_per_s": stats["evaluations"] / max(stats["seconds"], 1e-9),
                "mean_game_plies": stats["plies"] / max(stats["games"], 1),
                "gate_score": "" if gate is None else gate,
                "best_generation": run.best_generation,
                **{f"vs {reference}": "" for reference in config.references},
            }
            run.save()
            if config.reference_every and run.generation % config.reference_every == 0:
                try:
                    for reference, score in reference_scores(run.dir / BEST_FILE, config, run.generation).items():
                        row[f"vs {reference}"] = score
                except Exception as error:  # a reference match must never end a long run
                    tqdm.write(f"reference matches skipped: {type(error).__name__}: {error}")
            run.log(row)
            bar.update(1)
            bar.set_postfix(
                loss=f"{losses['policy_loss']:.2f}/{losses['value_loss']:.2f}",
                games=run.totals["games"],
                best=run.best_generation,
            )
    finally:
        bar.close()
        pool.close()
        run.writer.close()
    return run


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point: ``python -m training.alphazero [--option value ...]``."""
    config = tyro.cli(AlphaZeroConfig, args=argv, description=__doc__.splitlines()[0])
    try:
        train(config)
    except (CheckpointError, FileExistsError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
