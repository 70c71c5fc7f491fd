"""Progress as users see it: on a terminal a tqdm bar whose time left leaves out the start (the first games carry
the workers' start-up); in a log file or a pipe plain lines, never a carriage return, the same helper for the
trainers, the arena and tournaments (competition.progress.Progress)."""

from __future__ import annotations

import io

from typer.testing import CliRunner

from awale_apps.cli import app, expand_list_options
from competition.progress import Clock, Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_time_left_leaves_out_the_start(monkeypatch):
    """Two workers take 600 s to start and finish their first games; then a game every 10 s: 80 games left are
    800 s, not the 24,000 s a plain average since the start would predict."""
    clock = FakeClock()
    monkeypatch.setattr("competition.progress.time.monotonic", clock)
    log = io.StringIO()
    progress = Progress("arena", 100, 0, "game", Clock(), stream=log, warmup=2, every=0)
    clock.now += 600
    progress.update(1)
    progress.update(1)
    assert progress.steady.left(100) is None and "left" not in log.getvalue()
    for _ in range(18):
        clock.now += 10
        progress.update(1)
    assert progress.steady.left(100) == 800
    assert log.getvalue().splitlines()[-1] == "arena: 20/100 games (20%), 0:13:00, about 0:13:20 left"


def test_a_terminal_gets_a_bar_without_a_guess_until_the_rate_is_known(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr("competition.progress.time.monotonic", clock)
    screen = Terminal()
    progress = Progress("arena", 10, 0, "game", Clock(), stream=screen, warmup=2)
    clock.now += 600
    progress.update(1)
    assert progress.bar.format_dict["rate"] == 0.0  # tqdm shows "?" for the rate and the time left
    progress.update(1)
    clock.now += 10
    progress.update(1)
    assert progress.bar.format_dict["rate"] == 0.1
    progress.close()
    assert "\r" in screen.getvalue()


def test_the_arena_writes_no_bar_frames_into_a_pipe():
    argv = expand_list_options(["arena", "--agents", "random", "greedy", "--games", "2", "--workers", "2"])
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert "\r" not in result.output and "Elo" in result.output


def test_lines_printed_while_a_bar_runs_land_above_it():
    screen = Terminal()
    progress = Progress("tournament", 4, 0, "game", Clock(), stream=screen)
    progress.update(1)
    with progress.above():
        print("game 1: sleeper lost by timeout", file=screen)
    progress.update(1)
    progress.close()
    before, after = screen.getvalue().split("game 1: sleeper lost by timeout\n")
    assert before.endswith("\r") and "tournament" in after  # the bar was cleared, the line kept, the bar redrawn
