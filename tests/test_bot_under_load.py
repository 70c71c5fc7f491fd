"""``awale bot`` under the course's referee (the stand-in of tests/course_referee.py, 3 s per answer, the first one
counted from the launch) on a busy machine: 8 busy processes beside it, both seats, the docs' agents for the
course, against an opponent that answers at once from the opening book (so that the bot's first move past the book
comes while its agent is still loading). Every game ends with a player's ``RESULT`` line, never with the referee's
timeout; no other timing is asserted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from course_referee import CourseGame, play_course_game

GAME = "awale16_2025"
TESTS = Path(__file__).resolve().parent
#: The busy processes beside the games: load 8 on the CI's 2 cores.
BUSY = 8
#: The game's length: past the book (4 plies), the fallback's moves and, often, the agent's.
MAX_PLIES = 16
#: The agents the docs recommend for the course (docs/editions.md, docs/tournament.md), and the default.
AGENTS = ("alphazero:pretrained,time=2", "alphabeta:time=2.5", "alphabeta:time=2")
BOT = [sys.executable, "-m", "awale_apps", "bot", "--game", GAME, "--max-plies", str(MAX_PLIES), "--result-lines"]
OPPONENT = [sys.executable, str(TESTS / "book_player.py"), GAME, str(MAX_PLIES)]


@pytest.fixture(scope="module")
def prepared() -> None:
    """The documented one-time preparation of every agent, before any clock (and before the busy processes: they
    would only make it longer)."""
    for spec in AGENTS:
        subprocess.run([*BOT[:6], "--agent", spec, "--prepare"], check=True, capture_output=True, timeout=900)


@pytest.fixture(scope="module")
def busy_machine(prepared):
    """8 processes spinning on the CPU, each in its own process group, ended by PID however the tests end."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(BUSY)]
    try:
        yield [process.pid for process in busy]
    finally:
        for process in busy:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture(scope="module")
def games(busy_machine) -> dict[tuple[str, str], CourseGame]:
    """Every agent at both seats, two games at a time, all on the busy machine."""
    cases = [(spec, seat) for spec in AGENTS for seat in ("JoueurA", "JoueurB")]
    with ThreadPoolExecutor(2) as pool:
        futures = {
            (spec, seat): pool.submit(play_course_game, *(lambda bot: (bot, OPPONENT) if seat == "JoueurA"
                                                          else (OPPONENT, bot))([*BOT, "--agent", spec]))
            for spec, seat in cases
        }  # fmt: skip
        return {case: future.result() for case, future in futures.items()}


@pytest.mark.parametrize("seat", ["JoueurA", "JoueurB"])
@pytest.mark.parametrize("spec", AGENTS)
def test_every_game_ends_with_a_player_s_result_line_on_a_busy_machine(games, spec, seat):
    game = games[spec, seat]
    assert game.result.startswith("RESULT ") and "disqualifi" not in game.result, (game.result, game.stderr[seat])
    answers = MAX_PLIES + (seat == "JoueurA")  # the bot answers the opponent's last move, or its own (--result-lines)
    assert game.answers[-1] == (seat, game.result) and len(game.answers) == answers, game.answers
    log = game.stderr[seat]
    assert "Traceback" not in log and "error:" not in log, log
    own = [line for line in log.splitlines() if line.startswith("awale bot: ply ")]
    # each move says where it came from and when: a line that waited for the launch is timed from the start
    timed = (" s after its line", " s after the start")
    assert own and all(" from the " in line and line.endswith(timed) for line in own), log
