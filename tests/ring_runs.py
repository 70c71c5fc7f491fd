"""Tiny ``--network ring`` PPO runs for the tests of ring policies (a helper module, not a test file)."""

from __future__ import annotations

from pathlib import Path

from training.ppo.trainer import Args, train


def ring_args(run_dir: Path, **changes) -> Args:
    """A ring run of a few hundred moves on 2 envs, evaluated against random, checkpointed at its end."""
    base = dict(
        run_dir=str(run_dir), network="ring", total_timesteps=256, n_envs=2, n_steps=64, batch_size=64, n_epochs=1,
        learning_rate=1e-3, snapshot_every=1, eval_every=256, eval_games=2, eval_opponents=("random",),
        checkpoint_every=256, progress=False,
    )  # fmt: skip
    return Args(**{**base, **changes})


def run_and_resume(run_dir: Path, **changes) -> Path:
    """Train :func:`ring_args` with ``changes`` for 256 moves, then resume it to 512; the run directory."""
    train(ring_args(run_dir, **changes))
    train(ring_args(run_dir, **changes, resume=True, total_timesteps=512))
    return run_dir
