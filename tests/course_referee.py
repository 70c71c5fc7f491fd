"""A stand-in of the course's own referee (``Arbitre.java`` of the 2025 students' repositories), written from the
description of issue 24, not from its code: what ``awale bot`` meets in the course's tournament.

- It launches ``<command> JoueurA`` and ``<command> JoueurB`` (the seat as last argument), each in its own process
  group, and sends ``START`` to JoueurA.
- Each answer must come within ``seconds`` (3 in the course); a program's first answer's clock starts when the
  program is launched.
- It checks no move: every answer line is relayed verbatim to the other program.
- It stops at an answer line containing ``RESULT`` (that line is the result), when a program does not answer in
  time or its output ends (``RESULT Joueur A disqualifié (timeout)``), or at the 400th answer (``RESULT LIMIT``).
- It never sends ``END``; at the end it kills both programs.

``python tests/course_referee.py "<command A>" "<command B>" [seconds]`` runs one game and prints its lines.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

#: The course's answers per game.
ANSWER_LIMIT = 400
#: The longest answer line the stand-in reads (the course's reads whole lines; a cap keeps the tests' memory bounded).
MAX_LINE = 1 << 16


@dataclass
class CourseGame:
    """One game: the answers in order (seat name, line), the result line, and each program's exit code when it was
    killed (None: it was still running) and standard error."""

    answers: list[tuple[str, str]] = field(default_factory=list)
    result: str = ""
    exit_codes: dict[str, int | None] = field(default_factory=dict)
    stderr: dict[str, str] = field(default_factory=dict)


class _Program:
    def __init__(self, argv: list[str], seat: str) -> None:
        self.seat = seat
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen([*argv, seat], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr, start_new_session=True)  # fmt: skip
        self.launched = time.monotonic()
        self.answered = False
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while line := self.process.stdout.readline(MAX_LINE):
            self.lines.put(line)
        self.lines.put(None)

    def send(self, line: str) -> None:
        try:
            self.process.stdin.write(line.encode() + b"\n")
            self.process.stdin.flush()
        except OSError:
            pass  # a program that is gone is seen as a timeout at its next answer, as in the course

    def kill(self) -> tuple[int | None, str]:
        exit_code = self.process.poll()
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        self.stderr.seek(0)
        return exit_code, self.stderr.read().decode(errors="replace")


def play_course_game(command_a: list[str], command_b: list[str], seconds: float = 3.0) -> CourseGame:
    """One game between the two commands as the course's referee plays it."""
    report = CourseGame()
    programs = [_Program(command_a, "JoueurA"), _Program(command_b, "JoueurB")]
    try:
        mover, message = 0, "START"
        while True:
            program = programs[mover]
            program.send(message)
            start = program.launched if not program.answered else time.monotonic()
            try:
                line = program.lines.get(timeout=max(0.0, start + seconds - time.monotonic()))
            except queue.Empty:
                line = None
            if line is None:
                report.result = f"RESULT Joueur {'AB'[mover]} disqualifié (timeout)"
                break
            program.answered = True
            text = line.decode(errors="replace").rstrip("\r\n")
            report.answers.append((program.seat, text))
            if "RESULT" in text:
                report.result = text
                break
            if len(report.answers) >= ANSWER_LIMIT:
                report.result = "RESULT LIMIT"
                break
            mover, message = 1 - mover, text
    finally:
        for program in programs:
            report.exit_codes[program.seat], report.stderr[program.seat] = program.kill()
    return report


if __name__ == "__main__":
    import shlex

    game = play_course_game(
        shlex.split(sys.argv[1]), shlex.split(sys.argv[2]), float(sys.argv[3:4] and sys.argv[3] or 3)
    )
    for seat, line in game.answers:
        print(seat, line)
    print(game.result)
