"""``awale referee``: games between two player programs through the course referee's protocol (docs/editions.md), so
that a student can test a bot against the toolkit's ``awale bot`` before a tournament.

Each game starts both programs afresh (the command split as a shell would, the seat argument ``JoueurA`` or
``JoueurB`` appended), sends ``START`` to the first player, then passes each answer on to the opponent, checking it
against the rules and timing it; the programs swap seats every game. A program that answers a malformed or illegal
move, a false ``RESULT`` line, more than one line per move, or nothing in time, or that exits, loses the game; the
reason goes into the results. At the end of a game both receive ``END``, and a program that does not exit soon is
killed, as is one that ran out of time.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from awale_env.errors import IllegalMoveError
from awale_env.games import Game

#: The seat arguments of the seats 0 (moves first) and 1, by ``seat_style``.
SEAT_ARGUMENTS = {"names": ("JoueurA", "JoueurB"), "numbers": ("1", "2")}
#: The longest time per move and start-up the referee takes (an hour: a finite deadline it can wait for).
MAX_SECONDS = 3600.0
#: Seconds a program may take to exit after ``END`` before it is killed.
EXIT_GRACE = 2.0
#: Lines of a losing program's standard error quoted in the results.
STDERR_LINES = 3


@dataclass
class GameReport:
    """One game: the programs (1 or 2, as given on the command line) at each seat (``seats[0]``, JoueurA, moved
    first), the winner (a program, None for a draw), the seeds each seat captured (JoueurA's first), how it ended
    (``end``: the rules' end reason, or the fault of the program that lost, ``faulty``, with ``detail`` saying what
    happened), the moves as answered, and the seconds of the first answer (start-up included) and of the longest
    later answer of program 1 and of program 2."""

    number: int
    seats: tuple[int, int]
    winner: int | None = None
    scores: tuple[int, int] = (0, 0)
    plies: int = 0
    end: str = ""
    detail: str = ""
    faulty: int | None = None
    moves: list[str] = field(default_factory=list)
    first_answer: list[float] = field(default_factory=lambda: [0.0, 0.0])
    longest_answer: list[float] = field(default_factory=lambda: [0.0, 0.0])


class Fault(Exception):
    """A program broke the protocol or the rules: it loses the game. ``kind`` names the fault (timeout, illegal,
    malformed, crash, extra_output, false_result), the message what happened."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Program:
    """A running player program: its standard input, a thread reading its standard output line by line into a
    queue (each line with the time it arrived; None at the end of output), its standard error in a temporary file."""

    def __init__(self, argv: list[str], seat: str) -> None:
        self.stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self.process = subprocess.Popen(
            [*argv, seat],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=os.name == "posix",  # its own process group, so that kill() ends its children too
        )
        self.lines: queue.Queue[tuple[str | None, float]] = queue.Queue()
        self.answers = 0
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stdout: IO[str]) -> None:
        with stdout:
            for line in stdout:
                self.lines.put((line, time.perf_counter()))
        self.lines.put((None, time.perf_counter()))

    def send(self, line: str) -> None:
        """Write one line; Fault ``crash`` if the program is gone."""
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except OSError:
            raise Fault("crash", f"exited before receiving {line!r}{self._exit()}") from None

    def answer(self, sent: float, allowed: float, limit: str) -> tuple[str, float]:
        """The next line and the seconds it took after ``sent``; Fault if it does not come within ``allowed``
        seconds (``limit`` says how they add up), came late, or the program closed its output."""
        try:
            line, arrived = self.lines.get(timeout=max(0.0, sent + allowed - time.perf_counter()))
        except queue.Empty:
            raise Fault("timeout", f"no answer within {limit}") from None
        if line is None:
            raise Fault("crash", f"closed its output without answering{self._exit()}")
        seconds = arrived - sent
        if seconds > allowed:
            raise Fault("timeout", f"answered {line.strip()!r} after {seconds:.2f} s; the limit is {limit}")
        self.answers += 1
        return line, seconds

    def unread(self) -> str | None:
        """A line the program wrote beyond its answers, if any arrived."""
        try:
            line, _ = self.lines.get_nowait()
        except queue.Empty:
            return None
        return "" if line is None else line

    def _exit(self) -> str:
        """`` (exit code N)`` once the program has ended (waiting a moment for it), else nothing."""
        try:
            return f" (exit code {self.process.wait(timeout=1.0)})"
        except subprocess.TimeoutExpired:
            return ""

    def stderr_tail(self) -> str:
        """The last lines of what the program wrote on standard error, joined by `` | ``."""
        self.stderr.flush()
        self.stderr.seek(0)
        lines = [line.strip() for line in self.stderr.read().splitlines() if line.strip()]
        return " | ".join(lines[-STDERR_LINES:])

    def finish(self) -> None:
        """Send ``END`` if the program still runs, give it :data:`EXIT_GRACE` seconds to exit, then kill it."""
        try:
            if self.process.poll() is None:
                self.process.stdin.write("END\n")
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=EXIT_GRACE)
        except subprocess.TimeoutExpired:
            self.kill()
        self.stderr.close()

    def kill(self) -> None:
        """End the program and whatever it started (its process group) at once."""
        if self.process.poll() is not None:
            return
        if os.name == "posix":
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        else:
            self.process.kill()
        self.process.wait()


def split_command(command: str) -> list[str]:
    """The words of ``command`` as a shell splits them; ValueError if it is empty or its program is not found."""
    argv = shlex.split(command, posix=os.name == "posix")
    if not argv:
        raise ValueError("a player command is empty")
    if shutil.which(argv[0]) is None:
        raise ValueError(f"cannot run {command!r}: no program {argv[0]!r} (a path, or a program on the PATH)")
    return argv


def check_answer(game: Game, state: Any, line: str) -> tuple[str, int, tuple[int, int] | None]:
    """The move of an answer line as written, its action and the scores the line claims (``RESULT <move> <score1>
    <score2>``, else None); Fault ``malformed`` or ``illegal``."""
    move = line.strip()
    claim = None
    if "RESULT" in move:
        words = move.split()
        if len(words) != 4 or words[0] != "RESULT" or not all(word.isascii() and word.isdigit() for word in words[2:]):
            raise Fault("malformed", f"answered {move!r}; a result line is RESULT <move> <score1> <score2>")
        move, claim = words[1], (int(words[2]), int(words[3]))
    try:
        action = game.parse_move(move)
    except IllegalMoveError as error:
        raise Fault("malformed", f"answered {line.strip()!r}: {error}") from None
    try:
        return move, state.to_action(action), claim
    except IllegalMoveError as error:
        raise Fault("illegal", str(error)) from None


class RefereedGame:
    """Game ``number`` (from 1) between the programs of ``commands``, program 1 JoueurA in odd games: every answer
    within ``seconds``, a program's first within ``seconds + startup``. :meth:`play` runs it."""

    def __init__(
        self,
        game: Game,
        options: dict[str, Any],
        max_plies: int | None,
        commands: tuple[list[str], list[str]],
        number: int,
        seconds: float,
        startup: float,
        seat_style: str = "names",
    ) -> None:
        self.game, self.commands, self.seconds, self.startup = game, commands, seconds, startup
        self.seat_arguments = SEAT_ARGUMENTS[seat_style]
        self.report = GameReport(number, (1, 2) if number % 2 else (2, 1))
        self.state = game.initial(max_plies=max_plies, **options)
        #: The rules' player at each seat: JoueurA moves first.
        self.players = (self.state.to_move, 1 - self.state.to_move)

    def scores(self, state: Any) -> tuple[int, int]:
        """The seeds each seat captured in ``state``, JoueurA's first."""
        return state.stores[self.players[0]], state.stores[self.players[1]]

    def play(self) -> GameReport:
        """Start both programs, play the game through them, end them; the report."""
        report = self.report
        programs: list[Program] = []
        try:
            for seat in (0, 1):
                programs.append(Program(self.commands[report.seats[seat] - 1], self.seat_arguments[seat]))
            message = "START"
            while not self.state.is_terminal:
                seat = self.players.index(self.state.to_move)
                try:
                    message, self.state = self._move(programs[seat], seat, message)
                except Fault as fault:
                    self._forfeit(programs[seat], seat, fault)
                    break
                report.moves.append(message)
            else:
                winner = self.state.winner
                report.end = self.state.end_reason
                report.winner = None if winner is None else report.seats[self.players.index(winner)]
        except BaseException:
            for program in programs:
                program.kill()
            raise
        finally:
            for program in programs:
                program.finish()
        report.scores = self.scores(self.state)
        report.plies = self.state.ply
        return report

    def _move(self, program: Program, seat: int, message: str) -> tuple[str, Any]:
        """Send ``message`` to the program at ``seat``, whose turn it is, and check its answer: the move as the
        program wrote it and the position after it; Fault for anything the protocol or the rules do not allow."""
        extra = program.unread()
        if extra is not None:
            raise Fault("extra_output", f"wrote {extra.strip()!r} when no answer was due")
        program.send(message)
        first = program.answers == 0
        allowed = self.seconds + (self.startup if first else 0.0)
        limit = f"{allowed:g} s ({self.seconds:g} s + {self.startup:g} s of start-up)" if first else f"{allowed:g} s"
        line, took = program.answer(time.perf_counter(), allowed, limit)
        number = self.report.seats[seat]
        if first:
            self.report.first_answer[number - 1] = took
        else:
            self.report.longest_answer[number - 1] = max(self.report.longest_answer[number - 1], took)
        move, action, claim = check_answer(self.game, self.state, line)
        after = self.state.play(action)
        if claim is not None and not after.is_terminal:
            raise Fault("false_result", f"answered {line.strip()!r} but the game goes on")
        scores = self.scores(after)
        if claim is not None and claim != scores:
            raise Fault("false_result", f"answered {line.strip()!r}; the scores are {scores[0]} {scores[1]}")
        return move, after

    def _forfeit(self, program: Program, seat: int, fault: Fault) -> None:
        """Record that the program at ``seat`` lost the game by ``fault``; kill it if it hangs or died."""
        if fault.kind in ("timeout", "crash"):
            program.kill()
        tail = program.stderr_tail()
        report = self.report
        report.faulty, report.winner, report.end = report.seats[seat], report.seats[1 - seat], fault.kind
        report.detail = f"{SEAT_ARGUMENTS['names'][seat]} at ply {self.state.ply + 1}: {fault}"
        report.detail += f" [stderr: {tail}]" if tail else ""


@dataclass
class Standing:
    """One program's results over the match, with its longest first answer (start-up included) and its longest
    answer to any later move, in seconds."""

    command: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    first_answer: float = 0.0
    longest_answer: float = 0.0


def referee(
    commands: tuple[str, str],
    game: Game,
    options: dict[str, Any],
    max_plies: int | None,
    games: int,
    seconds: float,
    startup: float,
    seat_style: str = "names",
    on_game: Callable[[GameReport], Any] | None = None,
) -> tuple[list[GameReport], list[Standing]]:
    """Play ``games`` games between the two commands (seats alternating, program 1 first in game 1); ``on_game``
    is told each game as it ends. ValueError for a command that cannot run or a bad setting."""
    if games < 1 or not 0 < seconds <= MAX_SECONDS or not 0 <= startup <= MAX_SECONDS:
        raise ValueError(f"need games >= 1, a time per move in (0, {MAX_SECONDS:g}] s and a start-up in "
                         f"[0, {MAX_SECONDS:g}] s; got {games}, {seconds}, {startup}")  # fmt: skip
    if seat_style not in SEAT_ARGUMENTS:
        raise ValueError(f"the seat style is one of {', '.join(SEAT_ARGUMENTS)}, got {seat_style!r}")
    argvs = (split_command(commands[0]), split_command(commands[1]))
    standings = [Standing(command) for command in commands]
    reports = []
    for number in range(1, games + 1):
        report = RefereedGame(game, options, max_plies, argvs, number, seconds, startup, seat_style).play()
        reports.append(report)
        for index, standing in enumerate(standings):
            if report.winner is None:
                standing.draws += 1
            elif report.winner == index + 1:
                standing.wins += 1
            else:
                standing.losses += 1
            standing.first_answer = max(standing.first_answer, report.first_answer[index])
            standing.longest_answer = max(standing.longest_answer, report.longest_answer[index])
        if report.faulty is not None:
            faults = standings[report.faulty - 1].faults
            faults[report.end] = faults.get(report.end, 0) + 1
        if on_game is not None:
            on_game(report)
    return reports, standings


def format_game(report: GameReport) -> str:
    """One line of the results table for a game."""
    a, b = (f"program {seat}" for seat in report.seats)
    result = "draw" if report.winner is None else f"program {report.winner} wins"
    line = f"game {report.number:>3}: {a} (JoueurA) vs {b} (JoueurB): {result}, {report.scores[0]}-"
    line += f"{report.scores[1]} after {report.plies} plies, {report.end}"
    return line + (f": {report.detail}" if report.detail else "")


def format_standings(standings: list[Standing]) -> str:
    """The results table per program."""
    rows = [("program", "wins", "draws", "losses", "lost by fault", "first answer", "longest later", "command")]
    for index, standing in enumerate(standings, 1):
        faults = ", ".join(f"{count} {kind}" for kind, count in sorted(standing.faults.items())) or "-"
        times = (f"{standing.first_answer:.2f} s", f"{standing.longest_answer:.2f} s")
        rows.append((str(index), str(standing.wins), str(standing.draws), str(standing.losses), faults, *times,
                     standing.command))  # fmt: skip
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1] for row in rows)


def results_json(
    game: Game,
    options: dict[str, Any],
    max_plies: int | None,
    seconds: float,
    startup: float,
    reports: list[GameReport],
    standings: list[Standing],
) -> dict[str, Any]:
    """The match as a JSON-able dict: the settings, the programs' standings and every game."""
    return {
        "game": game.name,
        "rules": options,
        "max_plies": max_plies,
        "time_per_move": seconds,
        "startup": startup,
        "programs": [asdict(standing) for standing in standings],
        "games": [asdict(report) for report in reports],
    }


def write_results(path: Path, results: dict[str, Any]) -> None:
    """``results`` as JSON into ``path``."""
    path.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


def run_match(
    commands: tuple[str, str],
    game: Game,
    options: dict[str, Any],
    max_plies: int | None,
    games: int,
    seconds: float,
    startup: float,
    seat_style: str = "names",
    out: Path | None = None,
    echo: Callable[[str], Any] = print,
) -> dict[str, Any]:
    """``awale referee``: the match of :func:`referee`, each game's line echoed as it ends, then the table per
    program; the results as JSON into ``out`` when given. Returns them."""
    reports, standings = referee(
        commands,
        game,
        options,
        max_plies,
        games,
        seconds,
        startup,
        seat_style,
        lambda report: echo(format_game(report)),
    )
    echo(f"{game.name}, {games} game(s), {seconds:g} s per answer (+{startup:g} s of start-up for a program's first); "
         "every answer checked against the rules: an illegal or malformed move loses for the program that wrote "
         "it (the course's referee checks none):")  # fmt: skip
    echo(format_standings(standings))
    results = results_json(game, options, max_plies, seconds, startup, reports, standings)
    if out is not None:
        write_results(out, results)
        echo(f"wrote {out}")
    return results
