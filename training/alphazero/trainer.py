"""AlphaZero training: self-play workers with batched search, a replay buffer, gating and reference matches.

Run ``awale train alphazero --help`` (or ``python -m training.alphazero.trainer --help``); every field of
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
import json
import math
import shutil
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from agents.alphazero.network import (
    CheckpointError,
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
from agents.alphazero.selfplay import Samples, play_match
from agents.checkpoint import atomic_write, load_arrays
from agents.ppo.checkpoint import PLAY_MEMBERS
from agents.registry import format_spec
from awale_env.games import DEFAULT_GAME, get_game
from competition import interrupts
from competition.progress import Clock, Progress
from training import run_logs, runs
from training.alphazero.config import RESUMABLE, AlphaZeroConfig
from training.alphazero.selfplay_pool import SelfPlayPool

TRAINER_NAME = "alphazero"
STATE_FILE = "state.pt"
BEST_FILE = "best.pt"
#: Where runs kept the replay buffer before ``state.pt`` held it (read when resuming such a run).
REPLAY_FILE = "replay.npz"
#: Where ``--snapshot-every`` keeps copies of ``best.pt``.
SNAPSHOTS_DIR = "snapshots"


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
    from competition import arena  # the arena and agent registry live beside this trainer

    spec = format_spec("alphazero", {"path": str(best_path), "simulations": config.reference_simulations})
    scores = {}
    for reference in config.references:
        result = arena.play_match(
            spec, reference, games=config.reference_games, seed=seed, progress=False, game=config.game
        )
        scores[reference] = next(s.score for s in result.standings if s.player == spec)
    return scores


def initial_network(config: AlphaZeroConfig) -> RingNet:
    """The network of ``config.init_from``; a CheckpointError unless it is an AlphaZero network (not a run directory,
    nor another trainer's checkpoint) that plays the run's game with its shape."""
    path = Path(config.init_from)
    wanted = "it takes an AlphaZero network: the best.pt of an alphazero or imitation run, or a network's .pt file"
    if path.is_dir():
        kind = runs.run_kind(path)
        best = path / BEST_FILE
        what = f"the directory of an `awale train {kind}` run" if kind else "a directory"
        hint = f" ({best})" if kind in ("alphazero", "imitation") and best.is_file() else ""
        raise CheckpointError(f"--init-from {str(path)!r} is {what}: {wanted}{hint}")
    if is_ppo_checkpoint(path):
        raise CheckpointError(f"--init-from {str(path)!r} is a PPO checkpoint (`awale train ppo`): {wanted}")
    net = load_network(config.init_from, config.game)
    if net.config != config.network_config():
        raise CheckpointError(
            f"--init-from {config.init_from!r} holds a network {net.config.to_dict()}, not the configured "
            f"{config.network_config().to_dict()}: give its --channels, --blocks and --value-hidden"
        )
    return net


def is_ppo_checkpoint(path: Path) -> bool:
    """Whether ``path`` is a PPO checkpoint: a zip holding the members a PPO agent plays from (a torch file is a zip
    too, of other members)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return all(name in archive.namelist() for name in PLAY_MEMBERS)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return False


class Run:
    """The state of a training run: networks, optimizer, replay buffer, clock, logs (in a directory prepared by
    :func:`training.runs.prepare`). ``initial`` is the network of ``config.init_from`` when the caller has already
    loaded it (:func:`train` does, before the run directory is touched). Without ``open_files`` it writes nothing:
    everything a resume goes on from is read and checked, and :meth:`open_files` makes the run's first writes."""

    def __init__(self, config: AlphaZeroConfig, initial: RingNet | None = None, open_files: bool = True) -> None:
        self.config = config
        self.dir = Path(config.run_dir)
        torch.manual_seed(config.seed)
        torch.set_num_threads(config.torch_threads)
        self.candidate = build_network(config.network_config())
        if config.init_from is not None and not config.resume:  # a resume has its own networks
            self.candidate.load_state_dict((initial or initial_network(config)).state_dict())
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
        self.clock = Clock(elapsed)
        self.metrics = run_logs.CsvLog(self.dir / "metrics.csv", "generation")
        if open_files:
            self.open_files()

    def open_files(self) -> None:
        """The run's first writes: a resume makes ``best.pt`` its checkpoint's best network again (a run killed after
        writing ``best.pt`` had not finished that generation) and forgets what the stopped run logged after its
        checkpoint; then TensorBoard's writer."""
        if self.config.resume:
            self.save_best()
        self.metrics.keep_until(self.generation)
        self.writer = run_logs.tensorboard_writer(self.dir, self.generation)

    def _resume(self) -> float:
        """Load the checkpoint (``state.pt``: everything a generation ends with), writing nothing; return the seconds
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
            self.generation = runs.saved_count(payload["generation"], "generation", source)
            self.best_generation = runs.saved_count(payload["best_generation"], "best_generation", source)
            self.totals = {key: runs.saved_count(value, f"totals.{key}", source)
                           for key, value in payload["totals"].items()}  # fmt: skip
            self.rng.bit_generator.state = json.loads(payload["rng"])
            torch.set_rng_state(payload["torch_rng"])
            elapsed = float(payload.get("elapsed", 0.0))
        except CheckpointError:
            raise  # a counter out of range: named with its field
        except runs.MANGLED_STATE as error:
            detail = f"{type(error).__name__}: {error}"
            raise CheckpointError(f"{source} lacks or mangles the training state: {detail}") from None
        if "replay" in payload:
            self.buffer.restore(payload["replay"], source)
        elif (self.dir / REPLAY_FILE).exists():
            replay = self.dir / REPLAY_FILE
            self.buffer.restore(load_arrays(replay.read_bytes(), repr(str(replay))), repr(str(replay)))
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
            search=dataclasses.asdict(self.config.search_config()),
            run_config=self.config.to_dict(),
        )

    def save_snapshot(self) -> None:
        """Keep a copy of ``best.pt`` as ``snapshots/gen_<generation>.pt`` (the points of a learning curve:
        :mod:`training.baselines`)."""
        best = (self.dir / BEST_FILE).read_bytes()
        (self.dir / SNAPSHOTS_DIR).mkdir(exist_ok=True)
        atomic_write(self.dir / SNAPSHOTS_DIR / f"gen_{self.generation:05d}.pt", lambda file: file.write(best))

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
    elif run.buffer.size >= config.min_replay:  # the steps of a generation are decided before its games land
        training = f"no training yet ({run.buffer.size:,} samples, {config.min_replay:,} needed: next generation)"
    else:
        training = f"no training yet ({run.buffer.size:,} of the {config.min_replay:,} samples it needs)"
    gating = "" if gate is None else f", gate {gate:.0%}"
    return f"generation {run.generation}: {games}, {training}{gating}, best = generation {run.best_generation}"


def train(config: AlphaZeroConfig) -> Run:
    """Run (or with ``config.resume`` continue) training to ``config.generations`` generations; return the run."""
    initial = None
    if config.init_from is not None and not config.resume:  # refused before the run directory is touched
        initial = initial_network(resolved(config))
    config, run_dir = runs.check_start(TRAINER, config)
    new_dir = not run_dir.exists()
    run = Run(config, initial, open_files=False)  # a resume's checkpoint read and checked: nothing written yet
    try:
        runs.prepare(TRAINER, config)
        run.open_files()
        return train_run(run)
    except Exception as error:  # a run that fails before its first checkpoint (no Ray cluster, an actor that cannot
        # start) leaves no directory it made behind; Ctrl-C keeps it, with its one line saying it holds nothing yet
        if new_dir and not (run_dir / STATE_FILE).exists() and not interrupts.interrupted(error):
            shutil.rmtree(run_dir, ignore_errors=True)
        raise


def train_run(run: Run) -> Run:
    """The generations of :func:`train` in its prepared run directory."""
    config = run.config
    if config.backend == "ray":
        from training.alphazero.ray_selfplay import RaySelfPlayPool  # imports Ray: only for this backend

        pool = RaySelfPlayPool(config, run.generation)
    else:
        pool = SelfPlayPool(config, run.generation)
    progress = Progress(TRAINER_NAME, config.generations, run.generation, "generation", run.clock,
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
            if config.snapshot_every and run.generation % config.snapshot_every == 0:
                run.save_snapshot()
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
    return dataclasses.replace(config, **runs.game_defaults(config, TRAINER_NAME), references=tuple(config.references))


TRAINER = runs.Trainer(TRAINER_NAME, AlphaZeroConfig, resolved, train, STATE_FILE, RESUMABLE)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (``awale train alphazero``): parse :class:`AlphaZeroConfig` with tyro and train."""
    run = runs.main(TRAINER, argv, runs.summary(__doc__))
    best = run.dir / BEST_FILE
    print(f"best network: {best} (play it with the agent spec {runs.play_spec('alphazero', best)})")


if __name__ == "__main__":
    main()
