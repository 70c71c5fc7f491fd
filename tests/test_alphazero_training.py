"""A tiny end-to-end AlphaZero run: self-play in a worker process, training, gating, references, checkpoints, resume."""

from __future__ import annotations

import csv

import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

from agents.alphazero.network import load_network, read_checkpoint  # noqa: E402
from training.alphazero import AlphaZeroConfig, main, train  # noqa: E402

TINY_RUN = [
    "--channels", "8", "--blocks", "1", "--value-hidden", "8", "--simulations", "6", "--games-per-worker", "6",
    "--moves-per-generation", "61", "--max-plies", "60", "--min-replay", "20", "--batch-size", "16",
    "--sample-reuse", "0.5", "--gate-every", "1", "--gate-games", "4", "--gate-simulations", "4",
    "--reference-every", "0", "--no-progress", "--seed", "3",
]  # fmt: skip


def config(run_dir, *args: str) -> AlphaZeroConfig:
    import tyro

    return tyro.cli(AlphaZeroConfig, args=[*TINY_RUN, "--run-dir", str(run_dir), *args])


def weights(path):
    return read_checkpoint(path)


def test_end_to_end_run_is_deterministic_and_resumes(tmp_path):
    in_worker = train(config(tmp_path / "a", "--generations", "2", "--workers", "1"))
    in_process = train(
        config(tmp_path / "b", "--generations", "2", "--workers", "0", "--reference-every", "2",
               "--references", "greedy", "--reference-games", "2", "--reference-simulations", "4")
    )  # fmt: skip
    assert in_worker.totals["games"] > 0 and in_worker.totals["steps"] > 0
    # one worker process or self-play in the learner: the same games, the same training, the same networks
    assert in_worker.totals == in_process.totals
    a, b = weights(tmp_path / "a" / "state.pt"), weights(tmp_path / "b" / "state.pt")
    for key in a["state_dict"]:
        torch.testing.assert_close(a["state_dict"][key], b["state_dict"][key], rtol=0, atol=0)
    rows = list(csv.DictReader((tmp_path / "b" / "metrics.csv").open()))
    assert [int(r["generation"]) for r in rows] == [1, 2]
    assert rows[1]["gate_score"] != ""  # a gating match was played once there were training steps
    assert 0.0 <= float(rows[1]["vs greedy"]) <= 1.0
    assert load_network(tmp_path / "b" / "best.pt").config.channels == 8
    assert any((tmp_path / "b").glob("events.out.tfevents.*"))

    resumed = train(config(tmp_path / "a", "--generations", "3", "--workers", "0", "--resume"))
    assert resumed.generation == 3
    assert resumed.totals["games"] >= in_worker.totals["games"]
    assert [int(r["generation"]) for r in csv.DictReader((tmp_path / "a" / "metrics.csv").open())] == [1, 2, 3]


def test_cli_errors_are_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*TINY_RUN, "--run-dir", str(tmp_path / "none"), "--resume", "--workers", "0"])
    assert exit_info.value.code == 2
    assert "no AlphaZero checkpoint" in capsys.readouterr().err
    train(config(tmp_path / "run", "--generations", "1", "--workers", "0"))
    with pytest.raises(SystemExit):
        main([*TINY_RUN, "--run-dir", str(tmp_path / "run"), "--workers", "0"])
    assert "already holds a run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*TINY_RUN, "--run-dir", str(tmp_path / "run"), "--resume", "--channels", "16", "--workers", "0"])
    assert "resume with the same network options" in capsys.readouterr().err


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="gate_games must be even"):
        AlphaZeroConfig(gate_games=5)
    with pytest.raises(ValueError, match="simulations must be a positive integer"):
        AlphaZeroConfig(simulations=0)
