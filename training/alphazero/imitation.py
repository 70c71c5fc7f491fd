"""Imitation: an AlphaZero network's first weights learnt from alpha-beta's games, a head start for self-play.

Self-play from random weights learns slowly where games are long and moves many (the 2025 edition: 64 actions,
150-250 plies); alpha-beta with the game's tuned evaluation already plays such a game well. This trainer plays
``--games`` games of alpha-beta at ``--teacher-depth`` against itself (each from a random opening of
``--opening-min``..``--opening-max`` plies, ties broken at random) and trains the AlphaZero network on every position
the teacher searched: the policy to the teacher's move, the value to a mix of the game's outcome and the teacher's
search value (``--score-weight``; the value's scale is fitted to the outcomes). The result, ``best.pt``, is an
AlphaZero checkpoint: play it (``alphazero:path=...``) or go on with self-play from it
(``awale train alphazero --init-from .../best.pt``).

Run ``awale train imitation --help`` (or ``python -m training.alphazero.imitation --help``). The run directory follows
the trainers' conventions (:mod:`training.runs`: ``--run-dir``, default ``runs/imitation-<game>``, ``--resume``,
``config.json``, ``tb/``) and holds ``games/chunk-*.npz`` (the teacher's samples, ``--games-per-chunk`` games per
file, each written atomically by a worker process), ``state.pt`` (the network, optimizer and counters after each
epoch), ``best.pt`` (the network of the epoch with the lowest validation loss) and ``metrics.csv`` (one row per
epoch). A kill loses at most the chunks being played or the epoch being trained; ``--resume`` goes on from there, and
may ask for more games or epochs. Every file is read without unpickling.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from agents.alphabeta import AlphaBetaAgent
from agents.alphazero.network import (
    CheckpointError,
    RingNet,
    build_network,
    checkpoint_network_config,
    network_from_checkpoint,
    num_rotations,
    read_checkpoint,
    rotate_samples,
    save_checkpoint,
)
from agents.checkpoint import atomic_write, load_arrays
from awale_env.games import get_game
from competition.progress import Clock, Progress
from training import run_logs, runs, teacher_games
from training.alphazero.imitation_config import RESUMABLE, ImitationConfig

TRAINER_NAME = "imitation"
STATE_FILE = "state.pt"
BEST_FILE = "best.pt"
#: Arrays of a chunk of teacher games, one row per position the teacher searched.
CHUNK_ARRAYS = ("obs", "action", "outcome", "score", "scored", "game")


# --- the teacher's games -------------------------------------------------------------------------------------------


def play_chunk(config: dict[str, Any], chunk: int) -> int:
    """Play the games of ``chunk`` and write their samples to its file (atomically); return the chunk."""
    cfg = ImitationConfig(**config)
    teacher = AlphaBetaAgent(depth=cfg.teacher_depth)
    games = [teacher_games.play_teacher_game(cfg, i, teacher) for i in teacher_games.chunk_games(cfg, chunk)]
    arrays = {name: np.concatenate([g[name] for g in games]) for name in CHUNK_ARRAYS}
    path = teacher_games.chunk_path(Path(cfg.run_dir), chunk)
    atomic_write(path, lambda file: np.savez(file, **arrays))
    return chunk


def play_chunks(config: ImitationConfig, chunks: list[int], progress: Progress) -> None:
    """Play ``chunks`` in ``config.workers`` processes (none: here), updating ``progress`` as each is written."""
    teacher_games.chunk_path(Path(config.run_dir), 0).parent.mkdir(parents=True, exist_ok=True)
    if config.workers == 0 or not chunks:
        for chunk in chunks:
            play_chunk(config.to_dict(), chunk)
            progress.update(1, f"chunk {chunk} of the teacher's games written")
        return
    with teacher_games.worker_pool(min(config.workers, len(chunks))) as pool:
        for chunk in pool.imap_unordered(_play_chunk_job, [(config.to_dict(), chunk) for chunk in chunks]):
            progress.update(1, f"chunk {chunk} of the teacher's games written")


def _play_chunk_job(job: tuple[dict[str, Any], int]) -> int:
    return play_chunk(*job)


def read_chunks(config: ImitationConfig, read: dict[int, dict[str, np.ndarray]] | None = None) -> dict[str, np.ndarray]:
    """The samples of the chunks of the run's ``games``, checked (those of the chunks in ``read`` already read:
    :func:`read_chunk`); CheckpointError for a damaged file."""
    read = read or {}
    parts = [read[chunk] if chunk in read else read_chunk(config, chunk) for chunk in range(config.chunks)]
    return {name: np.concatenate([p[name] for p in parts]) for name in CHUNK_ARRAYS}


def read_chunk(config: ImitationConfig, chunk: int) -> dict[str, np.ndarray]:
    """The samples of the chunk ``chunk`` of the run's games, checked; CheckpointError for a damaged file."""
    path = teacher_games.chunk_path(Path(config.run_dir), chunk)
    return check_chunk(load_arrays(path.read_bytes(), repr(str(path))), repr(str(path)), get_game(config.game))


#: The kind of values of each array of a chunk (numpy's dtype kinds: f float, i/u integer, b bool).
CHUNK_KINDS = {"obs": "f", "action": "iu", "outcome": "f", "score": "iu", "scored": "b", "game": "iu"}


def check_chunk(arrays: dict[str, np.ndarray], source: str, game: Any) -> dict[str, np.ndarray]:
    """The arrays of a chunk of ``game``'s teacher samples, checked, their floats as float32: CheckpointError naming
    ``source`` and the array that is missing, of the wrong shape or kind, or holds values no teacher game gives (a NaN
    or an infinity, a move outside the game's, an outcome other than -1, 0 or 1), so that nothing damaged is trained
    on."""
    n = len(arrays.get("action", ()))
    shapes = {"obs": (n, game.obs_size), **{name: (n,) for name in CHUNK_ARRAYS[1:]}}
    for name, shape in shapes.items():
        if name not in arrays or arrays[name].shape != shape:
            found = "missing" if name not in arrays else f"of shape {arrays[name].shape}"
            raise CheckpointError(
                f"{source}: array {name!r} is {found}, not {shape} (a chunk holds teacher samples of {game.name}: "
                f"{', '.join(shapes)})"
            )
        if arrays[name].dtype.kind not in CHUNK_KINDS[name]:
            kind = {"f": "floats", "iu": "integers", "b": "booleans"}[CHUNK_KINDS[name]]
            raise CheckpointError(f"{source}: array {name!r} holds {arrays[name].dtype}, not {kind}")
    # The network trains in float32: a chunk of other floats (float64, written by other tools) is converted, and a
    # value beyond float32's range becomes an infinity, refused below.
    with np.errstate(over="ignore"):
        arrays = arrays | {name: arrays[name].astype(np.float32, copy=False) for name in ("obs", "outcome")}
    for name in ("obs", "outcome"):
        if not np.isfinite(arrays[name]).all():
            raise CheckpointError(f"{source}: array {name!r} holds non-finite values (NaN or infinity)")
    if n and not (0 <= arrays["action"].min() and arrays["action"].max() < game.num_actions):
        raise CheckpointError(f"{source}: array 'action' holds moves outside 0-{game.num_actions - 1}")
    if not np.isin(arrays["outcome"], (-1.0, 0.0, 1.0)).all():
        raise CheckpointError(f"{source}: array 'outcome' holds values other than -1, 0 and 1")
    return {name: arrays[name] for name in CHUNK_ARRAYS}


# --- training ------------------------------------------------------------------------------------------------------


def losses(net: RingNet, obs: np.ndarray, action: np.ndarray, value: np.ndarray) -> tuple[torch.Tensor, ...]:
    """Cross-entropy to the teacher's moves, squared error to the value targets, and the share of moves matched."""
    logits, predicted = net(torch.from_numpy(obs))
    target = torch.from_numpy(action.astype(np.int64))
    policy_loss = F.cross_entropy(logits, target)
    value_loss = F.mse_loss(predicted, torch.from_numpy(value))
    agreement = (logits.argmax(1) == target).float().mean()
    return policy_loss, value_loss, agreement


def evaluate(net: RingNet, obs: np.ndarray, action: np.ndarray, value: np.ndarray) -> dict[str, float]:
    """Mean losses and agreement of ``net`` on held-out positions."""
    net.eval()
    totals = np.zeros(3)
    with torch.no_grad():
        for start in range(0, len(action), 4096):
            part = slice(start, start + 4096)
            totals += [float(x) * len(action[part]) for x in losses(net, obs[part], action[part], value[part])]
    policy, value_error, agreement = (float(x) for x in totals / max(len(action), 1))
    return {"val_policy_loss": policy, "val_value_loss": value_error, "val_agreement": agreement}


def learning_rate(config: ImitationConfig, progress: float) -> float:
    """Cosine decay from the configured rate to a twentieth of it over the run (``progress`` in [0, 1])."""
    return config.learning_rate * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * progress)))


def train_epoch(
    net: RingNet, optimizer: torch.optim.Optimizer, data: tuple[np.ndarray, ...], config: ImitationConfig,
    epoch: int, rng: np.random.Generator,
) -> dict[str, float]:  # fmt: skip
    """One pass over the training positions in random order (each turned by a random rotation when augmenting)."""
    obs, action, value = data
    game = get_game(config.game)
    order = rng.permutation(len(action))
    steps = max(len(order) // config.batch_size, 1)
    totals = np.zeros(3)
    net.train()
    for step in range(steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(config, (epoch + step / steps) / config.epochs)
        rows = order[step * config.batch_size : (step + 1) * config.batch_size]
        batch_obs, batch_action = obs[rows], action[rows]
        if config.augment and game.symmetry_step:
            one_hot = np.eye(game.num_actions, dtype=np.float32)[batch_action]
            shifts = rng.integers(0, num_rotations(game), len(rows))
            batch_obs, one_hot = rotate_samples(batch_obs, one_hot, shifts, game)
            batch_action = one_hot.argmax(1)
        policy_loss, value_loss, agreement = losses(net, batch_obs, batch_action, value[rows])
        optimizer.zero_grad(set_to_none=True)
        (policy_loss + value_loss).backward()
        optimizer.step()
        totals += [policy_loss.item(), value_loss.item(), agreement.item()]
    net.eval()
    policy, value_error, agreement = (float(x) for x in totals / steps)
    return {"policy_loss": policy, "value_loss": value_error, "agreement": agreement, "steps": steps}


class Run:
    """An imitation run's network, optimizer and counters, and its files."""

    def __init__(self, config: ImitationConfig, teacher_s: float = 0.0, open_files: bool = True) -> None:
        """``teacher_s``: seconds this session spent on the teacher's games before, counted in the run's training
        time (its clock counts from now). Without ``open_files`` it writes nothing: a resume's checkpoint is read and
        checked, and :meth:`open_files` makes the run's first writes."""
        self.config = config
        self.dir = Path(config.run_dir)
        torch.manual_seed(config.seed)
        torch.set_num_threads(config.torch_threads)
        self.net = build_network(config.network_config())
        self.optimizer = torch.optim.AdamW(
            self.net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
        )
        self.rng = np.random.default_rng(config.seed)
        self.epoch = 0
        self.best_loss = math.inf
        self.score_scale: float | None = None
        elapsed = 0.0
        if config.resume and (self.dir / STATE_FILE).exists():  # else only games were played: start training anew
            elapsed = self._resume()
        self.clock = Clock(elapsed + teacher_s)
        self.metrics = run_logs.CsvLog(self.dir / "metrics.csv", "epoch")
        if open_files:
            self.open_files()

    def open_files(self) -> None:
        """The run's first writes: the metrics a stopped run logged after its checkpoint forgotten, TensorBoard's
        writer."""
        self.metrics.keep_until(self.epoch)
        self.writer = run_logs.tensorboard_writer(self.dir, self.epoch)

    def _resume(self) -> float:
        path = self.dir / STATE_FILE
        source = repr(str(path))
        payload = read_checkpoint(path)
        if checkpoint_network_config(payload) != self.config.network_config().to_dict():
            raise CheckpointError(
                f"{source} holds a network {checkpoint_network_config(payload)}, not the configured "
                f"{self.config.network_config().to_dict()}: resume with the same network options"
            )
        self.net.load_state_dict(network_from_checkpoint(payload, source=source).state_dict())
        try:
            self.optimizer.load_state_dict(payload["optimizer"])
            self.epoch = runs.saved_count(payload["epoch"], "epoch", source)
            self.best_loss = float(payload["best_loss"])
            self.score_scale = float(payload["score_scale"])
            self.rng.bit_generator.state = json.loads(payload["rng"])
            torch.set_rng_state(payload["torch_rng"])
            return float(payload["elapsed"])
        except CheckpointError:
            raise  # a counter out of range: named with its field
        except runs.MANGLED_STATE as error:
            detail = f"{type(error).__name__}: {error}"
            raise CheckpointError(f"{source} lacks or mangles the training state: {detail}") from None

    def save_best(self) -> None:
        save_checkpoint(self.dir / BEST_FILE, self.net, epoch=self.epoch, run_config=self.config.to_dict())

    def save_state(self) -> None:
        save_checkpoint(
            self.dir / STATE_FILE, self.net, optimizer=self.optimizer.state_dict(), epoch=self.epoch,
            best_loss=self.best_loss, score_scale=self.score_scale, rng=json.dumps(self.rng.bit_generator.state),
            torch_rng=torch.get_rng_state(), elapsed=self.clock.elapsed(), run_config=self.config.to_dict(),
        )  # fmt: skip


def split(samples: dict[str, np.ndarray], value: np.ndarray, every: int) -> tuple[tuple[np.ndarray, ...], ...]:
    """(training, validation) arrays (obs, action, value): every ``every``-th game is kept for validation."""
    held = samples["game"] % every == 0
    pick = lambda rows: (samples["obs"][rows], samples["action"][rows], value[rows])  # noqa: E731
    return pick(~held), pick(held)


def train(config: ImitationConfig) -> Run:
    """Play the teacher's missing games, then train (or with ``config.resume`` go on) to ``config.epochs``. The games
    already played and a resume's checkpoint are read and checked first: a damaged file is refused before the run
    directory is written or created."""
    config, run_dir = runs.check_start(TRAINER, config)
    missing = teacher_games.missing_chunks(config)
    played = {chunk: read_chunk(config, chunk) for chunk in range(config.chunks) if chunk not in missing}
    run = Run(config, open_files=False)  # its clock counts the teacher's games too (the metrics' elapsed_s)
    runs.prepare(TRAINER, config)
    progress = Progress("teacher games", config.chunks, config.chunks - len(missing), "chunk", Clock(),
                             config.progress, every=0)  # fmt: skip
    try:
        play_chunks(config, missing, progress)
    finally:
        progress.close()
    samples = read_chunks(config, played)
    run.open_files()
    if run.score_scale is None:
        run.score_scale = teacher_games.fit_score_scale(
            samples["score"][samples["scored"]], samples["outcome"][samples["scored"]]
        )
    value = teacher_games.value_targets(samples, run.score_scale, config.score_weight)
    training, validation = split(samples, value, config.validation_every)
    epochs = Progress(TRAINER_NAME, config.epochs, run.epoch, "epoch", run.clock, config.progress, every=0)
    try:
        while run.epoch < config.epochs:
            row = train_epoch(run.net, run.optimizer, training, config, run.epoch, run.rng)
            row |= evaluate(run.net, *validation)
            run.epoch += 1
            row |= {"epoch": run.epoch, "elapsed_s": round(run.clock.elapsed(), 1), "positions": len(training[1]),
                    "score_scale": run.score_scale}  # fmt: skip
            loss = row["val_policy_loss"] + row["val_value_loss"]
            if loss < run.best_loss or not (run_dir / BEST_FILE).exists():
                run.best_loss = loss
                run.save_best()
            for key, number in row.items():
                if key != "epoch":
                    run.writer.add_scalar(runs.tag(key), number, run.epoch)
            run.writer.flush()
            run.metrics.append([row])
            run.save_state()
            epochs.update(1, f"epoch {run.epoch}: moves matched {row['val_agreement']:.1%}, "
                             f"value loss {row['val_value_loss']:.3f} (held-out games)")  # fmt: skip
    finally:
        epochs.close()
        run.writer.close()
    return run


def resolved(config: ImitationConfig) -> ImitationConfig:
    """``config`` with the game's defaults filled in (run directory, ply limit)."""
    return dataclasses.replace(config, **runs.game_defaults(config, TRAINER_NAME))


TRAINER = runs.Trainer(
    TRAINER_NAME,
    ImitationConfig,
    resolved,
    train,
    STATE_FILE,
    RESUMABLE,
    other_checkpoints=(f"{teacher_games.CHUNKS_DIR}/*.npz",),
)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (``awale train imitation``): parse :class:`ImitationConfig` with tyro and train."""
    run = runs.main(TRAINER, argv, runs.summary(__doc__))
    best = run.dir / BEST_FILE
    print(f"network: {best} (play it with {runs.play_spec('alphazero', best)}, or go on with "
          f"'awale train alphazero --game {run.config.game} --init-from {best}')")  # fmt: skip


if __name__ == "__main__":
    main()
