"""Self-play PPO for any game of the toolkit (the two-colour Awale by default; ``--game oware`` / ``hawalis``):
sb3-contrib ``MaskablePPO`` against a pool of opponents.

Why it learns where the PettingZoo + MaskablePPO recipe barely does: every transition belongs to one player. The
learner plays one seat of :class:`awale_env.gym_env.AwaleEnv` and the opponent moves inside ``step()``, so the
learner sees only its own observations (the board from its side) and its own rewards, including the result of a
game the opponent ends. Actions are *relative* to the learner's seat (:class:`LearnerView`; Oware's and Hawalis's
actions already are), so one network plays both seats with the same weights. Opponents come from a pool: random,
greedy, and frozen snapshots of the learner taken every few updates, sampled with a bias to recent ones; the
learner's seat is drawn at random every game. On the two-colour Awale the network also sees by default, for each
move, what it captures and the most the opponent can capture in reply (:func:`agents.ppo.tactics`); on the other
games it sees the board. On the two-colour Awale the defaults train in about 7 minutes on 2 shared CPU cores and beat
random and greedy in 200 of 200 games (docs/ppo.md).

Usage (every field of :class:`Args` is an option; ``--help`` lists them)::

    python -m training.ppo_selfplay --run-dir runs/ppo              # or: awale train ppo --run-dir runs/ppo
    python -m training.ppo_selfplay --resume runs/ppo               # continue a killed run from its last checkpoint
    tensorboard --logdir runs/ppo/tb ;  python -m training.plots runs/ppo

A run directory holds ``checkpoints/step_*.zip`` and ``checkpoints/last.zip`` (see :mod:`agents.ppo` for the
format; ``ppo:path=runs/ppo/checkpoints/last.zip`` plays one), ``eval.csv`` (win rates against the evaluation
opponents with game counts) and ``tb/`` (TensorBoard: SB3's training metrics and the win rates).
"""

from __future__ import annotations

import ast
import base64
import csv
import dataclasses
import io
import json
import os
import random
import re
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
import tyro
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger, TensorBoardOutputFormat
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

import agents
from agents.ppo import CHECKPOINT_FORMAT, PolicyNet, PPOAgent, input_size, observe, open_checkpoint, read_config
from awale_env.core import awale16 as core
from awale_env.games import GAMES, get_game
from awale_env.gym_env import AwaleEnv

ACTIVATION_MODULES = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


@dataclass
class Args:
    """Self-play PPO on a game of the toolkit. The defaults train in well under 20 minutes on 2 CPU cores."""

    game: str = "awale16"
    """the game: awale16 (the two-colour Awale), oware or hawalis (each with its default rules)"""
    run_dir: str = "runs/ppo"
    """where checkpoints, eval.csv and TensorBoard logs go"""
    resume: str | None = None
    """continue the run in this directory from its last checkpoint, with its saved configuration (only
    --total-timesteps may be changed, to extend it)"""
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
    net_arch: tuple[int, ...] = (128, 128)
    """hidden layers of the policy and (separately) of the value network"""
    activation: str = "tanh"
    """tanh or relu"""
    features: str | None = None
    """the network's input: 'board' (the env's observation) or, on awale16 only, 'tactics' (board + for each move
    the seeds it captures and the most the opponent can capture in reply; see agents.ppo.tactics); default:
    'tactics' on awale16, 'board' on the other games"""
    max_plies: int | None = None
    """the game's ply limit (default: the game's, 400 for awale16, 1000 for the others)"""
    shaping: float = 1.0
    """weight of the capture-difference reward (own minus opponent's seeds captured / the game's seeds) added to
    +1/-1/0"""
    pool_random: float = 0.1
    """chance that a game is played against the random agent"""
    pool_greedy: float = 0.3
    """chance that a game is played against the greedy agent"""
    pool_snapshots: float = 0.6
    """chance that a game is played against a frozen snapshot of the learner (random/greedy share it until the
    first snapshot)"""
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
    """games per evaluation opponent (an even number: mirrored pairs with seats swapped, random openings)"""
    eval_opponents: tuple[str, ...] | None = None
    """agent specs (default: random, greedy and alphabeta:depth=2 on awale16; random and greedy on the others)"""
    checkpoint_every: int = 100_000
    """learner moves between checkpoints (one is also written at the end)"""
    keep_checkpoints: int = 5
    """step_*.zip files kept (last.zip always holds the newest)"""
    torch_threads: int = 1
    progress: bool = True
    """show a progress bar"""


# --- the learner's side of the game --------------------------------------------------------------------------------


class LearnerView(gymnasium.Wrapper):
    """The learner's view of :class:`AwaleEnv`: relative actions and masks, and the capture-difference shaping.

    The observation is already the learner's (the board turned so its pits come first), so actions are taken in the
    same frame: relative action r is the game's action ``r + game.action_shift(seat)`` (mod the action count; on the
    two-colour Awale ``r + 2 * seat`` mod 32, on the other games r itself). Without this a network would have to
    guess its seat, which the observation does not show. The reward is the env's win/loss (+1/-1/0, reaching the
    learner also when the opponent's reply ends the game) plus ``shaping`` times the change of (own store -
    opponent's store) / the game's seeds over the step.
    """

    def __init__(self, env: AwaleEnv, shaping: float = 0.0, features: str = "board") -> None:
        super().__init__(env)
        if env.reward != "win_loss":
            raise ValueError(f"LearnerView adds its own shaping to the 'win_loss' reward, got reward={env.reward!r}")
        self.game = env.game_spec
        size = input_size(self.game, features)
        self.shaping = float(shaping)
        self.features = features
        if features != "board":
            low, high = env.observation_space.low, env.observation_space.high
            extra = size - len(low)
            self.observation_space = spaces.Box(
                np.concatenate([low, np.zeros(extra, dtype=np.float32)]),
                np.concatenate([high, np.full(extra, core.TOTAL_SEEDS / core.SEED_SCALE, dtype=np.float32)]),
                dtype=np.float32,
            )

    def reset(self, **kwargs: Any):
        observation, info = self.env.reset(**kwargs)
        return self._observe(observation), info

    def step(self, action: Any):
        env: AwaleEnv = self.env
        seat, n = env.learner, self.game.num_actions
        before = env.game.stores
        absolute = (int(action) + self.game.action_shift(seat)) % n if 0 <= int(action) < n else action
        observation, reward, terminated, truncated, info = env.step(absolute)
        after = env.game.stores
        gained = (after[seat] - before[seat]) - (after[1 - seat] - before[1 - seat])
        reward += self.shaping * gained / self.game.total_seeds
        return self._observe(observation), reward, terminated, truncated, info

    def _observe(self, board: np.ndarray) -> np.ndarray:
        return board if self.features == "board" else observe(self.env.game, self.env.learner, self.features)

    def action_masks(self) -> np.ndarray:
        return np.roll(self.env.action_masks(), -self.game.action_shift(self.env.learner))


# --- the opponent pool ---------------------------------------------------------------------------------------------


class OpponentPool:
    """Random, greedy and frozen snapshots of the learner; :meth:`sample` draws the next game's opponent."""

    def __init__(self, args: Args) -> None:
        weights = np.array([args.pool_random, args.pool_greedy, args.pool_snapshots], dtype=float)
        if (weights < 0).any() or weights.sum() <= 0:
            raise ValueError(f"pool weights must be >= 0 with a positive sum, got {weights.tolist()}")
        if not 0 < args.recent_bias <= 1:
            raise ValueError(f"recent_bias must be in (0, 1], got {args.recent_bias}")
        self.weights = weights
        self.recent_bias = args.recent_bias
        self.size = args.pool_size
        self.deterministic = args.snapshot_deterministic
        self.snapshots: list[tuple[int, PolicyNet]] = []  # (learner moves when taken, policy), oldest first

    def add(self, step: int, net: PolicyNet) -> None:
        self.snapshots.append((step, net))
        del self.snapshots[: -self.size]

    def sample(self, rng: np.random.Generator, fixed: dict[str, Any]) -> tuple[str, Any]:
        """A (label, player) pair; ``fixed`` holds the caller's own random and greedy agents."""
        weights = self.weights if self.snapshots else self.weights * [1, 1, 0]
        kind = int(rng.choice(3, p=weights / weights.sum()))
        if kind < 2:
            label = ("random", "greedy")[kind]
            return label, fixed[label]
        ages = np.arange(len(self.snapshots))[::-1]
        recency = self.recent_bias**ages
        index = int(rng.choice(len(self.snapshots), p=recency / recency.sum()))
        step, net = self.snapshots[index]
        label = f"snapshot@{step}"
        return label, PPOAgent.from_net(net, label, self.deterministic, seed=int(rng.integers(2**31)))

    def to_members(self) -> dict[str, bytes]:
        """Zip members: ``pool/index.json`` and one ``pool/<i>.npz`` per snapshot."""
        members = {f"pool/{i}.npz": net.to_npz() for i, (_, net) in enumerate(self.snapshots)}
        members["pool/index.json"] = json.dumps([step for step, _ in self.snapshots]).encode()
        return members

    def load_members(self, archive: zipfile.ZipFile) -> None:
        steps = json.loads(archive.read("pool/index.json"))
        self.snapshots = [
            (int(step), PolicyNet.from_npz(archive.read(f"pool/{i}.npz"))) for i, step in enumerate(steps)
        ]


class PoolOpponent:
    """The opponent object of one environment: at every ``reset`` (a new game) it draws a player from the pool."""

    def __init__(self, pool: OpponentPool, seed: int) -> None:
        self.pool = pool
        self.rng = np.random.default_rng(seed)
        self.fixed = {"random": agents.make("random", seed=seed), "greedy": agents.make("greedy", seed=seed + 1)}
        self.label, self.player = "random", self.fixed["random"]

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            for offset, agent in enumerate(self.fixed.values()):
                agent.reset(seed + offset)
        self.label, self.player = self.pool.sample(self.rng, self.fixed)

    def act(self, state: Any) -> int:
        return self.player.act(state)


def make_env(pool: OpponentPool, args: Args, seed: int):
    def build() -> gymnasium.Env:
        opponent = PoolOpponent(pool, seed)
        env = AwaleEnv(opponent=opponent, learner_seat="random", max_plies=args.max_plies, game=args.game)
        return Monitor(LearnerView(env, args.shaping, args.features))

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


def restore_rng_state(state: dict[str, Any]) -> None:
    torch.set_rng_state(torch.frombuffer(bytearray(base64.b64decode(state["torch"])), dtype=torch.uint8))
    kind, keys, pos, has_gauss, gauss = state["numpy"]
    np.random.set_state((kind, np.array(keys, dtype=np.uint32), pos, has_gauss, gauss))
    random.setstate(ast.literal_eval(state["python"]))


def write_checkpoint(path: Path, model: MaskablePPO, args: Args, pool: OpponentPool, trainer: dict[str, Any]) -> None:
    """Write one checkpoint zip atomically (a killed run never leaves a half-written file under ``path``)."""
    buffer = io.BytesIO()
    model.save(buffer)
    config = {
        "format": CHECKPOINT_FORMAT,
        "args": dataclasses.asdict(args),
        "num_timesteps": int(model.num_timesteps),
        "trainer": trainer,
        "rng": rng_state(),
    }
    members = {
        "config.json": json.dumps(config, indent=1).encode(),
        "policy.npz": PolicyNet.from_sb3(model.policy, args.activation, args.features, args.game).to_npz(),
        "model.zip": buffer.getvalue(),
        **pool.to_members(),
    }
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    os.replace(tmp, path)


def trim_eval_csv(path: Path, steps: int) -> None:
    """Drop the evaluations made after ``steps`` (by a run killed after its last checkpoint)."""
    if not path.exists():
        return
    with path.open(newline="") as file:
        rows = list(csv.DictReader(file))
    kept = [row for row in rows if int(row["steps"]) <= steps]
    if len(kept) < len(rows):
        with path.open("w", newline="") as file:
            writer = csv.DictWriter(file, fieldnames=["steps", "elapsed_s", "opponent", *EVAL_FIELDS])
            writer.writeheader()
            writer.writerows(kept)


def latest_checkpoint(run_dir: Path) -> Path:
    path = run_dir / "checkpoints" / "last.zip"
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint to resume from: {path} does not exist")
    return path


# --- the training loop ---------------------------------------------------------------------------------------------


class SelfPlay(BaseCallback):
    """Between updates: add snapshots to the pool, evaluate, checkpoint; after every move: the progress bar."""

    def __init__(self, args: Args, pool: OpponentPool, run_dir: Path, trainer: dict[str, Any]) -> None:
        super().__init__()
        self.args, self.pool, self.run_dir, self.trainer = args, pool, run_dir, trainer
        self.bar: tqdm | None = None
        self.started = time.monotonic()
        self.steps_at_start = 0

    def _on_training_start(self) -> None:
        self.steps_at_start = self.num_timesteps
        if self.args.progress:
            rollout = self.args.n_envs * self.args.n_steps
            total = -(-self.args.total_timesteps // rollout) * rollout  # SB3 finishes the rollout it is in
            self.bar = tqdm(total=total, initial=self.num_timesteps, unit="move", smoothing=0.05)

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(self.training_env.num_envs)
        return True

    def _on_rollout_start(self) -> None:
        if self.num_timesteps > self.trainer["last_update_steps"]:  # an update has just been made
            self.trainer["last_update_steps"] = self.num_timesteps
            self.between_updates(final=False)

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()

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
        elapsed = self.trainer["elapsed"] + time.monotonic() - self.started
        rows = []
        for i, spec in enumerate(self.args.eval_opponents):
            result = evaluate(net, spec, self.args.eval_games, [self.args.seed, steps, i], self.args.max_plies)
            rows.append({"steps": steps, "elapsed_s": round(elapsed, 1), "opponent": spec, **result})
            self.logger.record(f"eval/win_rate_{re.sub(r'[^A-Za-z0-9_]', '_', spec)}", result["win_rate"])
        self.logger.record("eval/pool_snapshots", len(self.pool.snapshots))
        self.logger.dump(steps)
        path = self.run_dir / "eval.csv"
        new = not path.exists()
        with path.open("a", newline="") as file:
            writer = csv.DictWriter(file, fieldnames=["steps", "elapsed_s", "opponent", *EVAL_FIELDS])
            if new:
                writer.writeheader()
            writer.writerows(rows)
        summary = " ".join(f"{r['opponent']}={r['win_rate']:.0%}" for r in rows)
        if self.bar is not None:
            self.bar.set_postfix_str(summary)
        else:
            print(f"[{steps} moves] win rates: {summary}", flush=True)

    def checkpoint(self, steps: int) -> None:
        directory = self.run_dir / "checkpoints"
        directory.mkdir(parents=True, exist_ok=True)
        self.trainer["elapsed"] += time.monotonic() - self.started
        self.started = time.monotonic()
        path = directory / f"step_{steps:09d}.zip"
        write_checkpoint(path, self.model, self.args, self.pool, self.trainer)
        tmp = directory / "last.zip.tmp"
        tmp.write_bytes(path.read_bytes())
        os.replace(tmp, directory / "last.zip")
        for old in sorted(directory.glob("step_*.zip"))[: -self.args.keep_checkpoints]:
            old.unlink()


def resolved(args: Args) -> Args:
    """``args`` with the game's defaults filled in (features, ply limit, evaluation opponents), as checkpoints
    record them; ValueError for an unknown game."""
    if args.game not in GAMES:
        raise ValueError(f"--game must be one of {', '.join(GAMES)}, got {args.game!r}")
    awale16 = args.game == "awale16"
    features = args.features or ("tactics" if awale16 else "board")
    max_plies = args.max_plies if args.max_plies is not None else get_game(args.game).default_max_plies
    opponents = args.eval_opponents
    if opponents is None:
        opponents = ("random", "greedy", "alphabeta:depth=2") if awale16 else ("random", "greedy")
    return dataclasses.replace(args, features=features, max_plies=max_plies, eval_opponents=tuple(opponents))


def check_args(args: Args) -> None:
    """Refuse bad options before anything is built (``args`` resolved by :func:`resolved`)."""
    positive = ["total_timesteps", "n_envs", "n_steps", "batch_size", "n_epochs", "snapshot_every", "pool_size"]
    positive += ["eval_every", "eval_games", "checkpoint_every", "keep_checkpoints", "torch_threads", "max_plies"]
    for name in positive:
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be a positive integer, got {getattr(args, name)}")
    if args.eval_games % 2:
        raise ValueError(f"--eval-games must be even (each opening is played from both seats), got {args.eval_games}")
    try:
        input_size(args.game, args.features)
    except ValueError as error:
        raise ValueError(f"--features: {error}") from None
    if args.activation not in ACTIVATION_MODULES:
        raise ValueError(f"--activation must be one of {', '.join(ACTIVATION_MODULES)}, got {args.activation!r}")
    if not args.net_arch or min(args.net_arch) < 1:
        raise ValueError(f"--net-arch needs at least one positive layer width, got {args.net_arch}")
    for spec in args.eval_opponents:
        agents.parse_spec(spec)


def resume_args(args: Args) -> tuple[Args, Path]:
    """The saved configuration of the run in ``args.resume`` (with ``total_timesteps`` from the command line if it
    was changed from the default) and its last checkpoint."""
    run_dir = Path(args.resume)
    path = latest_checkpoint(run_dir)
    with open_checkpoint(path) as archive:
        saved = read_config(archive)["args"]
    saved["net_arch"] = tuple(saved["net_arch"])
    saved["eval_opponents"] = tuple(saved["eval_opponents"])
    saved.setdefault("game", "awale16")  # checkpoints from before the other games
    if args.total_timesteps != Args.total_timesteps:
        saved["total_timesteps"] = args.total_timesteps
    saved["run_dir"], saved["resume"] = str(run_dir), str(run_dir)
    return Args(**saved), path


def train(args: Args) -> Path:
    """Train (or resume) a run; return the path of its final checkpoint."""
    checkpoint = None
    if args.resume is not None:
        args, checkpoint = resume_args(args)
    args = resolved(args)
    check_args(args)
    torch.set_num_threads(args.torch_threads)
    run_dir = Path(args.run_dir)
    if checkpoint is None and (run_dir / "checkpoints" / "last.zip").exists():
        raise FileExistsError(f"{run_dir} already holds a run; use --resume {run_dir} or another --run-dir")
    run_dir.mkdir(parents=True, exist_ok=True)
    set_random_seed(args.seed)
    pool = OpponentPool(args)
    trainer = {"updates": 0, "last_update_steps": 0, "next_eval": 0, "next_checkpoint": args.checkpoint_every}
    trainer["elapsed"] = 0.0
    env_seed = args.seed
    if checkpoint is not None:
        with open_checkpoint(checkpoint) as archive:
            config = read_config(archive)
            pool.load_members(archive)
            model_bytes = archive.read("model.zip")
        trainer = config["trainer"]
        env_seed = args.seed + config["num_timesteps"]  # fresh games, not the first games again
    env = DummyVecEnv([make_env(pool, args, env_seed * 1000 + i) for i in range(args.n_envs)])
    env.seed(env_seed)
    lr = args.learning_rate
    if checkpoint is not None:
        model = MaskablePPO.load(io.BytesIO(model_bytes), env=env, device="cpu")
        model._last_obs = None  # the saved games are gone: start new ones
        restore_rng_state(config["rng"])
    else:
        model = MaskablePPO(
            "MlpPolicy",
            env,
            learning_rate=(lambda progress: progress * lr) if args.anneal_lr else lr,
            n_steps=args.n_steps,
            batch_size=args.batch_size,
            n_epochs=args.n_epochs,
            gamma=args.gamma,
            gae_lambda=args.gae_lambda,
            clip_range=args.clip_range,
            ent_coef=args.ent_coef,
            vf_coef=args.vf_coef,
            max_grad_norm=args.max_grad_norm,
            policy_kwargs={
                "net_arch": {"pi": list(args.net_arch), "vf": list(args.net_arch)},
                "activation_fn": ACTIVATION_MODULES[args.activation],
            },
            seed=args.seed,
            device="cpu",
        )
    tensorboard = TensorBoardOutputFormat(str(run_dir / "tb"))
    if checkpoint is not None:  # forget what the killed run logged after its checkpoint, in TensorBoard and eval.csv
        tensorboard.writer.close()
        tensorboard.writer = SummaryWriter(str(run_dir / "tb"), purge_step=model.num_timesteps + 1)
        trim_eval_csv(run_dir / "eval.csv", model.num_timesteps)
    model.set_logger(Logger(str(run_dir), [tensorboard]))
    callback = SelfPlay(args, pool, run_dir, trainer)
    remaining = args.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=checkpoint is None, log_interval=1)
        trainer["last_update_steps"] = model.num_timesteps
        callback.between_updates(final=True)
    env.close()
    return run_dir / "checkpoints" / "last.zip"


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (``awale train ppo``): parse :class:`Args` with tyro and train."""
    args = tyro.cli(Args, args=argv, description=__doc__.split("\n\n")[0])
    try:
        path = train(args)
    except (ValueError, FileNotFoundError, FileExistsError) as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    print(f"final checkpoint: {path} (play it with the agent spec 'ppo:path={path}')")


if __name__ == "__main__":
    main()
