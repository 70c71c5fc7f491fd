"""The ``awale`` command: a human game driven through stdin, the arena, one-line errors for bad input, ``python -m
awale_apps``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
import typer
from cli_runner import awale, play_verdict
from typer.testing import CliRunner

from awale_apps.cli import app, expand_list_options, main
from awale_apps.cli.play import prompt
from awale_env import RecordError
from awale_env.games import DEFAULT_GAME, GAMES, facts, get_game

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def test_play_through_piped_stdin_with_bad_input_and_undo():
    moves = "14B\nhello\n1R\nundo\n3B\nquit\n"
    done = awale("play", "--opponent", "greedy:seed=1", "--seat", "0", input=moves)
    out = done.stdout
    assert done.exit_code == 0, done.output
    assert "illegal move 14B for player 0: hole 14 belongs to player 1" in out
    assert "malformed move 'hello'" in out
    assert out.count("greedy plays") == 2  # after 1R and after 3B; the first reply was undone
    assert "[ 0 2 ]" in out and "each hole: red blue" in out  # 1R's hole bracketed (red, blue: colours stripped)
    assert "game abandoned" in out
    assert "Traceback" not in out + done.stderr


def test_play_ends_cleanly_at_end_of_input_and_the_agent_can_start():
    result = runner.invoke(app, ["play", "--opponent", "random:seed=2", "--seat", "1"], input="")
    assert result.exit_code == 0
    assert "random plays" in result.output.split(prompt(get_game(DEFAULT_GAME)))[0]  # the agent moved first
    assert "end of input" in result.output


@pytest.mark.parametrize("seat", [0, 1])
def test_play_a_whole_game_to_its_end(seat):
    # Feed many legal-looking moves; illegal ones are re-prompted, so the game goes on until it ends or input runs out.
    moves = "\n".join(f"{h}{c}" for _ in range(40) for h in range(1, 17) for c in "RB")
    result = runner.invoke(app, ["play", "--opponent", "random:seed=0", "--max-plies", "30", "--seat", str(seat)],
                           input=moves)  # fmt: skip
    assert result.exit_code == 0
    assert "game over" in result.output
    assert result.output.strip().splitlines()[-1] == play_verdict(result.output, seat, "random")


def test_bad_options_give_one_line_errors_and_exit_code_2():
    for args, message in [
        (["play", "--opponent", "nosuch"], "unknown agent 'nosuch'"),
        (["play", "--seat", "2"], "--seat must be 0, 1 or random"),
        (["arena", "--agents", "random", "--agents", "alphabeta:depht=2"], "no parameter 'depht'"),
        (["arena", "--agents", "random", "--agents", "greedy", "--games", "3"], "must be even"),
    ]:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, args
        assert message in result.output
        assert len(result.output.strip().splitlines()) == 1, result.output
        assert "Traceback" not in result.output


def test_arena_prints_a_table_writes_files_and_json(tmp_path):
    args = ["arena", "--agents", "random", "--agents", "greedy", "--games", "4", "--no-progress"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    assert "Elo" in result.output and "wins-draws-losses" in result.output
    table = json.loads(result.output.strip().splitlines()[-1])
    assert {row["agent"] for row in table} == {"random", "greedy"}
    assert sum(row["games"] for row in table) == 8
    names = ["elo.png", "games.csv", "games.jsonl", "results.json", "standings.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == names


def test_agents_take_several_values_after_one_flag(monkeypatch, capsys):
    assert expand_list_options(["arena", "--agents", "a", "b:x=1", "--games", "4", "--agents", "c"]) == [
        "arena", "--agents", "a", "--agents", "b:x=1", "--games", "4", "--agents", "c",
    ]  # fmt: skip
    argv = ["awale", "arena", "--agents", "random", "greedy", "--games", "2", "--no-progress", "--json"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as ended:
        main()  # the console script's entry point, in this process
    assert ended.value.code == 0
    table = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert {row["agent"] for row in table} == {"random", "greedy"}


def test_demo_trains_then_prints_an_elo_table_and_writes_a_chart(tmp_path):
    run_dir = tmp_path / "demo"
    args = ["demo", "--steps", "4096", "--games", "2", "--workers", "1", "--run-dir", str(run_dir)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"ppo:path={run_dir / 'checkpoints' / 'last.zip'}" in result.output
    assert "Elo" in result.output and "alphabeta:depth=2" in result.output
    assert "\r" not in result.output  # no bar frames off a terminal: plain lines
    assert re.search(r"^1/2 done in \d+:\d\d:\d\d$", result.output, re.M)  # each step says what it cost
    assert re.search(r"^2/2 done in \d+:\d\d:\d\d$", result.output, re.M)
    assert (run_dir / "arena" / "elo.png").stat().st_size > 0
    assert (run_dir / "eval.csv").exists()


def test_demo_plays_the_other_games_and_names_a_bad_one(tmp_path):
    run_dir = tmp_path / "oware"
    args = ["demo", "--game", "oware", "--steps", "4096", "--games", "2", "--workers", "1", "--run-dir", str(run_dir)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "alphabeta:depth=2" in result.output and "ppo:pretrained" not in result.output
    assert (run_dir / "arena" / "elo.png").exists()
    result = runner.invoke(app, ["demo", "--game", "chess"])
    assert result.exit_code == 2
    assert "chess" in result.output and "oware" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_train_subcommands_pass_options_to_the_trainers():
    for trainer, option in [("ppo", "--n-envs"), ("alphazero", "--workers"), ("imitation", "--teacher-depth")]:
        result = runner.invoke(app, ["train", trainer, "--help"])  # in this process: the trainers' imports once
        assert result.exit_code == 0 and option in result.stdout, result.output
    done = awale("train", "ppo", "--n-envs", "0", "--run-dir", "unused")
    assert done.exit_code == 2
    assert done.stderr.strip() == "error: --n-envs must be a positive integer, got 0"


def test_python_m_awale_apps_runs_the_command_and_its_help_loads_no_game():
    """``awale --help`` lists the commands without loading a game's rules, numba or torch (a second at start-up)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "awale_apps", "--help"], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert all(command in done.stdout for command in ("play", "arena", "demo", "serve", "train"))
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if "|" in line}
    games = {f"awale_env.games.{name}" for name in GAMES}
    assert "awale_apps.cli" in imported and not imported & {"numba", "torch", *games}


#: A program showing the help pages of ``awale`` commands (the argv lists it is given, each with ``--help``) in one
#: process, then printing which of the packages a help page has no use for it imported.
SHOW_HELP_PAGES = """
import sys
from typer.testing import CliRunner
from awale_apps.cli import app
for argv in sys.argv[1:]:
    result = CliRunner().invoke(app, [*argv.split(), "--help"])
    assert result.exit_code == 0 and "--help" in result.stdout, (argv, result.output)
print(" ".join(name for name in ("numba", "torch", "stable_baselines3", "sb3_contrib") if name in sys.modules))
"""


def test_help_pages_load_neither_the_games_nor_torch():
    """The pages listing every game's rule flags and ply limits read them from the facts kept beside the games
    (:mod:`awale_env.games.facts`), not from the games' packages and numba; the trainers' pages read their options
    without torch or Stable-Baselines3 (seconds of CPU each)."""
    facts.game_list()  # the facts kept (they are, after any program that listed the games)
    games = ["play", "arena", "referee", "demo", "tournament run"]
    trainers = ["train ppo", "train alphazero", "train imitation"]
    for pages, unused in ((games, "numba torch stable_baselines3 sb3_contrib"), (trainers, "torch sb3_contrib")):
        done = subprocess.run([sys.executable, "-c", SHOW_HELP_PAGES, *pages], capture_output=True, text=True,
                              timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert not set(done.stdout.split()) & set(unused.split()), (pages, done.stdout)


def help_pages() -> list[list[str]]:
    """The argv of every ``awale`` subcommand's help page that typer renders (the trainers' pages are tyro's)."""
    pages, todo = [], [([], typer.main.get_command(app))]
    while todo:
        path, command = todo.pop()
        pages.append([*path, "--help"])
        for name, sub in getattr(command, "commands", {}).items():
            if sub.context_settings.get("help_option_names") != []:  # the trainers' pass-through commands
                todo.append(([*path, name], sub))
    return pages


@pytest.mark.parametrize("argv", help_pages(), ids=" ".join)
def test_help_pages_show_the_text_as_written(argv):
    """Square brackets are text, not markup (``[[player]]``), and a flag without a value shows no type."""
    result = runner.invoke(app, argv, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    if argv[:2] == ["tournament", "run"]:
        assert "[[player]] tables" in result.output
    if argv[0] == "arena":
        assert "--progress / --no-progress" in result.output


@pytest.mark.parametrize("command", ["play", "arena", "referee", "demo", "tournament run"])
def test_the_game_options_come_from_the_registry(command):
    text = " ".join(runner.invoke(app, [*command.split(), "--help"], env={"COLUMNS": "200"}).stdout.split())
    assert f"the game: {', '.join(GAMES)} [default: {DEFAULT_GAME}]" in text
    if command != "demo":
        for name, game in GAMES.items():
            assert f"{game.default_max_plies} for {name}" in text
            assert f"{name}: {', '.join(game.rule_options)}" in text or not game.rule_options
    assert not any(f"{{{name}}}" in text for name in ("games", "rule_flags", "max_plies", "default_game")), text


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"awale {version('awale_env')}\n"


def one_line_error(result, code: int) -> str:
    """The one line ``error: ...`` a failed command printed (the CliRunner mixes stderr into the output)."""
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("error: "), result.output
    return line


def test_bad_files_and_numbers_are_one_line_errors(tmp_path):
    regular = tmp_path / "file"
    regular.write_text("")
    line = one_line_error(runner.invoke(app, ["play", "--max-plies", "99999999999999999999999"]), 2)
    assert line == "error: --max-plies must be 0 (no limit) to 1,000,000, got 99999999999999999999999"
    # the arena checks where its results go before it plays
    args = ["arena", "--agents", "random", "greedy", "--games", "2", "--no-progress", "--out", str(regular / "out")]
    result = runner.invoke(app, expand_list_options(args))
    assert one_line_error(result, 2) == f"error: --out {regular / 'out'}: {regular} is a file, not a directory"
    assert "Elo" not in result.output
    args[-1] = str(regular)  # a file where the directory goes
    assert one_line_error(runner.invoke(app, expand_list_options(args)), 2).endswith(f"{regular} is a file, not a "
                                                                                      "directory")  # fmt: skip
    result = runner.invoke(app, ["demo", "--steps", "64", "--games", "2", "--run-dir", str(regular / "run")])
    assert "Not a directory" in one_line_error(result, 1)
    result = runner.invoke(app, ["demo", "--steps", "64", "--games", "2", "--run-dir", str(regular)])
    assert one_line_error(result, 1) == f"error: --run-dir {regular} is a file; a run directory holds the run's files"


def test_any_expected_error_of_a_command_is_one_line(monkeypatch, tmp_path):
    """The rule of every subcommand: a library's ValueError (its subclasses included) exits 2, an OSError 1, each as
    one line naming what was wrong; anything else is a bug and keeps its traceback."""
    import competition.arena

    args = ["arena", "--agents", "random", "greedy", "--games", "2", "--no-progress"]
    for raised, code, line in [
        (OSError(28, "No space left on device", "runs/x"), 1, "error: No space left on device: 'runs/x'"),
        (RecordError("bad record:\n  line 2"), 2, "error: bad record: line 2"),
        (ArithmeticError("a bug"), 1, None),
    ]:

        def fail(*args, raised=raised, **kwargs):
            raise raised

        monkeypatch.setattr(competition.arena, "round_robin", fail)
        result = runner.invoke(app, expand_list_options(args))
        if line is None:
            assert result.exit_code == 1 and result.exception is raised
        else:
            assert one_line_error(result, code) == line


@pytest.fixture
def full_disk(tmp_path):
    """A folder on a 64 KiB tmpfs filled up (needs root and mount; skipped otherwise)."""
    mount = tmp_path / "full"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        with (mount / "filler").open("wb") as filler:
            try:
                filler.write(b"\0" * 2**20)
            except OSError:
                pass
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_a_full_disk_is_a_one_line_error(full_disk):
    """Where the results go is checked before the games (creating a folder may still fit), the write at the end can
    fail all the same: both are one line."""
    for out in (full_disk / "a", full_disk / "b" / "c" / "d"):
        args = ["arena", "--agents", "random", "greedy", "--games", "2", "--no-progress", "--out", str(out)]
        done = awale(*args)
        assert done.exit_code == 1, done.output
        assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
        assert "No space left on device" in done.stderr


def test_packages_shipped_by_a_ray_runtime_env_are_the_toolkits_own(tmp_path):
    """Ray unpacks each package of a runtime env's ``py_modules`` in a folder of its own (``_ray_pkg_<hash>``) in
    front of the installed ones: ``awale bot`` started by a tournament's actor imports them, and must not take them
    for a user's folder hiding the package; the same folders elsewhere still are one."""
    shipped = tmp_path / "session" / "runtime_resources" / "py_modules_files"
    elsewhere = tmp_path / "mine"
    for root in (shipped, elsewhere):
        for number, name in enumerate(("agents", "training")):
            (root / f"_ray_pkg_{number}" / name).mkdir(parents=True)
            (root / f"_ray_pkg_{number}" / name / "__init__.py").write_text("")
    check = [sys.executable, "-c", "from awale_apps import check_packages; check_packages(); print('accepted')"]
    for root, accepted in ((shipped, True), (elsewhere, False)):
        path = os.pathsep.join([str(root / "_ray_pkg_0"), str(root / "_ray_pkg_1"), str(ROOT)])
        done = subprocess.run(check, cwd=tmp_path, env={**os.environ, "PYTHONPATH": path}, capture_output=True,
                              text=True, timeout=120)  # fmt: skip
        assert (done.stdout == "accepted\n") == accepted, done.stderr
        if not accepted:
            assert f"Python imports 'agents' from {root / '_ray_pkg_0' / 'agents'}, which hides" in done.stderr


def test_a_users_folder_named_like_a_package_is_a_one_line_error(tmp_path):
    for name in ("training", "competition", "agents"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
        done = subprocess.run(
            [sys.executable, "-m", "awale_apps", "play"], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 1, done.stderr
        expected = f"error: Python imports {name!r} from {tmp_path / name}, which hides"
        assert done.stderr.startswith(expected), done.stderr
        assert done.stderr.count("\n") == 1 and done.stderr.strip().endswith("rename it, or run from another directory")
        (tmp_path / name / "__init__.py").unlink()
        (tmp_path / name).rmdir()
    done = subprocess.run(
        [sys.executable, "-m", "awale_env", "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout == f"awale {version('awale_env')}\n", done.stderr


def test_tournament_run_and_standings_are_subcommands_and_the_old_spelling_still_runs(tmp_path):
    """``awale tournament run PLAYERS.toml`` and ``awale tournament standings DB``; ``awale tournament
    PLAYERS.toml`` (no subcommand) is ``run``, as before the subcommands."""
    players = tmp_path / "players.toml"
    players.write_text('[[player]]\nname = "a"\nagent = "random"\n[[player]]\nname = "b"\nagent = "greedy"\n')
    for argv, db in ((["tournament", "run", str(players)], "new.db"), (["tournament", str(players)], "old.db")):
        result = runner.invoke(app, [*argv, "--db", str(tmp_path / db), "--no-progress", "--json"])
        assert result.exit_code == 0, result.output
        assert f"results in {tmp_path / db}" in result.output and '"player": "b"' in result.output
    standings = runner.invoke(app, ["tournament", "standings", str(tmp_path / "old.db"), "--csv"])
    assert standings.exit_code == 0 and standings.output.startswith("rank,player,points"), standings.output
    assert runner.invoke(app, ["tournament", "run", "--help"]).output.count("PLAYERS.toml") >= 1
    bad = runner.invoke(app, ["tournament", "run", str(players), "--backend", "nope"])
    assert bad.exit_code == 2 and "--backend must be one of process, ray, got 'nope'" in bad.output
