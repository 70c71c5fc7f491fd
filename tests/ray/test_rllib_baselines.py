"""An RLlib run's learning curve: ``--keep-checkpoints`` keeps each checkpoint's policy and clock (the oldest dropped,
a resume going on from them), and ``training.baselines measure`` plays them as ``rllib`` agents at their training
times."""

from __future__ import annotations

import dataclasses
import json

import pytest

pytest.importorskip("ray.rllib")

import agents  # noqa: E402
from awale_env.games import DEFAULT_GAME, get_game  # noqa: E402
from competition.arena import play_game  # noqa: E402
from training import baselines  # noqa: E402
from training.rllib.files import kept_checkpoints  # noqa: E402
from training.rllib.trainer import RLlibPPOConfig, train  # noqa: E402

TINY = dict(
    env_runners=0,
    envs_per_runner=2,
    train_batch_size=200,
    minibatch_size=100,
    num_epochs=1,
    hidden=(16,),
    eval_every=100,
    eval_games=2,
    eval_opponents=("random",),
    checkpoint_every=1,
    progress=False,
)


def test_kept_checkpoints_are_the_points_of_a_learning_curve(local_ray, tmp_path):
    run_dir = tmp_path / "run"
    config = RLlibPPOConfig(run_dir=str(run_dir), iterations=3, keep_checkpoints=2, **TINY)
    train(config)
    kept = kept_checkpoints(run_dir)
    assert list(kept) == [2, 3]  # the oldest beyond --keep-checkpoints dropped
    assert sorted(path.name for path in kept[3].iterdir()) == ["policy.pt", "trainer.json"]
    clocks = [json.loads((path / "trainer.json").read_text()) for path in kept.values()]
    assert [clock["iteration"] for clock in clocks] == [2, 3] and 0 < clocks[0]["elapsed"] < clocks[1]["elapsed"]
    # the newest kept policy is the checkpoint's
    assert (kept[3] / "policy.pt").read_bytes() == (run_dir / "checkpoint" / "policy.pt").read_bytes()

    train(dataclasses.replace(config, resume=True, iterations=5, keep_checkpoints=3))  # a resume keeps on
    assert list(kept_checkpoints(run_dir)) == [3, 4, 5]

    agent = agents.make(f"rllib:path={kept_checkpoints(run_dir)[4]}")
    assert play_game((agent, agents.make("greedy")), get_game(DEFAULT_GAME).initial()).is_terminal

    out = tmp_path / "results"
    argv = ["measure", str(run_dir), "--anchors", "random", "greedy", "--games", "2", "--anchor-games", "2"]
    baselines.main([*argv, "--out-dir", str(out), "--name", "tiny-rllib"])
    rows = json.loads((out / "tiny-rllib.json").read_text())["checkpoints"]
    assert [(row["step"], row["unit"]) for row in rows] == [(3, "iterations"), (4, "iterations"), (5, "iterations")]
    assert [row["elapsed_s"] for row in rows] == sorted(row["elapsed_s"] for row in rows)
    assert all(sum(row["results"][anchor]) == 2 for row in rows for anchor in ("random", "greedy"))
    assert (out / "tiny-rllib.png").stat().st_size > 1000


def test_no_kept_checkpoints_with_zero(local_ray, tmp_path):
    train(RLlibPPOConfig(run_dir=str(tmp_path / "run"), iterations=1, keep_checkpoints=0, **TINY))
    assert (tmp_path / "run" / "checkpoint" / "policy.pt").is_file()
    assert not (tmp_path / "run" / "checkpoints").exists()
