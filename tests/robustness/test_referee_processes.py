"""``awale referee`` against hostile programs (issue 29): no program or child of one is left running, however the
game or the referee ends (``kill -9`` included), a crash is named as one, nothing a program writes is held or
echoed without a cap, and ``--out`` holds every finished game, as valid JSON, at any moment."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

REFEREE = [sys.executable, "-m", "awale_apps", "referee", "--game", "awale16_2025"]
TIMEOUT = 120

#: A hostile program: its first argument says how (its seat is its last). It first starts a child (a sleeping Python,
#: whose command line holds this test's folder) that holds its standard output; ``setsid`` starts two more that leave
#: its process group (a daemon whose parent is gone, a child in a session of its own), then hangs.
HOSTILE = textwrap.dedent(
    """\
    import subprocess, sys, time
    mode, folder, seat = sys.argv[1], sys.argv[2], sys.argv[-1]
    sleeper = [sys.executable, "-c", "import time; time.sleep(1000)", folder]
    subprocess.Popen(sleeper)
    if mode == "setsid":  # a daemon that left the group (its parent gone at once) and a child in a session of its own
        escape = "import os, subprocess, sys; os.setsid(); subprocess.Popen(sys.argv[1:])"
        subprocess.run([sys.executable, "-c", escape, *sleeper])
        subprocess.Popen(sleeper, start_new_session=True)
    line = sys.stdin.readline()
    if mode == "crash" or (mode == "crash-as-a" and seat == "JoueurA"):
        sys.exit(3)
    if mode in ("segfault", "sigkill"):  # SIGKILL: as the out-of-memory killer ends a program
        import os, signal
        os.kill(os.getpid(), signal.SIGSEGV if mode == "segfault" else signal.SIGKILL)
    if mode == "long-line":
        sys.stdout.write("7" * 10_000_000 + "\\n")
        sys.stdout.flush()
    if mode == "stderr-flood":
        chunk = "x" * 1_000_000 + "\\n"
        for _ in range(40):
            sys.stderr.write(chunk)
        sys.stderr.flush()
    time.sleep(1000)
    """
)


def hostile(tmp_path: Path, mode: str) -> str:
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE)
    return f"{sys.executable} {script} {mode} {tmp_path}"


def left_running(folder: Path) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if any(str(folder) in word for word in process.info["cmdline"] or []):
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return found


def wait_until(condition, seconds: float = TIMEOUT) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_killing_the_referee_kills_every_program_and_child_and_keeps_the_finished_games(tmp_path, how):
    """Game 1 ends at once (program 1, JoueurA, crashes); during game 2 (program 2 hangs) the referee is killed:
    the results file already holds game 1, and no program nor child is left."""
    out = tmp_path / "results.json"
    referee = subprocess.Popen(
        [*REFEREE, hostile(tmp_path, "crash-as-a"), hostile(tmp_path, "hang"), "--time", "100", "--startup", "0",
         "--games", "2", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_until(lambda: out.exists() and len(left_running(tmp_path)) >= 4)  # 2 programs and their 2 children
        games = json.loads(out.read_text())["games"]
        assert [(g["number"], g["end"], g["faulty"]) for g in games] == [(1, "crash", 1)]
        referee.send_signal(how)
        referee.wait(timeout=TIMEOUT)
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()
    wait_until(lambda: not left_running(tmp_path), 10)
    assert json.loads(out.read_text())["games"][0]["number"] == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the guard is a child subreaper on Linux only")
@pytest.mark.parametrize("how", ["timeout", signal.SIGKILL])
def test_processes_that_left_the_group_with_setsid_end_with_the_game_or_the_referee(tmp_path, how):
    """Both programs start processes that leave their process group (``setsid``): they end when the game ends (a
    timeout), and when the referee is killed with SIGKILL during the game."""
    out = tmp_path / "results.json"
    # The timeout game lasts the first answer's 3 s + start-up: 15 s of start-up let both programs start their 3
    # sleepers each (4 interpreters, under a second on a quiet machine) many times over on a busy one.
    seconds, startup = ("3", "15") if how == "timeout" else ("100", "60")
    referee = subprocess.Popen(
        [*REFEREE, hostile(tmp_path, "setsid"), hostile(tmp_path, "setsid"), "--time", seconds, "--startup", startup,
         "--games", "1", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_until(lambda: len(left_running(tmp_path)) >= 8)  # 2 programs, each with 3 sleeps
        if how == "timeout":
            assert referee.wait(timeout=TIMEOUT) == 0, referee.stderr.read()
            assert json.loads(out.read_text())["games"][0]["end"] == "timeout"
        else:
            referee.send_signal(how)
            referee.wait(timeout=TIMEOUT)
        wait_until(lambda: not left_running(tmp_path), 30)
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()
        for process in left_running(tmp_path):  # a failure leaves nothing behind either
            process.kill()


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("crash", "crash: JoueurA at ply 1: closed its output without answering (exit code 3)"),
        ("segfault", "crash: JoueurA at ply 1: closed its output without answering (killed by SIGSEGV)"),
        ("sigkill", "crash: JoueurA at ply 1: closed its output without answering (killed by SIGKILL)"),
        ("long-line", "malformed: JoueurA at ply 1: answered a line of 10000001 bytes (at most 4096): '7777"),
    ],
)
def test_a_crash_is_named_a_long_line_is_malformed_and_children_die_with_the_program(tmp_path, mode, expected):
    out = tmp_path / "results.json"
    run = subprocess.run(
        [*REFEREE, hostile(tmp_path, mode), hostile(tmp_path, "hang"), "--time", "30", "--startup", "30", "--games",
         "1", "--out", str(out)],
        capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    game = json.loads(out.read_text())["games"][0]
    assert f"{game['end']}: {game['detail']}".startswith(expected), game
    assert len(game["detail"]) < 400 and out.stat().st_size < 10_000 and len(run.stdout) < 10_000
    wait_until(lambda: not left_running(tmp_path), 10)


def test_a_flood_on_standard_error_is_capped(tmp_path):
    """40 MB on standard error: the referee keeps at most its cap and quotes short lines; the game is a timeout."""
    out = tmp_path / "results.json"
    referee = subprocess.Popen(
        [*REFEREE, hostile(tmp_path, "stderr-flood"), hostile(tmp_path, "hang"), "--time", "8", "--startup", "0",
         "--games", "1", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    peak = 0
    while referee.poll() is None:
        try:
            peak = max(peak, psutil.Process(referee.pid).memory_info().rss)
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    assert referee.wait(timeout=TIMEOUT) == 0
    game = json.loads(out.read_text())["games"][0]
    assert game["end"] == "timeout" and len(game["detail"]) < 1000
    assert peak < 400 * 2**20  # the interpreter and the engine; not the 40 MB flood several times over
    wait_until(lambda: not left_running(tmp_path), 10)


def test_a_game_in_this_process_leaves_no_child_not_even_a_zombie(tmp_path):
    """Run in the test's own process (as a pool worker runs it): after the game, this process has no child left,
    running or zombie; programs and their children are gone."""
    from awale_env.games import get_game
    from competition.programs import Program, split_command
    from competition.refereed_game import RefereedGame

    commands = (split_command(hostile(tmp_path, "crash")), split_command(hostile(tmp_path, "hang")))
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    # Game 1: program 1 (JoueurA) crashes on START, however long it takes to start; game 2: program 2 (JoueurA)
    # hangs and is killed after 3 s.
    for number, startup, end in ((1, 120.0, "crash"), (2, 0.0, "timeout")):
        report = RefereedGame(get_game("awale16_2025"), {}, None, lambda i, seat: Program(commands[i], seat), number,
                              3.0, startup).play()  # fmt: skip
        assert report.end == end
    left = [child for child in psutil.Process().children(recursive=True) if child.pid not in before]
    assert not left, [(child.pid, child.status()) for child in left]
    wait_until(lambda: not left_running(tmp_path), 10)
