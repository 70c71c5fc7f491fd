"""The measured figures of README.md and docs/*.md agree with their result files under benchmarks/results/
(benchmarks/update_docs.py writes them there); a marker naming a missing file or figure, an unclosed marker and a
figure shown without its source are errors; a tampered figure is caught."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


update_docs = load_script("update_docs")
provenance = load_script("provenance")


def test_docs_figures_agree_with_their_result_files_and_none_is_without_one():
    stale, missing = update_docs.update(check=True)
    assert not stale, "figures differ from their result files; run python benchmarks/update_docs.py:\n" + "\n".join(
        stale
    )
    assert not missing, "measured figures with no result file:\n" + "\n".join(missing)


def test_check_fails_on_a_measured_figure_with_no_file_beside_it():
    text = (
        "Fast: 465 moves/s on 2 cores.\n\nBeat it 113-2-85 (57.0 %) (`benchmarks/results/ppo/x.json`).\n\n"
        "- won 98.8 % of 200 games\n- <!-- figure:engine#plies_per_s -->1<!-- /figure --> plies\n\n"
        "```bash\npython bench.py  # 12 moves/s\n```\n"
    )
    missing = update_docs.unfiled(text, "doc.md")
    assert [line.split(": ", 1)[0] for line in missing] == ["doc.md:1", "doc.md:5"]
    assert "'465 moves/s' has no result file" in missing[0] and "'98.8 % of 200 games'" in missing[1]


def test_check_fails_on_a_percentage_with_no_file_but_not_on_a_confidence_level_code_or_a_filed_table():
    """Any percentage (a share, a rate of agreement, a score) or W-D-L is a measured figure, but for the confidence
    level of an interval, a date and what code shows; a table is filed by the paragraph before it, over several
    tables in a row."""
    text = (
        "The policy plays the teacher's move in 66.4 % of positions; Elo with 95 % intervals, [95 %] and 95 % CI.\n\n"
        "The progress line reads `ppo: 40,960 moves (3%) random=100%`.\n\n"
        "Screened (`benchmarks/results/ppo/x_*.json`):\n\n| moves | score |\n| --- | --- |\n| 1M | 77.0 % |\n\n"
        "| moves | score |\n| --- | --- |\n| 2M | 78.5 % |\n\n"
        "Uncaptioned:\n\n| moves | score |\n| --- | --- |\n| 3M | 80-82 % |\n\n"
        "- random (10 %), 95 % of the moves\n- went 12-1-7 on 2026-11-25\n"
    )
    missing = update_docs.unfiled(text, "doc.md")
    assert [line.split(": ", 1)[1].split(" has")[0] for line in missing] == [
        "'66.4 %'",
        "'80-82 %'",
        "'10 %'",
        "'95 %'",
        "'12-1-7'",
    ]
    assert [line.split(":")[1] for line in missing] == ["1", "19", "21", "21", "22"]


def test_a_match_file_gives_its_wdl_its_score_and_its_score_with_the_interval():
    result = update_docs.load("ppo/ring/tactics/t2_002150400_mcts0.1_200games", {})
    assert update_docs.figure_text(result, "match", "wdl") == "111-10-79"
    assert update_docs.figure_text(result, "match", "score") == "58.0 %"
    assert update_docs.figure_text(result, "score_interval", "interval") == "58.0 % [51.3, 64.7]"


def test_update_docs_check_runs_as_a_command():
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "update_docs.py"), "--check"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("up to date")


def test_readme_benchmarks_and_arena_tables_come_from_files():
    readme = (ROOT / "README.md").read_text()
    assert "<!-- table:benchmarks -->" in readme
    assert "<!-- table:arena_awale16 -->" in readme
    strength = (ROOT / "docs" / "strength.md").read_text()
    assert all(
        f"<!-- table:{name} -->" in strength for name in ("strength", "strength_0.1s", "strength_0.3s", "strength_1s")
    )


def test_every_result_file_names_date_command_machine_and_load():
    cache: dict = {}
    names = set()
    for path in update_docs.documents():
        names |= {match["name"] for match in update_docs.MARKER.finditer(path.read_text())}
    names -= set(update_docs.TABLES)
    assert names, "the docs show figures from result files"
    for name in names:
        origin = update_docs.load(name, cache).provenance
        assert {"date", "command", "machine", "load_before"} <= set(origin), f"{name}: provenance incomplete"


@pytest.fixture
def results(tmp_path, monkeypatch):
    """A results folder holding one benchmark file, as ``--out`` writes it."""
    monkeypatch.setattr(update_docs, "RESULTS", tmp_path)
    monkeypatch.setattr(sys, "argv", ["benchmarks/bench_engine.py", "--out"])
    provenance.write_result(tmp_path / "engine.json", {"plies_per_s": 10_712_345.0, "nested": {"moves": 163_456}})
    return tmp_path


def test_a_figure_is_written_from_its_file_and_a_changed_figure_is_caught(results):
    text = (
        "Playouts: <!-- figure:engine#plies_per_s|M -->old<!-- /figure --> plies/s, "
        "<!-- figure:engine#nested.moves|k --><!-- /figure --> moves/s "
        "(<!-- source:engine --><!-- /source -->).\n"
    )
    updated, stale = update_docs.update_text(text, "doc.md", {})
    assert len(stale) == 3
    assert "-->10.7M<!--" in updated and "-->163k<!--" in updated
    assert "`python benchmarks/bench_engine.py --out`" in updated and "load " in updated
    assert update_docs.update_text(updated, "doc.md", {})[1] == []
    record = json.loads((results / "engine.json").read_text())
    record["figures"]["plies_per_s"] = 9.9e6  # a new measurement: the doc is now stale
    (results / "engine.json").write_text(json.dumps(record))
    again, stale = update_docs.update_text(updated, "doc.md", {})
    assert len(stale) == 1 and "says '10.7M', its file '9.9M'" in stale[0]
    assert "-->9.9M<!--" in again


@pytest.mark.parametrize(
    "text, error",
    [
        ("<!-- figure:missing#x -->1<!-- /figure -->", "no result file"),
        ("<!-- figure:engine#nope -->1<!-- /figure --><!-- source:engine --><!-- /source -->", "no figure 'nope'"),
        ("<!-- figure:engine#plies_per_s|bogus -->1<!-- /figure -->", "unknown format 'bogus'"),
        ("<!-- figure:engine#plies_per_s -->1", "not closed"),
        ("<!-- figure:engine#plies_per_s -->1<!-- /figure -->", "without a source"),
        ("<!-- figure:engine -->1<!-- /figure -->", "names no figure"),
    ],
)
def test_bad_markers_are_errors(results, text, error):
    with pytest.raises(update_docs.FigureError, match=error):
        update_docs.update_text(text, "doc.md", {})


def test_the_strength_tables_are_those_the_strength_script_wrote(results):
    (results / "strength").mkdir()
    (results / "strength" / "strength.md").write_text(
        "# Strength\n\n| agent | 0.1 s |\n| --- | ---: |\n| `a` | 1 |\n\n## 0.1 s per move\n\n"
        "| agent | Elo [95 % CI] |\n| --- | --- |\n| `a` | 2 |\n"
    )
    text = "<!-- table:strength -->\nold\n<!-- /table -->\n<!-- table:strength_0.1s -->\nold\n<!-- /table -->"
    updated, stale = update_docs.update_text(text, "doc.md", {})
    assert len(stale) == 2 and "| `a` | 1 |\n<!-- /table -->" in updated and "| `a` | 2 |\n<!-- /table -->" in updated
    with pytest.raises(update_docs.FigureError, match="no table of agents under ## 1 s per move"):
        update_docs.update_text("<!-- table:strength_1s -->\nold\n<!-- /table -->", "doc.md", {})


def test_a_match_file_feeds_the_docs_through_the_same_markers(results, capsys):
    match = load_script("match")
    match.main(["random", "greedy", "--games", "2", "--out", str(results / "match.json")])
    assert "random vs greedy: " in capsys.readouterr().out
    text = (
        "<!-- figure:match#match -->?<!-- /figure -->, <!-- figure:match#score|percent -->?<!-- /figure --> "
        "[<!-- figure:match#score_low|percent -->?<!-- /figure -->, <!-- figure:match#score_high|percent -->?"
        "<!-- /figure -->] (<!-- source:match --><!-- /source -->)"
    )
    updated, stale = update_docs.update_text(text, "doc.md", {})
    assert len(stale) == 5 and "(0.0 %)<!--" in updated and "-->0.0 %<!--" in updated
    assert "benchmarks/bench_engine.py --out" in updated  # the command as sys.argv has it (see the fixture)
    (results / "old.json").write_text('{"wins": 1, "draws": 0, "losses": 1}')
    with pytest.raises(update_docs.FigureError, match="old.json is no result file"):
        update_docs.update_text("<!-- figure:old#wins -->1<!-- /figure -->", "doc.md", {})


def test_the_demo_benchmark_reads_each_steps_time_from_the_demo():
    bench_demo = load_script("bench_demo")
    output = "1/2 self-play PPO for 4,096 moves into x\n1/2 done in 0:12:05\n2/2 arena: ...\n2/2 done in 1:00:01\n"
    assert bench_demo.step_seconds(output) == {"ppo_seconds": 725, "arena_seconds": 3601}
    with pytest.raises(ValueError, match="lacks its 'N/2 done in' lines"):
        bench_demo.step_seconds("1/2 done in 0:00:01\n")
    assert update_docs.FORMATS["min"](725) == "12 min"


def test_the_editions_playout_table_is_the_playout_scripts_file(results):
    provenance.write_result(
        results / "playouts.json",
        {
            "plies_per_cpu_s": {"awale16": 18.3e6, "awale16_2025": 14.3e6},
            "vs_default": {"awale16": 1.0, "awale16_2025": 0.78},
        },
    )
    updated, stale = update_docs.update_text("<!-- table:playouts -->\nold\n<!-- /table -->", "doc.md", {})
    assert len(stale) == 1
    assert "| `awale16` | 18.3M plies/s | 1.00x |\n| `awale16_2025` | 14.3M plies/s | 0.78x |" in updated
    assert "Made by `python benchmarks/bench_engine.py --out`" in updated


def test_the_ci_benchmark_reads_both_suites_counts_and_times():
    bench_ci = load_script("bench_ci")
    output = (
        "== the test suite ==\n1660 passed, 3 skipped, 2 warnings in 345.12s (0:05:45)\n== Ray ==\n"
        "51 passed in 120.50s (0:02:00)\n"
    )
    assert bench_ci.suites(output) == {"main_tests": 1660, "main_seconds": 345, "ray_tests": 51, "ray_seconds": 120}
    with pytest.raises(ValueError, match="found 1"):
        bench_ci.suites("3 failed, 1657 passed in 345.12s\n")
