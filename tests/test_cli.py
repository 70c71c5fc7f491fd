"""The ``awale`` command: a human game driven through stdin, the arena, and one-line errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from awale_env.cli import PROMPT, app, expand_list_options

runner = CliRunner()
AWALE = str(Path(sys.executable).with_name("awale"))


def test_play_through_piped_stdin_with_bad_input_and_undo():
    moves = "14B\nhello\n1R\nundo\n3B\nquit\n"
    done = subprocess.run(
        [AWALE, "play", "--opponent", "greedy:seed=1", "--seat", "0"],
        input=moves, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert "illegal move 14B for player 0: hole 14 belongs to player 1" in out
    assert "malformed move 'hello'" in out
    assert out.count("greedy plays") == 2  # after 1R and after 3B; the first reply was undone
    assert "[0R2B]" in out  # 1R's hole bracketed on the board
    assert "game abandoned" in out
    assert "Traceback" not in out + done.stderr


def test_play_ends_cleanly_at_end_of_input_and_the_agent_can_start():
    result = runner.invoke(app, ["play", "--opponent", "random:seed=2", "--seat", "1"], input="")
    assert result.exit_code == 0
    assert "random plays" in result.output.split(PROMPT)[0]  # the agent moved first
    assert "end of input" in result.output


def test_play_a_whole_game_to_its_end():
    # Feed many legal-looking moves; illegal ones are re-prompted, so the game goes on until it ends or input runs out.
    moves = "\n".join(f"{h}{c}" for _ in range(40) for h in range(1, 16, 2) for c in "RB")
    result = runner.invoke(app, ["play", "--opponent", "random:seed=0", "--max-plies", "30"], input=moves)
    assert result.exit_code == 0
    assert "game over" in result.output
    assert result.output.strip().splitlines()[-1] in ("you win", "random wins", "draw")


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
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elo.png", "games.csv", "results.json", "standings.csv"]


def test_agents_take_several_values_after_one_flag():
    assert expand_list_options(["arena", "--agents", "a", "b:x=1", "--games", "4", "--agents", "c"]) == [
        "arena", "--agents", "a", "--agents", "b:x=1", "--games", "4", "--agents", "c",
    ]  # fmt: skip
    done = subprocess.run(
        [AWALE, "arena", "--agents", "random", "greedy", "--games", "2", "--no-progress", "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert {row["agent"] for row in json.loads(done.stdout.strip().splitlines()[-1])} == {"random", "greedy"}


def test_demo_trains_then_prints_an_elo_table_and_writes_a_chart(tmp_path):
    run_dir = tmp_path / "demo"
    args = ["demo", "--steps", "4096", "--games", "2", "--workers", "1", "--run-dir", str(run_dir)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"ppo:path={run_dir / 'checkpoints' / 'last.zip'}" in result.output
    assert "Elo" in result.output and "alphabeta:depth=2" in result.output
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
    for trainer, option in [("ppo", "--n-envs"), ("alphazero", "--workers")]:
        done = subprocess.run([AWALE, "train", trainer, "--help"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and option in done.stdout, done.stderr
    done = subprocess.run(
        [AWALE, "train", "ppo", "--n-envs", "0", "--run-dir", "unused"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "error: --n-envs must be a positive integer, got 0"
