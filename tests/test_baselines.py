"""The baselines tool: a run's checkpoints rated by the arena against fixed anchors, on tiny PPO, AlphaZero and
imitation-then-AlphaZero runs; the fixed-anchor Elo fit; the result files and the plot."""

from __future__ import annotations

import csv
import json
import shutil

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import tyro  # noqa: E402

from agents import parse_spec  # noqa: E402
from agents.ppo import pretrained_path  # noqa: E402
from training import baselines  # noqa: E402
from training.alphazero import imitation  # noqa: E402
from training.alphazero.trainer import AlphaZeroConfig  # noqa: E402
from training.alphazero.trainer import train as train_alphazero  # noqa: E402
from training.ppo.trainer import Args  # noqa: E402
from training.ppo.trainer import train as train_ppo  # noqa: E402

ANCHORS = ("random", "greedy")
TINY_ALPHAZERO = [
    "--channels", "8", "--blocks", "1", "--value-hidden", "8", "--simulations", "6", "--games-per-worker", "6",
    "--moves-per-generation", "61", "--max-plies", "60", "--min-replay", "20", "--batch-size", "16",
    "--sample-reuse", "0.5", "--gate-every", "1", "--gate-games", "4", "--gate-simulations", "4",
    "--reference-every", "0", "--no-progress", "--seed", "3", "--workers", "0", "--torch-threads", "1",
]  # fmt: skip


def measure(run_dir, out_dir, *extra: str) -> dict:
    argv = ["measure", str(run_dir), "--anchors", *ANCHORS, "--games", "2", "--anchor-games", "2"]
    baselines.main([*argv, "--simulations", "4", "--out-dir", str(out_dir), *extra])
    name = extra[extra.index("--name") + 1] if "--name" in extra else run_dir.name
    return json.loads((out_dir / f"{name}.json").read_text())


def test_fixed_anchor_elo_is_the_rating_that_explains_the_score():
    anchors = np.array([0.0, 400.0])
    # an even score against an anchor rates the agent at it; both anchors even: between them
    elo, low, high = baselines.fixed_anchor_elo(np.array([5.0, 0.0]), np.array([10.0, 0.0]), anchors)
    assert elo == pytest.approx(0, abs=0.5) and low < elo < high
    elo, _, _ = baselines.fixed_anchor_elo(np.array([5.0, 5.0]), np.array([10.0, 10.0]), anchors)
    assert elo == pytest.approx(200, abs=0.5)
    # more wins, a higher rating; more games, a narrower interval; a perfect score stays finite
    better = baselines.fixed_anchor_elo(np.array([8.0, 5.0]), np.array([10.0, 10.0]), anchors)
    assert better[0] > 200
    narrow = baselines.fixed_anchor_elo(np.array([80.0, 50.0]), np.array([100.0, 100.0]), anchors)
    assert narrow[2] - narrow[1] < better[2] - better[1]
    perfect = baselines.fixed_anchor_elo(np.array([10.0, 10.0]), np.array([10.0, 10.0]), anchors)
    assert 400 < perfect[0] < 2000


def test_a_ppo_runs_checkpoints_are_rated_at_their_training_times(tmp_path):
    run_dir = tmp_path / "ppo"
    args = Args(run_dir=str(run_dir), total_timesteps=1024, n_envs=2, n_steps=128, batch_size=64, n_epochs=1,
                net_arch=(16,), eval_every=512, eval_games=2, eval_opponents=("random",), checkpoint_every=512,
                keep_checkpoints=5, progress=False)  # fmt: skip
    train_ppo(args)
    out = tmp_path / "results"
    result = measure(run_dir, out, "--name", "tiny-ppo")
    rows = result["checkpoints"]
    assert [row["step"] for row in rows] == [512, 1024]
    assert rows[0]["elapsed_s"] < rows[1]["elapsed_s"] and all(row["unit"] == "moves" for row in rows)
    assert all(sum(row["results"][a]) == 2 for row in rows for a in ANCHORS)
    assert all(row["elo_low"] <= row["elo"] <= row["elo_high"] for row in rows)
    assert result["anchors"]["ratings"]["random"] == 0 and result["command"].startswith("python -m training.baselines")
    assert result["run_config"]["total_timesteps"] == 1024 and len(result["load_average"]) == 3
    with (out / "tiny-ppo.csv").open() as file:
        assert [r["greedy"].count("-") for r in csv.DictReader(file)] == [2, 2]  # wins-draws-losses
    assert (out / "tiny-ppo.png").stat().st_size > 1000

    # the anchors are played once: a second curve reuses their ratings
    anchors_file = out / baselines.ANCHORS_FILE
    stamp = anchors_file.stat().st_mtime_ns
    again = measure(run_dir, out, "--name", "again", "--every", "2")
    assert anchors_file.stat().st_mtime_ns == stamp
    assert [row["step"] for row in again["checkpoints"]] == [512, 1024]  # every 2nd, and always the last

    # a checkpoint already rated (same name, anchors, games, seed) is not played again
    rated = json.loads((out / "tiny-ppo.json").read_text())
    rated["checkpoints"][0]["results"]["random"] = [9, 9, 9]
    (out / "tiny-ppo.json").write_text(json.dumps(rated))
    assert measure(run_dir, out, "--name", "tiny-ppo")["checkpoints"][0]["results"]["random"] == [9, 9, 9]
    assert measure(run_dir, out, "--name", "tiny-ppo", "--seed", "1")["checkpoints"][0]["results"]["random"] != [
        9,
        9,
        9,
    ]

    # the curves of several results on one figure; other anchors are another scale, refused
    baselines.main(["plot", str(out / "tiny-ppo.json"), str(out / "again.json"), "--out", str(tmp_path / "all.png")])
    assert (tmp_path / "all.png").exists()
    other = json.loads((out / "again.json").read_text())
    other["anchors"]["ratings"]["greedy"] += 1
    (out / "other.json").write_text(json.dumps(other))
    with pytest.raises(SystemExit):
        baselines.main(["plot", str(out / "tiny-ppo.json"), str(out / "other.json"), "--out", str(tmp_path / "x.png")])


def test_an_alphazero_run_after_imitation_starts_from_the_imitation_network(tmp_path):
    teacher = imitation.resolved(imitation.ImitationConfig(
        run_dir=str(tmp_path / "imitation"), games=2, games_per_chunk=2, teacher_depth=1, workers=0, epochs=1,
        batch_size=32, validation_every=2, progress=False, channels=8, blocks=1, value_hidden=8, torch_threads=1,
    ))  # fmt: skip
    imitation.train(teacher)
    run_dir = tmp_path / "alphazero"
    argv = [*TINY_ALPHAZERO, "--run-dir", str(run_dir), "--generations", "2", "--snapshot-every", "1",
            "--init-from", str(tmp_path / "imitation" / "best.pt")]  # fmt: skip
    train_alphazero(tyro.cli(AlphaZeroConfig, args=argv))
    assert sorted(p.name for p in (run_dir / "snapshots").iterdir()) == ["gen_00001.pt", "gen_00002.pt"]
    result = measure(run_dir, tmp_path / "results", "--after", str(tmp_path / "imitation"))
    rows = result["checkpoints"]
    assert [row["step"] for row in rows] == [0, 1, 2]
    assert rows[0]["spec"].startswith(f"alphazero:path={tmp_path / 'imitation' / 'best.pt'}")
    # the AlphaZero run's times continue the imitation run's (a tiny run may round to 0.0 s: not strictly growing)
    assert rows[0]["elapsed_s"] <= rows[1]["elapsed_s"] <= rows[2]["elapsed_s"]
    assert all(",simulations=4" in row["spec"] for row in rows)


def test_bad_input_is_one_line(tmp_path, capsys):
    for argv, message in [
        (["measure", str(tmp_path / "nowhere")], "is not a directory"),
        (["measure", str(tmp_path)], "holds no checkpoints to rate"),
        (["measure", str(tmp_path), "--games", "3"], "must be even"),
        (["plot", str(tmp_path / "missing.json"), "--out", str(tmp_path / "x.png")], "missing.json"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            baselines.main(argv)
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err and err.count("\n") == 1


def write_kept(run_dir, name: str, trainer: str) -> None:
    """A checkpoint as ``awale train rllib --keep-checkpoints`` keeps it, its policy file left out."""
    (run_dir / "checkpoints" / name).mkdir(parents=True)
    (run_dir / "checkpoints" / name / "trainer.json").write_text(trainer)


def test_an_rllib_runs_kept_checkpoints_are_found_at_their_training_times(tmp_path, capsys):
    run_dir = tmp_path / "rllib, a comma"
    write_kept(run_dir, "iter_000010", '{"iteration": 10, "elapsed": 31.5}')
    write_kept(run_dir, "iter_000002", '{"iteration": 2, "elapsed": 6}')
    write_kept(run_dir, "iter_000003.tmp", "{")  # a copy a kill interrupted: not a checkpoint
    found = baselines.run_checkpoints(baselines.Measure(str(run_dir)))
    assert [(c.step, c.unit, c.elapsed_s) for c in found] == [(2, "iterations", 6.0), (10, "iterations", 31.5)]
    assert parse_spec(found[0].spec) == ("rllib", {"path": str(run_dir / "checkpoints" / "iter_000002")})

    # no policy file (or no Ray to play it): one line naming RLlib, as for a damaged trainer file
    argv = ["measure", str(run_dir), "--anchors", *ANCHORS, "--games", "2", "--anchor-games", "2"]
    for trainer, message in [(None, "RLlib"), ('{"iteration": 2}', "training time"), ("[", "not a readable")]:
        if trainer is not None:
            (run_dir / "checkpoints" / "iter_000002" / "trainer.json").write_text(trainer)
        with pytest.raises(SystemExit) as exit_info:
            baselines.main([*argv, "--out-dir", str(tmp_path / "results")])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_checkpoint_paths_with_a_comma_are_quoted_in_their_specs(tmp_path):
    """A run directory named like "runs/ppo, seed 2" still gives specs that name its files."""
    run_dir = tmp_path / "ppo, seed 2"
    (run_dir / "checkpoints").mkdir(parents=True)
    ppo_file = run_dir / "checkpoints" / "step_000802816.zip"
    shutil.copyfile(pretrained_path("awale16"), ppo_file)
    (found,) = baselines.ppo_checkpoints(run_dir)
    assert parse_spec(found.spec) == ("ppo", {"path": str(ppo_file)})

    az_dir = tmp_path / "alphazero, seed 0"
    (az_dir / "snapshots").mkdir(parents=True)
    (az_dir / "snapshots" / "gen_00004.pt").write_bytes(b"")
    (az_dir / "metrics.csv").write_text("generation,elapsed_s\n4,12.5\n")
    (found,) = baselines.alphazero_checkpoints(az_dir, simulations=100)
    assert parse_spec(found.spec) == ("alphazero", {"path": str(az_dir / "snapshots" / "gen_00004.pt"),
                                                    "simulations": "100"})  # fmt: skip
    assert found.elapsed_s == 12.5
