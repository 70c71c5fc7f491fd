"""The learning-curve tools write into a run's folder, ``runs/`` or the path they are given, never into the
directory they are run from nor into the repository."""

from __future__ import annotations

import csv

import pytest

from training import baselines, plots


def fake_run(folder):
    """A run directory with the eval.csv that ``awale train ppo`` writes."""
    folder.mkdir(parents=True)
    with (folder / "eval.csv").open("w", newline="") as file:
        writer = csv.DictWriter(file, ["steps", "opponent", "win_rate", "games"])
        writer.writeheader()
        for steps, rate in [(4096, 0.5), (8192, 0.75)]:
            writer.writerow({"steps": steps, "opponent": "random", "win_rate": rate, "games": 20})
    return folder


def test_plots_draws_one_run_into_its_folder_and_asks_where_several_go(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    run, other = fake_run(tmp_path / "runs" / "one"), fake_run(tmp_path / "runs" / "two")
    plots.main([str(run)])
    assert (run / plots.DEFAULT_NAME).stat().st_size > 1000
    assert capsys.readouterr().out.strip() == f"wrote {run / plots.DEFAULT_NAME}"
    with pytest.raises(SystemExit) as stopped:
        plots.main([str(run), str(other)])
    assert stopped.value.code == 2
    assert "2 runs drawn on one figure: say where it goes with --out FILE.png" in capsys.readouterr().err
    plots.main([str(run), str(other), "--out", str(tmp_path / "both.png")])
    assert sorted(path.name for path in tmp_path.iterdir()) == ["both.png", "runs"]


def test_baselines_write_under_runs_by_default_and_plot_needs_its_file():
    assert baselines.OUT_DIR == "runs/baselines"
    assert baselines.Measure("run").out_dir == "runs/baselines"
    with pytest.raises(SystemExit):  # tyro: --out is required
        baselines.main(["plot", "some.json"])
