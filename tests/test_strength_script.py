"""benchmarks/strength.py, the strength table's script, in miniature: two budgets of three agents, the markdown with
both tables and how they were made, the plot, and a resume that plays only the games its journals lack."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
from pathlib import Path

import pytest

import competition.tasks as tasks_module
from agents.alphazero.agent import pretrained_path as alphazero_pretrained_path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "strength.py"
#: 3 pairs x 2 games: 6 games per budget. The budgets (1 s and 2 s) are far beyond what a depth-1 search takes even on
#: a busy machine, and the search stops at its depth: the games do not depend on the machine's load, so the games
#: played again on a resume are the ones played the first time.
AGENTS = ["random", "greedy", "alphabeta:depth=1,time={t}"]


def load_script(monkeypatch):
    """The script as a module (registered while the test runs: its dataclass looks itself up there)."""
    spec = importlib.util.spec_from_file_location("strength", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "strength", module)
    spec.loader.exec_module(module)
    return module


def standings(folder: Path) -> dict[str, dict[str, str]]:
    with (folder / "standings.csv").open() as f:
        return {row["agent"]: row for row in csv.DictReader(f)}


def test_two_budgets_then_a_resume_of_what_is_missing(tmp_path, monkeypatch):
    strength = load_script(monkeypatch)
    played = []
    run_task = tasks_module.run_task
    monkeypatch.setattr(tasks_module, "run_task", lambda task: played.append(task.specs) or run_task(task))
    markdown, plot, out = tmp_path / "doc" / "strength.md", tmp_path / "doc" / "strength.png", tmp_path / "runs"
    argv = ["--agents", *AGENTS, "--times", "2", "1", "--games", "2", "--workers", "1", "--seed", "3",
            "--max-plies", "80", "--out-dir", str(out), "--markdown", str(markdown), "--plot", str(plot)]  # fmt: skip

    strength.main(argv)
    assert len(played) == 12
    text = markdown.read_text()
    assert "python benchmarks/strength.py --agents random greedy 'alphabeta:depth=1,time={t}' --times 2 1" in text
    assert "## 1 s per move" in text and "## 2 s per move" in text
    assert "| `alphabeta:depth=1,time=1` |" in text and "| `alphabeta:depth=1,time=2` |" in text
    assert "| `alphabeta:depth=1,time={t}` |" in text  # the summary: one row per agent, one column per budget
    assert text.count("load average") == 2 and "cores" in text
    assert "![Elo against time per move](strength.png)" in text
    assert plot.read_bytes().startswith(b"\x89PNG")
    for seconds in ("1", "2"):
        folder = out / f"{seconds}s"
        files = {path.name for path in folder.iterdir()}
        assert {"games.jsonl", "results.json", "standings.csv", "games.csv", "elo.png"} <= files
        assert float(standings(folder)["random"]["elo"]) == 0.0  # the anchor, at every budget
    first = json.loads((out / "1s" / "results.json").read_text())

    # Killed during the first budget's last two games and before the second budget's games were kept.
    journal = out / "1s" / "games.jsonl"
    journal.write_text("".join(journal.read_text().splitlines(keepends=True)[:-2]))
    for path in (out / "2s").iterdir():
        path.unlink()
    played.clear()
    strength.main([*argv, "--resume"])
    assert len(played) == 2 + 6
    assert json.loads((out / "1s" / "results.json").read_text())["games"] == first["games"]
    text = markdown.read_text()
    assert "4 games from the journal, 2 played" in text and "--resume" in text
    assert len((out / "2s" / "games.jsonl").read_text().splitlines()) == 1 + 6


def test_games_per_pair_per_budget(tmp_path, monkeypatch):
    strength = load_script(monkeypatch)
    markdown, out = tmp_path / "strength.md", tmp_path / "runs"
    argv = ["--agents", "random", "greedy", "--anchor", "random", "--times", "0.02", "0.01", "--games", "4", "2",
            "--workers", "1", "--max-plies", "40", "--out-dir", str(out), "--markdown", str(markdown)]  # fmt: skip

    runs = strength.main(argv)
    assert {run.seconds_per_move: len(run.result.games) for run in runs} == {0.01: 2, 0.02: 4}  # paired with --times
    assert "plays 2 / 4 games at 0.01 / 0.02 s (mirrored pairs" in markdown.read_text()


def test_games_per_pair_count_must_match_the_times(monkeypatch, capsys):
    strength = load_script(monkeypatch)
    with pytest.raises(SystemExit) as exit:
        strength.parse_args(["--times", "0.1", "0.3", "1", "--games", "10", "6"])
    assert exit.value.code == 2
    assert "--games takes one number or one per time (3), got 2" in capsys.readouterr().err


def test_replay_plays_again_the_games_of_a_changed_network(tmp_path, monkeypatch, capsys):
    strength = load_script(monkeypatch)
    network, markdown, out = tmp_path / "net.pt", tmp_path / "strength.md", tmp_path / "runs"
    network.write_bytes((Path(__file__).parent / "data" / "alphazero_awale16_first.pt").read_bytes())
    agent = f"alphazero:path={network},simulations=2"
    argv = ["--agents", "random", "greedy", agent, "--times", "0.01", "--games", "2", "--workers", "1",
            "--max-plies", "40", "--out-dir", str(out), "--markdown", str(markdown)]  # fmt: skip
    strength.main(argv)
    network.write_bytes(alphazero_pretrained_path("awale16").read_bytes())

    strength.main([*argv, "--resume", "--replay", agent])
    assert f"4 games of {agent} to play again with its current network file" in capsys.readouterr().out
    assert "2 games from the journal, 4 played" in markdown.read_text()
    refused = {"--replay changes the games of a journal: it needs --resume": ["--replay", agent],
               "--replay ['mcts'] is not one of the agents": ["--resume", "--replay", "mcts"]}  # fmt: skip
    for message, wrong in refused.items():
        with pytest.raises(SystemExit):
            strength.parse_args([*argv, *wrong])
        assert message in capsys.readouterr().err
