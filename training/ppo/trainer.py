"""Self-play PPO for any game of the toolkit: sb3-contrib's MaskablePPO against a pool of opponents.

Why it learns where the PettingZoo + MaskablePPO recipe barely does: every transition belongs to one player. The
learner plays one seat of :class:`awale_env.gym_env.AwaleEnv` and the opponent moves inside ``step()``, so the
learner sees only its own observations (the board from its side) and its own rewards, including the result of a
game the opponent ends. Actions are *relative* to the learner's seat (:class:`agents.ppo.sb3.LearnerView`), so one
network plays both seats with the same weights. Opponents come from a pool: random, greedy, and frozen snapshots of
the learner taken every few updates, sampled with a bias to recent ones; the learner's seat is drawn at random every
game. By default the network also sees, for each move, what it captures and the most the opponent can capture in
reply (:func:`agents.ppo.policy.tactics`). On the two-colour Awale the defaults train in about 7 minutes on 2 shared CPU
cores and beat random and greedy in 200 of 200 games (docs/ppo.md). ``--teacher-games N`` first clones alpha-beta's
moves into the network (:mod:`training.ppo.teacher`) and ``--league SPEC ...`` adds fixed agents to the pool: the
recipe of the shipped policy.

Usage (every field of :class:`Args` is an option; ``--help`` lists them)::

    awale train ppo                                   # or: python -m training.ppo.trainer; into runs/ppo-awale16
    awale train ppo --resume                          # continue it from its last checkpoint
    awale train ppo --resume --total-timesteps 3000000
    tensorboard --logdir runs/ppo-awale16/tb ;  python -m training.plots runs/ppo-awale16

The run directory (:mod:`training.runs`: the conventions every trainer shares) holds ``config.json``,
``checkpoints/step_*.zip`` and ``checkpoints/last.zip``, a second name (a hard link) of the newest (see
:mod:`agents.ppo.checkpoint` for the format; ``ppo:path=runs/ppo-awale16/checkpoints/last.zip`` plays one),
``eval.csv`` (win rates against the evaluation opponents with game counts) and ``tb/`` (TensorBoard: SB3's training
metrics and the win rates). A resume goes on from the newest complete checkpoint, rebuilding the model from the run's
options and the checkpoint's tensors: it never unpickles anything
(:func:`agents.ppo.checkpoint.read_training_checkpoint`).

This module is the training loop; the run's options are :mod:`training.ppo.config`, its opponents and evaluation
:mod:`training.ppo.pool`, its checkpoints :mod:`training.ppo.checkpoints`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger, TensorBoardOutputFormat
from stable_baselines3.common.utils import set_random_seed

from agents.alphazero.network import RingNet
from agents.ppo.sb3 import load_networks, new_sb3_model, policy_of, restore_sb3
from awale_env.errors import CheckpointError
from competition.progress import Clock, Progress
from training import run_logs, runs
from training.ppo import teacher as ppo_teacher
from training.ppo.checkpoints import (
    CHECKPOINT,
    CHECKPOINT_DIR,
    STEP_CHECKPOINTS,
    initial_alphazero,
    initial_checkpoint,
    link_last,
    newest_checkpoint,
    restore_rng_state,
    saved_options,
    write_checkpoint,
)
from training.ppo.config import RESUMABLE, TRAINER_NAME, Args, check_agents, from_alphazero, resolved
from training.ppo.pool import OpponentPool, close_envs, evaluate, learner_envs

# --- the training loop ---------------------------------------------------------------------------------------------


class TensorBoardFormat(TensorBoardOutputFormat):
    """SB3's TensorBoard output through the run's writer (:func:`training.run_logs.tensorboard_writer`)."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self._is_closed = False


class SelfPlay(BaseCallback):
    """Between updates: add snapshots to the pool, evaluate, checkpoint; after every move: the progress."""

    def __init__(
        self, args: Args, pool: OpponentPool, run_dir: Path, trainer: dict[str, Any], progress: Progress
    ) -> None:
        super().__init__()
        self.args, self.pool, self.run_dir, self.trainer, self.progress = args, pool, run_dir, trainer, progress
        self.eval_log = run_logs.CsvLog(run_dir / "eval.csv", "steps")

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
            self.add_snapshot(steps)
        if final or steps >= trainer["next_eval"]:
            self.evaluate(steps)
            trainer["next_eval"] = (steps // args.eval_every + 1) * args.eval_every
        if final or steps >= trainer["next_checkpoint"]:
            trainer["next_checkpoint"] = (steps // args.checkpoint_every + 1) * args.checkpoint_every
            self.checkpoint(steps)

    def add_snapshot(self, steps: int) -> None:
        """The learner as it is now joins the pool (and each worker process's copy of it)."""
        net = policy_of(self.model.policy, dataclasses.asdict(self.args))
        self.pool.add(steps, net)
        if self.args.vec_env != "dummy":
            self.training_env.env_method("add_snapshot", steps, net)

    def evaluate(self, steps: int) -> None:
        net = policy_of(self.model.policy, dataclasses.asdict(self.args))
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
        following = (steps // self.args.eval_every + 1) * self.args.eval_every
        later = f"; next after {following:,}" if following < self.progress.total else ""
        self.progress.status(f"win rates at {steps:,} moves: {rates}{later}")  # shown until the next evaluation

    def checkpoint(self, steps: int) -> None:
        directory = self.run_dir / CHECKPOINT_DIR
        directory.mkdir(parents=True, exist_ok=True)
        self.trainer["elapsed"] = self.progress.clock.elapsed()
        path = directory / f"step_{steps:09d}.zip"
        write_checkpoint(path, self.model, self.args, self.pool, self.trainer)
        link_last(path)
        for old in sorted(self.run_dir.glob(STEP_CHECKPOINTS))[: -self.args.keep_checkpoints]:
            old.unlink()


def train(args: Args) -> Path:
    """Train (or with ``args.resume`` continue) a run; return the path of its final checkpoint. Everything it is
    refused for (options, agents, the checkpoint it starts from or goes on from) is refused before the run directory
    is written or created (:func:`training.runs.check_start`)."""
    initial = None
    if args.init_from is not None and not args.resume:
        start = initial_alphazero if from_alphazero(args.init_from) else initial_checkpoint
        initial = start(resolved(args))
    args, run_dir = runs.check_start(TRAINER, args)
    check_agents(args)
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
        for key in ("num_timesteps", *(key for key, value in trainer.items() if isinstance(value, int))):
            runs.saved_count(resumed.config[key] if key == "num_timesteps" else saved[key], key, str(resumed.path))
        trainer = saved
        pool.snapshots = resumed.pool
    env_seed = args.seed + (resumed.num_timesteps if resumed else 0)  # a resume plays new games, not the first again
    env = learner_envs(pool, args, env_seed)
    try:
        model = new_sb3_model(dataclasses.asdict(args), env, seed=args.seed)
        env.seed(env_seed)
        if resumed:
            restore_sb3(model, resumed)
            restore_rng_state(resumed.config["rng"], resumed.path)
        elif isinstance(initial, RingNet):
            model.policy.mlp_extractor.net.load_state_dict(initial.state_dict())
        elif initial is not None:
            load_networks(model, initial, optimizer=False)
        runs.prepare(TRAINER, args)  # all is read and checked: the run's first writes
        learn(model, args, run_dir, pool, trainer, resumed=resumed is not None, initialized=initial is not None)
    finally:
        close_envs(env)
    return run_dir / CHECKPOINT


def learn(
    model: MaskablePPO,
    args: Args,
    run_dir: Path,
    pool: OpponentPool,
    trainer: dict[str, Any],
    resumed: bool,
    initialized: bool,
) -> None:
    """The run of :func:`train` in its prepared directory (``model`` resumed, or ``initialized`` from --init-from):
    the teacher's games if any, then self-play to ``args.total_timesteps``."""
    done = model.num_timesteps
    run_logs.CsvLog(run_dir / "eval.csv", "steps").keep_until(done)  # forget what a stopped run logged after it
    writer = run_logs.tensorboard_writer(run_dir, done)
    model.set_logger(Logger(str(run_dir), [TensorBoardFormat(writer)]))
    rollout = args.n_envs * args.n_steps
    total = max(-(-args.total_timesteps // rollout) * rollout, done)  # SB3 finishes the rollout it is in
    progress = Progress(TRAINER_NAME, total, done, "move", Clock(trainer["elapsed"]), args.progress)
    callback = SelfPlay(args, pool, run_dir, trainer, progress)
    try:
        if args.teacher_games and not resumed:
            clone_teacher(model, args, run_dir, callback)
        elif initialized:
            first_point(model, args, callback)
        if args.total_timesteps > done:
            model.learn(args.total_timesteps - done, callback=callback, reset_num_timesteps=not args.resume,
                        log_interval=1)  # fmt: skip
            trainer["last_update_steps"] = model.num_timesteps
            callback.between_updates(final=True)
    finally:
        progress.close()
        writer.close()


def clone_teacher(model: MaskablePPO, args: Args, run_dir: Path, callback: SelfPlay) -> None:
    """Before self-play: clone the teacher's moves into the policy (:mod:`training.ppo.teacher`; with ``--init-from``
    in the positions the starting policy reaches), log the epochs to ``teacher.csv``, then evaluate, add the cloned
    policy to the pool and write the checkpoint of move 0 (a resume goes on from it)."""
    teacher_dir = run_dir / ppo_teacher.TEACHER_DIR
    dagger = args.init_from is not None
    student = (
        ppo_teacher.save_student(teacher_dir, policy_of(model.policy, dataclasses.asdict(args))) if dagger else None
    )
    options = ppo_teacher.TeacherOptions(
        args.game, args.features, args.seed, args.teacher_games, args.teacher_depth, args.max_plies,
        args.teacher_games_per_chunk, args.teacher, student, args.teacher_explore if dagger else 0.0,
    )  # fmt: skip
    progress = callback.progress
    against = "the starting policy" if dagger else "itself"
    progress.status(f"{options.teacher_spec} plays {args.teacher_games} games against {against} to clone")
    ppo_teacher.play_games(options, teacher_dir, args.teacher_workers, progress)
    samples = ppo_teacher.read_games(options, teacher_dir)
    progress.note(f"cloning {len(samples['action']):,} teacher moves for {args.teacher_epochs} epochs")
    log = run_logs.CsvLog(run_dir / "teacher.csv", "epoch")
    log.keep_until(0)
    for row in ppo_teacher.clone(model.policy, samples, args.teacher_epochs, args.teacher_learning_rate,
                                 args.batch_size, args.seed, args.teacher_anchor if dagger else None):  # fmt: skip
        log.append([row])
        progress.note(
            f"cloning epoch {row['epoch']}: agreement {row['agreement']:.1%}, held out {row['val_agreement']:.1%}"
        )
    first_point(model, args, callback)


def first_point(model: MaskablePPO, args: Args, callback: SelfPlay) -> None:
    """The starting network (cloned or given) before self-play: evaluate it, add it to the pool and write the
    checkpoint of move 0 (a resume goes on from it)."""
    callback.init_callback(model)
    callback.add_snapshot(0)
    callback.evaluate(0)
    callback.trainer["next_eval"] = args.eval_every
    callback.checkpoint(0)


TRAINER = runs.Trainer(TRAINER_NAME, Args, resolved, train, CHECKPOINT, RESUMABLE, saved_options, (STEP_CHECKPOINTS,))


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (``awale train ppo``): parse :class:`Args` with tyro and train."""
    path = runs.main(TRAINER, argv, runs.summary(__doc__))
    print(f"final checkpoint: {path} (play it with the agent spec {runs.play_spec('ppo', path)})")


if __name__ == "__main__":
    main()
