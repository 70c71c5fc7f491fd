"""Self-play PPO for any game of the toolkit: sb3-contrib's MaskablePPO against a pool of opponents.

Why it learns where the PettingZoo + MaskablePPO recipe barely does: every transition belongs to one player. The
learner plays one seat of :class:`awale_env.gym_env.AwaleEnv` and the opponent moves inside ``step()``, so the
learner sees only its own observations (the board from its side) and its own rewards, including the result of a
game the opponent ends. Actions are *relative* to the learner's seat (:class:`agents.ppo.LearnerView`), so one
network plays both seats with the same weights. Opponents come from a pool: random, greedy, and frozen snapshots of
the learner taken every few updates, sampled with a bias to recent ones; the learner's seat is drawn at random every
game. By default the network also sees, for each move, what it captures and the most the opponent can capture in
reply (:func:`agents.ppo.tactics`). On the two-colour Awale the defaults train in about 7 minutes on 2 shared CPU
cores and beat random and greedy in 200 of 200 games (docs/ppo.md). ``--teacher-games N`` first clones alpha-beta's
moves into the network (:mod:`training.ppo_teacher`) and ``--league SPEC ...`` adds fixed agents to the pool: the
recipe of the shipped policy.

Usage (every field of :class:`Args` is an option; ``--help`` lists them)::

    awale train ppo                                   # or: python -m training.ppo_selfplay; into runs/ppo-awale16
    awale train ppo --resume                          # continue it from its last checkpoint
    awale train ppo --resume --total-timesteps 3000000
    tensorboard --logdir runs/ppo-awale16/tb ;  python -m training.plots runs/ppo-awale16

The run directory (:mod:`training.runs`: the conventions every trainer shares) holds ``config.json``,
``checkpoints/step_*.zip`` and ``checkpoints/last.zip``, a second name (a hard link) of the newest (see
:mod:`agents.ppo` for the format; ``ppo:path=runs/ppo-awale16/checkpoints/last.zip`` plays one), ``eval.csv`` (win
rates against the evaluation opponents with game counts) and ``tb/`` (TensorBoard: SB3's training metrics and the win
rates). A resume goes on from the newest complete checkpoint, rebuilding the model from the run's options and the
checkpoint's tensors: it never unpickles anything (:func:`agents.ppo.read_training_checkpoint`).
"""

from __future__ import annotations

import ast
import base64
import dataclasses
import errno
import json
import os
import random
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import torch
import tyro
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger, TensorBoardOutputFormat
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv

import agents
from agents.alphabeta import MAX_DEPTH
from agents.checkpoint import atomic_write
from agents.ppo import (
    ACTIVATIONS,
    CHECKPOINT_FORMAT,
    NETWORK_OPTIONS,
    PLAY_MEMBERS,
    TRAINING_MEMBERS,
    PolicyNet,
    PPOAgent,
    TrainingCheckpoint,
    default_features,
    input_size,
    load_networks,
    new_sb3_model,
    open_checkpoint,
    pool_members,
    pretrained_path,
    read_config,
    read_training_checkpoint,
    restore_sb3,
    sb3_env,
    sb3_members,
)
from awale_env.errors import CheckpointError
from awale_env.games import DEFAULT_GAME, GAMES, get_game
from training import ppo_teacher, runs

TRAINER_NAME = "ppo"
#: Where a run's checkpoints go, relative to its directory: ``step_<moves>.zip`` files and ``last.zip``, the newest
#: of them (a second name of the same file, not a copy).
CHECKPOINT_DIR = "checkpoints"
CHECKPOINT = f"{CHECKPOINT_DIR}/last.zip"
STEP_CHECKPOINTS = f"{CHECKPOINT_DIR}/step_*.zip"

#: The options a resume may change: the run's length, its evaluations and checkpoints, and how it runs here.
RESUMABLE = (
    "total_timesteps",
    "eval_every",
    "eval_games",
    "eval_opponents",
    "checkpoint_every",
    "keep_checkpoints",
    "torch_threads",
    "progress",
    "teacher_workers",
)

#: The bounds of the integer options (:func:`training.runs.check_integers`) and of the network and the rollout: what
#: sizes memory, threads and the checkpoints is kept to what a machine holds.
BOUNDS = {
    "seed": (0, runs.MAX_SEED),
    "total_timesteps": (1, runs.MAX_COUNT),
    "n_envs": (1, 1024),
    "n_steps": (1, 1 << 20),
    "batch_size": (2, 1 << 20),  # advantages are normalised over a batch
    "n_epochs": (1, 1000),
    "max_plies": (1, runs.MAX_PLIES),
    "snapshot_every": (1, runs.MAX_COUNT),
    "pool_size": (1, 1000),
    "eval_every": (1, runs.MAX_COUNT),
    "eval_games": (1, 100_000),
    "checkpoint_every": (1, runs.MAX_COUNT),
    "keep_checkpoints": (1, 1000),
    "torch_threads": (1, runs.MAX_TORCH_THREADS),
    "teacher_games": (0, runs.MAX_COUNT),
    "teacher_depth": (1, MAX_DEPTH),
    "teacher_epochs": (1, 1000),
    "teacher_games_per_chunk": (1, 100_000),
    "teacher_workers": (0, runs.MAX_WORKERS),
}
MAX_ROLLOUT = 1 << 20
MAX_LAYERS = 16
MAX_WIDTH = 4096


@dataclass
class Args:
    """Self-play PPO on a game of the toolkit. The defaults train in well under 20 minutes on 2 CPU cores."""

    game: Annotated[str, tyro.conf.arg(help=f"the game to learn: {', '.join(GAMES)}")] = DEFAULT_GAME
    run_dir: Annotated[str | None, runs.computed_default("runs/ppo-<game>", "DIR")] = None
    """the run's directory: config.json, checkpoints/, eval.csv and TensorBoard events (tb/)"""
    resume: Annotated[bool, runs.resume_option(RESUMABLE)] = False
    seed: int = 1
    """seed of torch, numpy and the environments"""
    total_timesteps: int = 1_500_000
    """learner moves to train for"""
    n_envs: int = 16
    """games played side by side"""
    n_steps: int = 256
    """moves per game slot per update (an update learns from n_envs * n_steps moves)"""
    batch_size: int = 1024
    n_epochs: int = 4
    learning_rate: float = 1e-3
    anneal_lr: bool = True
    """decay the learning rate linearly to 0"""
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    """stop an update's epochs early once the approximate KL to the policy before it passes this (SB3's target_kl)"""
    net_arch: tuple[int, ...] = (128, 128)
    """hidden layers of the policy and (separately) of the value network"""
    activation: str = "tanh"
    """tanh or relu"""
    features: Annotated[str | None, runs.computed_default("tactics where the game has them, else board", "STR")] = None
    """the network's input: board (the env's observation) or tactics (board + each move's captures and the reply's)"""
    max_plies: Annotated[int | None, runs.computed_default("the game's ply limit", "INT")] = None
    """the ply limit of the games"""
    shaping: float = 1.0
    """weight of the capture-difference reward ((own - opponent's captures) / the game's seeds) added to +1/-1/0"""
    pool_random: float = 0.1
    """chance that a game is played against the random agent"""
    pool_greedy: float = 0.3
    """chance that a game is played against the greedy agent"""
    pool_snapshots: float = 0.6
    """chance that a game is played against a frozen snapshot of the learner (the others until the first)"""
    league: tuple[str, ...] = ()
    """agent specs of the league, fixed opponents of the pool (e.g. alphabeta:depth=2 alphabeta:depth=4)"""
    pool_league: float = 0.0
    """chance that a game is played against one of the league (drawn uniformly)"""
    snapshot_every: int = 10
    """updates between snapshots added to the pool"""
    pool_size: int = 20
    """snapshots kept (the oldest is dropped)"""
    recent_bias: float = 0.85
    """a snapshot k snapshots older than the newest is drawn with weight recent_bias**k"""
    snapshot_deterministic: bool = False
    """snapshots play their most probable move instead of sampling their policy"""
    eval_every: int = 100_000
    """learner moves between evaluations"""
    eval_games: int = 60
    """games per evaluation opponent (even: mirrored pairs from random openings, seats swapped)"""
    eval_opponents: tuple[str, ...] = ("random", "greedy", "alphabeta:depth=2")
    """agent specs the learner is evaluated against"""
    checkpoint_every: int = 100_000
    """learner moves between checkpoints (one is also written at the end)"""
    keep_checkpoints: int = 5
    """step_*.zip files kept (last.zip always holds the newest)"""
    torch_threads: int = 1
    progress: bool = True
    """show progress: a bar on a terminal, a line every 30 s and at every evaluation in a log"""
    teacher_games: int = 0
    """games alpha-beta plays against itself to clone before self-play (0: start from random weights)"""
    teacher_depth: int = 6
    """depth of the teacher's alpha-beta (the game's tuned evaluation)"""
    teacher_epochs: int = 8
    """passes of behaviour cloning over the teacher's moves"""
    teacher_learning_rate: float = 1e-3
    """Adam learning rate of behaviour cloning (decayed linearly to 0)"""
    teacher_games_per_chunk: int = 50
    """teacher games per file (a worker's unit of work)"""
    teacher_workers: int = 2
    """processes playing the teacher's games"""
    init_from: str | None = None
    """a PPO checkpoint to start from instead of random weights (a run's step_*.zip or last.zip, or pretrained: the
    policy shipped for --game); its game, features, net-arch and activation must be this run's, the optimizer starts
    afresh with this run's options"""


# --- the opponent pool ---------------------------------------------------------------------------------------------


class OpponentPool:
    """Random, greedy, the league and frozen snapshots of the learner; :meth:`sample` draws the next game's
    opponent."""

    KINDS = ("random", "greedy", "league", "snapshot")

    def __init__(self, args: Args) -> None:
        weights = np.array([args.pool_random, args.pool_greedy, args.pool_league, args.pool_snapshots], dtype=float)
        if (weights < 0).any() or weights.sum() <= 0:
            raise ValueError(f"pool weights must be >= 0 with a positive sum, got {weights.tolist()}")
        if not 0 < args.recent_bias <= 1:
            raise ValueError(f"recent_bias must be in (0, 1], got {args.recent_bias}")
        if args.pool_league > 0 and not args.league:
            raise ValueError("--pool-league needs agents in --league")
        self.league = tuple(args.league)
        self.weights = weights
        self.recent_bias = args.recent_bias
        self.size = args.pool_size
        self.deterministic = args.snapshot_deterministic
        self.snapshots: list[tuple[int, PolicyNet]] = []  # (learner moves when taken, policy), oldest first

    def add(self, step: int, net: PolicyNet) -> None:
        self.snapshots.append((step, net))
        del self.snapshots[: -self.size]

    def sample(self, rng: np.random.Generator, fixed: dict[str, Any]) -> tuple[str, Any]:
        """A (label, player) pair; ``fixed`` holds the caller's own random and greedy agents and league (by spec)."""
        weights = self.weights if self.snapshots else self.weights * [1, 1, 1, 0]
        kind = self.KINDS[int(rng.choice(len(self.KINDS), p=weights / weights.sum()))]
        if kind == "league":
            kind = self.league[int(rng.integers(len(self.league)))]
        if kind != "snapshot":
            return kind, fixed[kind]
        ages = np.arange(len(self.snapshots))[::-1]
        recency = self.recent_bias**ages
        index = int(rng.choice(len(self.snapshots), p=recency / recency.sum()))
        step, net = self.snapshots[index]
        label = f"snapshot@{step}"
        return label, PPOAgent.from_net(net, label, self.deterministic, seed=int(rng.integers(2**31)))


class PoolOpponent:
    """The opponent object of one environment: at every ``reset`` (a new game) it draws a player from the pool."""

    def __init__(self, pool: OpponentPool, seed: int) -> None:
        self.pool = pool
        self.rng = np.random.default_rng(seed)
        self.fixed = {"random": agents.make("random", seed=seed), "greedy": agents.make("greedy", seed=seed + 1)}
        for offset, spec in enumerate(pool.league, 2):
            self.fixed[spec] = agents.make(spec)
            agents.reset_agent(self.fixed[spec], seed + offset)
        self.label, self.player = "random", self.fixed["random"]

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            for offset, agent in enumerate(self.fixed.values()):
                agents.reset_agent(agent, seed + offset)
        self.label, self.player = self.pool.sample(self.rng, self.fixed)

    def act(self, state: Any) -> int:
        return self.player.act(state)


def make_env(pool: OpponentPool, args: Args, seed: int):
    def build():
        return sb3_env(args.game, PoolOpponent(pool, seed), args.features, args.shaping, "random", args.max_plies)

    return build


# --- evaluation ----------------------------------------------------------------------------------------------------

EVAL_FIELDS = ("games", "wins", "draws", "losses", "win_rate")
LEARNER = "learner"
OPENING_PLIES = 4  # random plies before each evaluation pair of games, as in the arena's round robins


def evaluate(
    net: PolicyNet, opponent: str, games: int, seed: int | list[int], max_plies: int | None = None
) -> dict[str, Any]:
    """Play ``games`` games (mirrored pairs sharing a random opening, seats swapped) of the deterministic policy
    against ``opponent`` (a spec) on the policy's game; return the counts and the win rate. Draws only on its own
    seeded generator, so evaluating does not change the course of training."""
    game = net.game
    limit = game.default_max_plies if max_plies is None else max_plies
    learner = PPOAgent.from_net(net, name=LEARNER)
    other = agents.make(opponent)
    rng = np.random.default_rng(seed)
    counts = {"wins": 0, "draws": 0, "losses": 0}
    for _ in range(games // 2):
        opening = game.initial(max_plies=limit, seed=int(rng.integers(2**63)))
        for _ in range(OPENING_PLIES):
            if not opening.is_terminal:
                opening = opening.play(int(rng.choice(opening.legal_actions())))
        for learner_seat in (0, 1):
            agents.reset_agent(other, int(rng.integers(2**31)))
            state = opening
            while not state.is_terminal:
                state = state.play((learner if state.to_move == learner_seat else other).act(state))
            key = "draws" if state.winner is None else "wins" if state.winner == learner_seat else "losses"
            counts[key] += 1
    return {"games": games, **counts, "win_rate": counts["wins"] / games}


# --- checkpoints ------------------------------------------------------------------------------------------------


def rng_state() -> dict[str, Any]:
    """The global generators SB3 draws from (torch: actions; numpy: minibatch order; python), JSON-safe."""
    kind, keys, pos, has_gauss, gauss = np.random.get_state()
    return {
        "torch": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode(),
        "numpy": [kind, keys.tolist(), pos, has_gauss, gauss],
        "python": repr(random.getstate()),
    }


def restore_rng_state(state: dict[str, Any], source: Path) -> None:
    """Set the generators to the states :func:`rng_state` saved; CheckpointError naming ``source`` for others."""
    try:
        torch.set_rng_state(torch.frombuffer(bytearray(base64.b64decode(state["torch"])), dtype=torch.uint8))
        kind, keys, pos, has_gauss, gauss = state["numpy"]
        np.random.set_state((kind, np.array(keys, dtype=np.uint32), pos, has_gauss, gauss))
        random.setstate(ast.literal_eval(state["python"]))
    except (*runs.MANGLED_STATE, SyntaxError, MemoryError) as error:
        raise CheckpointError(f"{source}: its random states are unreadable: {type(error).__name__}: {error}") from None


def write_checkpoint(path: Path, model: MaskablePPO, args: Args, pool: OpponentPool, trainer: dict[str, Any]) -> None:
    """Write one checkpoint zip (:mod:`agents.ppo` describes it) atomically: a kill or a full disk leaves neither
    half a file under ``path`` nor a temporary file beside it."""
    config = {
        "format": CHECKPOINT_FORMAT,
        "args": dataclasses.asdict(args),
        "num_timesteps": int(model.num_timesteps),
        "trainer": trainer,
        "rng": rng_state(),
        "sb3": {"n_updates": int(model._n_updates)},
    }
    members = {
        "config.json": json.dumps(config, indent=1).encode(),
        "policy.npz": PolicyNet.from_sb3(model.policy, args.activation, args.features, args.game).to_npz(),
        **sb3_members(model),
        **pool_members(pool.snapshots),
    }

    def write(file: Any) -> None:
        with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data in members.items():
                archive.writestr(name, data)

    atomic_write(path, write)


#: What ``os.link`` raises on a file system without hard links (there ``last.zip`` is a copy).
NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK}


def link_last(path: Path) -> None:
    """Make ``last.zip`` beside the checkpoint ``path`` name it too: a hard link, so no second copy on disk; atomic,
    so ``last.zip`` names the previous checkpoint until then."""
    last = path.with_name("last.zip")
    tmp = last.with_name(last.name + ".tmp")
    tmp.unlink(missing_ok=True)
    try:
        os.link(path, tmp)
        os.replace(tmp, last)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        if error.errno not in NO_HARD_LINKS:
            raise
        atomic_write(last, lambda file: file.write(path.read_bytes()))


def checkpoint_files(run_dir: Path) -> list[Path]:
    """The checkpoint files of the run in ``run_dir``: ``last.zip``, then the ``step_*.zip`` newest first."""
    last = run_dir / CHECKPOINT
    return ([last] if last.exists() else []) + sorted(run_dir.glob(STEP_CHECKPOINTS), reverse=True)


def newest_checkpoint(run_dir: Path) -> TrainingCheckpoint:
    """The checkpoint a resume goes on from: of the run's complete checkpoints, the one with the most moves
    (``last.zip`` but for a run stopped while it was written). CheckpointError when none is complete."""
    newest, errors = None, []
    for path in checkpoint_files(run_dir):
        try:
            checkpoint = read_training_checkpoint(path)
        except CheckpointError as error:
            errors.append(error)
            continue
        if newest is None or checkpoint.num_timesteps > newest.num_timesteps:
            newest = checkpoint
    if newest is None:
        found = f"{errors[0]}" if errors else "there is none"
        raise CheckpointError(f"no complete checkpoint to resume from in {run_dir / CHECKPOINT_DIR}: {found}")
    return newest


def without_pool(path: str | Path, out: str | Path) -> None:
    """Copy the checkpoint ``path`` (checked as a resume checks it) to ``out`` without its opponent pool: the file
    ``agents/pretrained`` ships, a fraction of the size. It plays and fine-tunes as the original; a resume from it
    starts with an empty pool."""
    read_training_checkpoint(path)
    with open_checkpoint(path) as archive:
        members = {name: archive.read(name) for name in (*PLAY_MEMBERS, *TRAINING_MEMBERS)}
    members["pool/index.json"] = b"[]"

    def write(file: Any) -> None:
        with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data in members.items():
                archive.writestr(name, data)

    atomic_write(Path(out), write)


# --- the training loop ---------------------------------------------------------------------------------------------


class TensorBoardFormat(TensorBoardOutputFormat):
    """SB3's TensorBoard output through the run's writer (:func:`training.runs.tensorboard_writer`)."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self._is_closed = False


class SelfPlay(BaseCallback):
    """Between updates: add snapshots to the pool, evaluate, checkpoint; after every move: the progress."""

    def __init__(
        self, args: Args, pool: OpponentPool, run_dir: Path, trainer: dict[str, Any], progress: runs.Progress
    ) -> None:
        super().__init__()
        self.args, self.pool, self.run_dir, self.trainer, self.progress = args, pool, run_dir, trainer, progress
        self.eval_log = runs.CsvLog(run_dir / "eval.csv", "steps")

    def _on_step(self) -> bool:
        self.progress.update(self.training_env.num_envs)
        return True

    def _on_rollout_start(self) -> None:
        if self.num_timesteps > self.trainer["last_update_steps"]:  # an update has just been made
            self.trainer["last_update_steps"] = self.num_timesteps
            self.between_updates(final=False)

    def between_updates(self, final: bool) -> None:
        args, trainer, steps = self.args, self.trainer, self.num_timesteps
        trainer["updates"] += 1
        if trainer["updates"] % args.snapshot_every == 0:
            self.pool.add(steps, PolicyNet.from_sb3(self.model.policy, args.activation, args.features, args.game))
        if final or steps >= trainer["next_eval"]:
            self.evaluate(steps)
            trainer["next_eval"] = (steps // args.eval_every + 1) * args.eval_every
        if final or steps >= trainer["next_checkpoint"]:
            trainer["next_checkpoint"] = (steps // args.checkpoint_every + 1) * args.checkpoint_every
            self.checkpoint(steps)

    def evaluate(self, steps: int) -> None:
        net = PolicyNet.from_sb3(self.model.policy, self.args.activation, self.args.features, self.args.game)
        elapsed = self.progress.clock.elapsed()
        rows = []
        for i, spec in enumerate(self.args.eval_opponents):
            result = evaluate(net, spec, self.args.eval_games, [self.args.seed, steps, i], self.args.max_plies)
            rows.append({"steps": steps, "elapsed_s": round(elapsed, 1), "opponent": spec, **result})
            self.logger.record(f"eval/win_rate_{runs.tag(spec)}", result["win_rate"])
        self.logger.record("eval/pool_snapshots", len(self.pool.snapshots))
        self.logger.dump(steps)
        self.eval_log.append(rows)
        rates = " ".join(f"{row['opponent']}={row['win_rate']:.0%}" for row in rows)
        self.progress.status(f"win rates at {steps:,}: {rates}")

    def checkpoint(self, steps: int) -> None:
        directory = self.run_dir / CHECKPOINT_DIR
        directory.mkdir(parents=True, exist_ok=True)
        self.trainer["elapsed"] = self.progress.clock.elapsed()
        path = directory / f"step_{steps:09d}.zip"
        write_checkpoint(path, self.model, self.args, self.pool, self.trainer)
        link_last(path)
        for old in sorted(self.run_dir.glob(STEP_CHECKPOINTS))[: -self.args.keep_checkpoints]:
            old.unlink()


def resolved(args: Args) -> Args:
    """``args`` with the game's defaults filled in (run directory, features, ply limit), as checkpoints record them;
    ValueError for bad options."""
    if args.game not in GAMES:
        raise ValueError(f"--game must be one of {', '.join(GAMES)}, got {args.game!r}")
    game = get_game(args.game)
    args = dataclasses.replace(
        args,
        run_dir=args.run_dir or runs.default_run_dir(TRAINER_NAME, game.name),
        features=args.features or default_features(game),
        max_plies=game.default_max_plies if args.max_plies is None else args.max_plies,
        eval_opponents=tuple(args.eval_opponents),
        league=tuple(args.league),
        net_arch=tuple(args.net_arch),
    )
    check_args(args)
    return args


def check_args(args: Args) -> None:
    """Refuse bad options before anything is built (``args`` resolved by :func:`resolved`): ValueError naming the
    option and what it allows."""
    for name in ("learning_rate", "clip_range", "max_grad_norm"):
        runs.check_number(args, name, 0, exclusive=True)
    for name in ("gamma", "gae_lambda"):
        runs.check_number(args, name, 0, 1)
    pools = ("pool_random", "pool_greedy", "pool_league", "pool_snapshots")
    for name in ("ent_coef", "vf_coef", "shaping", *pools):
        runs.check_number(args, name, 0)
    runs.check_number(args, "recent_bias", 0, 1, exclusive=True)
    runs.check_number(args, "teacher_learning_rate", 0, exclusive=True)
    if args.target_kl is not None:
        runs.check_number(args, "target_kl", 0, exclusive=True)
    if sum(getattr(args, name) for name in pools) <= 0:
        raise ValueError("--pool-random, --pool-greedy, --pool-league and --pool-snapshots must not all be 0")
    if args.pool_league > 0 and not args.league:
        raise ValueError("--pool-league needs agents in --league (e.g. --league alphabeta:depth=2)")
    if args.init_from is not None and args.teacher_games:
        raise ValueError("--init-from and --teacher-games both choose the starting network: give one of them")
    runs.check_types(args)
    runs.check_integers(args, BOUNDS)  # max_plies None: only the rules end a game
    if args.n_envs * args.n_steps > MAX_ROLLOUT:
        raise ValueError(
            f"--n-envs x --n-steps must be at most {MAX_ROLLOUT:,} (the moves of an update, held in memory), got "
            f"{args.n_envs} x {args.n_steps}"
        )
    if args.eval_games % 2:
        raise ValueError(f"--eval-games must be even (each opening is played from both seats), got {args.eval_games}")
    try:
        input_size(args.game, args.features)
    except ValueError as error:
        raise ValueError(f"--features: {error}") from None
    if args.activation not in ACTIVATIONS:
        raise ValueError(f"--activation must be one of {', '.join(ACTIVATIONS)}, got {args.activation!r}")
    if not args.net_arch or min(args.net_arch) < 1:
        raise ValueError(f"--net-arch needs at least one positive layer width, got {args.net_arch}")
    if len(args.net_arch) > MAX_LAYERS or max(args.net_arch) > MAX_WIDTH:
        raise ValueError(f"--net-arch holds at most {MAX_LAYERS} layers of {MAX_WIDTH} units, got {args.net_arch}")
    for spec in (*args.eval_opponents, *args.league):
        agents.parse_spec(spec)


def saved_options(run_dir: Path) -> dict[str, Any] | None:
    """The options of the run in ``run_dir``: its config.json, or for a directory holding only checkpoints (one
    copied there) those of its ``last.zip`` (or newest ``step_*.zip``)."""
    options = runs.read_config(run_dir)
    files = checkpoint_files(run_dir)
    if options is None and files:
        with open_checkpoint(files[0]) as archive:
            options = read_config(archive)["args"]
    return options


def initial_checkpoint(args: Args) -> TrainingCheckpoint:
    """The checkpoint ``--init-from`` names, read and checked against the run's options (``args`` resolved):
    CheckpointError for a file that is not a trainable PPO checkpoint, ValueError for one of another network."""
    path = pretrained_path(args.game) if args.init_from == "pretrained" else Path(args.init_from)
    if args.init_from == "pretrained" and not path.is_file():
        raise ValueError(f"--init-from pretrained: no PPO policy is shipped for {args.game}; give a checkpoint's path")
    source = read_training_checkpoint(path)
    mine = dataclasses.asdict(args)
    differ = [
        f"--{name.replace('_', '-')} {source.args.get(name)} (this run: {list_or_value(mine[name])})"
        for name in ("game", "features", *NETWORK_OPTIONS)
        if list_or_value(source.args.get(name)) != list_or_value(mine[name])
    ]
    if differ:
        raise ValueError(f"--init-from {path} is a network of another shape: it has {'; '.join(differ)}")
    return source


def list_or_value(value: Any) -> Any:
    """Options compared across JSON: a tuple and the list it was saved as are the same option."""
    return list(value) if isinstance(value, (list, tuple)) else value


def train(args: Args) -> Path:
    """Train (or with ``args.resume`` continue) a run; return the path of its final checkpoint."""
    initial = initial_checkpoint(resolved(args)) if args.init_from is not None and not args.resume else None
    args, run_dir = runs.start(TRAINER, args)
    torch.set_num_threads(args.torch_threads)
    set_random_seed(args.seed)
    pool = OpponentPool(args)
    trainer = {"updates": 0, "last_update_steps": 0, "next_eval": 0, "next_checkpoint": args.checkpoint_every}
    trainer["elapsed"] = 0.0
    resumed = None
    if args.resume:
        resumed = newest_checkpoint(run_dir)
        saved = resumed.config["trainer"]
        if any(not isinstance(saved.get(key), type(value)) for key, value in trainer.items()):
            raise CheckpointError(f"{resumed.path}: its trainer's counters are not {', '.join(trainer)}")
        trainer = saved
        pool.snapshots = resumed.pool
    env_seed = args.seed + (resumed.num_timesteps if resumed else 0)  # a resume plays new games, not the first again
    env = DummyVecEnv([make_env(pool, args, env_seed * 1000 + i) for i in range(args.n_envs)])
    model = new_sb3_model(dataclasses.asdict(args), env, seed=args.seed)
    env.seed(env_seed)
    if resumed:
        restore_sb3(model, resumed)
        restore_rng_state(resumed.config["rng"], resumed.path)
    done = model.num_timesteps
    runs.CsvLog(run_dir / "eval.csv", "steps").keep_until(done)  # forget what a stopped run logged after its checkpoint
    writer = runs.tensorboard_writer(run_dir, done)
    model.set_logger(Logger(str(run_dir), [TensorBoardFormat(writer)]))
    rollout = args.n_envs * args.n_steps
    total = max(-(-args.total_timesteps // rollout) * rollout, done)  # SB3 finishes the rollout it is in
    progress = runs.Progress(TRAINER_NAME, total, done, "move", runs.Clock(trainer["elapsed"]), args.progress)
    callback = SelfPlay(args, pool, run_dir, trainer, progress)
    try:
        if args.teacher_games and not resumed:
            clone_teacher(model, args, run_dir, callback)
        if initial is not None:
            load_networks(model, initial, optimizer=False)
            first_point(model, args, callback)
        if args.total_timesteps > done:
            model.learn(args.total_timesteps - done, callback=callback, reset_num_timesteps=not args.resume,
                        log_interval=1)  # fmt: skip
            trainer["last_update_steps"] = model.num_timesteps
            callback.between_updates(final=True)
    finally:
        progress.close()
        writer.close()
        env.close()
    return run_dir / CHECKPOINT


def clone_teacher(model: MaskablePPO, args: Args, run_dir: Path, callback: SelfPlay) -> None:
    """Before self-play: clone alpha-beta's moves into the policy (:mod:`training.ppo_teacher`), log the epochs to
    ``teacher.csv``, then evaluate, add the cloned policy to the pool and write the checkpoint of move 0 (a resume
    goes on from it)."""
    options = ppo_teacher.TeacherOptions(
        args.game, args.features, args.seed, args.teacher_games, args.teacher_depth, args.max_plies,
        args.teacher_games_per_chunk,
    )  # fmt: skip
    teacher_dir = run_dir / ppo_teacher.TEACHER_DIR
    progress = callback.progress
    progress.status(f"alpha-beta at depth {args.teacher_depth} plays {args.teacher_games} games to clone")
    ppo_teacher.play_games(options, teacher_dir, args.teacher_workers, progress)
    samples = ppo_teacher.read_games(options, teacher_dir)
    progress.note(f"cloning {len(samples['action']):,} teacher moves for {args.teacher_epochs} epochs")
    log = runs.CsvLog(run_dir / "teacher.csv", "epoch")
    log.keep_until(0)
    for row in ppo_teacher.clone(model.policy, samples, args.teacher_epochs, args.teacher_learning_rate,
                                 args.batch_size, args.seed):  # fmt: skip
        log.append([row])
        progress.note(
            f"cloning epoch {row['epoch']}: agreement {row['agreement']:.1%}, held out {row['val_agreement']:.1%}"
        )
    first_point(model, args, callback)


def first_point(model: MaskablePPO, args: Args, callback: SelfPlay) -> None:
    """The starting network (cloned or given) before self-play: evaluate it, add it to the pool and write the
    checkpoint of move 0 (a resume goes on from it)."""
    callback.init_callback(model)
    callback.pool.add(0, PolicyNet.from_sb3(model.policy, args.activation, args.features, args.game))
    callback.evaluate(0)
    callback.trainer["next_eval"] = args.eval_every
    callback.checkpoint(0)


TRAINER = runs.Trainer(TRAINER_NAME, Args, resolved, train, CHECKPOINT, RESUMABLE, saved_options, (STEP_CHECKPOINTS,))


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (``awale train ppo``): parse :class:`Args` with tyro and train."""
    path = runs.main(TRAINER, argv, __doc__.split("\n\n")[0])
    print(f"final checkpoint: {path} (play it with the agent spec {runs.play_spec('ppo', path)})")


if __name__ == "__main__":
    main()
