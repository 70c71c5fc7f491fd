"""Player programs speaking the course referee's protocol (docs/editions.md), run contained, every answer checked by
the engine: what ``awale referee`` and ``awale tournament`` play games with, in this process, a pool's worker
process or a Ray actor alike.

Each game starts both programs afresh (the command split as a shell would, the seat argument ``JoueurA`` or
``JoueurB`` appended), sends ``START`` to the first player, then passes each answer on to the opponent, checking it
against the rules and timing it. A program that answers a malformed or illegal move, a false ``RESULT`` line, more
than one line per move, a line over :data:`MAX_LINE_BYTES`, or nothing in time, or that exits, loses the game; the
report says why, at which ply, with the answer and the position. At the end of a game both receive ``END``.

Containment: every program runs under a small guard process (:data:`GUARD_SOURCE`, plain Python) that starts it in
a process group of its own, optionally under a memory limit (``RLIMIT_AS``: a runaway program fails to allocate and
loses by a crash, the games go on), and kills that whole group when the program exits or crashes (whatever it left
running), when the referee asks (:meth:`Program.kill`), and when the referee's end of a pipe closes: when the
referee exits, however it exits, ``kill -9`` included; on Linux it also kills every process the program started
that left its group (``setsid``), which its subreaper status makes its child. Nothing a program writes is held
without a cap: answer lines are kept up to :data:`MAX_LINE_BYTES` and 16 unread (``answer_lines``), standard error
goes to a file up to ``stderr_cap`` bytes (the rest is drained and dropped), and messages quote short excerpts
(:func:`excerpt`)."""

from __future__ import annotations

import hashlib
import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from awale_env.errors import IllegalMoveError
from awale_env.games import Game
from competition.answer_lines import MAX_LINE_BYTES, AnswerLines, LongLine

#: The seat arguments of the seats 0 (moves first) and 1, by ``seat_style``.
SEAT_ARGUMENTS = {"names": ("JoueurA", "JoueurB"), "numbers": ("1", "2")}
#: The longest time per move and start-up the referee takes (an hour: a finite deadline it can wait for).
MAX_SECONDS = 3600.0
#: Seconds a program may take to exit after ``END`` before it is killed.
EXIT_GRACE = 2.0
#: Lines of a losing program's standard error quoted in the results.
STDERR_LINES = 3
#: Characters of a program's output quoted in a message.
EXCERPT_CHARS = 60
#: Bytes of a program's standard error kept per game (the rest is read and dropped).
STDERR_CAP = 1 << 20
#: Bytes read from the end of the standard error file to quote its last lines.
STDERR_TAIL_BYTES = 4096

#: The guard that runs a program (``python -c GUARD_SOURCE WATCH_FD MEMORY_BYTES PROGRAM ARGS...``): it starts the
#: program in a new process group (under ``RLIMIT_AS`` = MEMORY_BYTES unless 0), then waits for the program to end,
#: for SIGTERM, or for the end of the pipe WATCH_FD (its other end is held by the referee alone). On either of the
#: latter it kills the program's group; when the program ends it kills what is left of its group; then it exits as
#: the program did (its exit code, or the same signal), so the referee sees the program's status. On Linux it also
#: gets SIGTERM when the referee's process dies (prctl PDEATHSIG, as :func:`competition.parent_death.die_with_parent`
#: does for workers: the guard runs without the toolkit, ``-I -S``), and it is a child subreaper (prctl
#: PR_SET_CHILD_SUBREAPER): whatever the program leaves behind, even a process that left its group with ``setsid``,
#: becomes the guard's child when its own parent ends, and the guard kills every child it has before it exits.
GUARD_SOURCE = r"""
import os, resource, select, signal, sys, time
watch, memory, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
referee = os.getppid()
linux = sys.platform.startswith("linux")
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
if linux:
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    os.close(watch)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        os.write(2, f"cannot run {argv[0]}: {error}\n".encode())
    os._exit(127)
try:
    os.setpgid(pid, pid)
except OSError:
    pass
def end(*_):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
def children():
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    if int(stat.read().rsplit(b")", 1)[1].split()[1]) == me:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found
def end_descendants():
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        for child in children():
            try:
                os.kill(child, signal.SIGKILL)
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return
        time.sleep(0.01)
signal.signal(signal.SIGTERM, end)
signal.signal(signal.SIGINT, signal.SIG_IGN)
if linux:
    libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != referee:
        end()
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
pidfd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
waits, pause = ([pidfd], None) if pidfd is not None else ([], 0.05)
status = None
while status is None:
    try:
        ready, _, _ = select.select([watch] + waits if watch != -1 else waits, [], [], pause)
    except InterruptedError:
        ready = []
    if watch in ready and not os.read(watch, 1):
        end()
        watch = -1
    done, code = os.waitpid(pid, os.WNOHANG)
    if done:
        status = code
    elif watch == -1:
        status = os.waitpid(pid, 0)[1]
end()
if linux:
    end_descendants()
if os.WIFSIGNALED(status):
    if os.WTERMSIG(status) != signal.SIGKILL:  # a handler cannot be set for SIGKILL (the OOM killer's signal)
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)
"""


def excerpt(text: str | bytes, limit: int = EXCERPT_CHARS) -> str:
    """``text`` quoted for a message, cut to about ``limit`` characters with the length said when longer."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def exit_status(code: int | None) -> str:
    """How a program ended, from its return code: ``exit code N`` or ``killed by SIGNAME``."""
    if code is None:
        return "still running"
    if code >= 0:
        return f"exit code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    return f"killed by {name}"


@dataclass
class GameReport:
    """One game: the programs (1 or 2, as given on the command line) at each seat (``seats[0]``, JoueurA, moved
    first), the winner (a program, None for a draw), the seeds each seat captured (JoueurA's first), how it ended
    (``end``: the rules' end reason, or the fault of the program that lost, ``faulty``, with ``detail`` saying what
    happened, ``fault_ply`` the ply it was due at (from 1), ``fault_answer`` an excerpt of what it answered, and
    ``fault_position`` the position it was to move in, as ``State.to_dict`` JSON), the moves as answered with each
    answer's seconds (``times``), the seat that played each move, opening moves first (``movers``: a move can give
    another turn in some games), and the seconds of the first answer (start-up included) and of the longest later
    answer of program 1 and of program 2."""

    number: int
    seats: tuple[int, int]
    winner: int | None = None
    scores: tuple[int, int] = (0, 0)
    plies: int = 0
    end: str = ""
    detail: str = ""
    faulty: int | None = None
    fault_ply: int | None = None
    fault_answer: str | None = None
    fault_position: str | None = None
    moves: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    movers: list[int] = field(default_factory=list)
    first_answer: list[float] = field(default_factory=lambda: [0.0, 0.0])
    longest_answer: list[float] = field(default_factory=lambda: [0.0, 0.0])


class Fault(Exception):
    """A program broke the protocol or the rules: it loses the game. ``kind`` names the fault (timeout, illegal,
    malformed, crash, extra_output, false_result), the message what happened, ``answer`` what it answered (if it
    answered)."""

    def __init__(self, kind: str, message: str, answer: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.answer = answer


class Program:
    """A running player program (under its guard, :data:`GUARD_SOURCE`): its standard input, its answer lines
    (:class:`AnswerLines`: a thread reading its standard output), a thread copying its standard error into a
    temporary file up to ``stderr_cap`` bytes, kept in :attr:`stderr_bytes` at the end with ``keep_stderr``.
    ``seat``: the argument appended to ``argv`` (None: the command as given, e.g. a player's preparation);
    ``memory``: its address-space limit in bytes (None: none)."""

    def __init__(
        self,
        argv: list[str],
        seat: str | None,
        memory: int | None = None,
        stderr_cap: int = STDERR_CAP,
        keep_stderr: bool = False,
    ) -> None:
        self.keep_stderr = keep_stderr
        self.stderr_bytes: bytes | None = None
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115  (closed by finish)
        self.stderr_cap = stderr_cap
        command = [*argv] if seat is None else [*argv, seat]
        self.watch: int | None = None
        if os.name == "posix":
            read_end, self.watch = os.pipe()  # ours stays here alone (not inherited): its end tells the guard we ended
            command = [sys.executable, "-I", "-S", "-c", GUARD_SOURCE, str(read_end), str(memory or 0), *command]
            pass_fds: tuple[int, ...] = (read_end,)
        else:
            pass_fds = ()
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=pass_fds,
                start_new_session=os.name == "posix",  # Ctrl-C at the terminal reaches the referee alone
            )
        finally:
            if pass_fds:
                os.close(pass_fds[0])
        self.output = AnswerLines(self.process.stdout)
        self.answers = 0
        self.ended = False
        self._threads = [
            self.output.thread,
            threading.Thread(target=self._keep_stderr, args=(self.process.stderr,), daemon=True),
        ]
        self._threads[1].start()

    def _keep_stderr(self, stderr: IO[bytes]) -> None:
        kept, dropped = 0, 0
        with stderr:
            while chunk := stderr.read1(1 << 16):
                room = max(0, self.stderr_cap - kept)
                if room:
                    self.stderr.write(chunk[:room])
                    self.stderr.flush()
                kept += min(room, len(chunk))
                dropped += len(chunk) - min(room, len(chunk))
        if dropped:
            self.stderr.write(f"\n[{dropped} more bytes of standard error dropped]\n".encode())
            self.stderr.flush()

    def ask(self, lines: list[str], state: Any, allowed: float, limit: str) -> tuple[str, float]:
        """Send ``lines`` (``START``, or the opponent's moves since this program's last one: one line each) now that
        its turn has come in ``state``, and wait for its answer: the line and the seconds it took; Fault for output
        when none was due, a crash, or no answer within ``allowed`` seconds (``limit`` says how they add up). No
        lines: the program moves again (its move gave it another turn) and writes its next move unasked, which may
        have arrived already."""
        if lines:
            extra = self.unread()
            if extra is not None:
                raise Fault("extra_output", f"wrote {extra} when no answer was due", extra)
        sent = time.perf_counter()  # before writing: the answer may arrive before the write returns
        for line in lines:
            self.send(line)
        return self.answer(sent, allowed, limit)

    def send(self, line: str) -> None:
        """Write one line; Fault ``crash`` if the program is gone."""
        try:
            self.process.stdin.write(line.encode() + b"\n")
            self.process.stdin.flush()
        except OSError:
            raise Fault("crash", f"exited before receiving {line!r} ({self._exit()})") from None

    def answer(self, sent: float, allowed: float, limit: str) -> tuple[str, float]:
        """The next line and the seconds it took after ``sent``; Fault if it does not come within ``allowed``
        seconds, came late, is too long, or the program closed its output or ended."""
        try:
            line, arrived = self.output.next(sent + allowed - time.perf_counter())
        except queue.Empty:
            if self.process.poll() is not None:
                raise Fault("crash", f"ended without answering ({self._exit()})") from None
            raise Fault("timeout", f"no answer within {limit}") from None
        if line is None:
            self.ended = True
            raise Fault("crash", f"closed its output without answering ({self._exit()})")
        seconds = max(0.0, arrived - sent)
        if isinstance(line, LongLine):
            quoted = excerpt(line.start)
            raise Fault("malformed", f"answered a line of {line.length} bytes (at most {MAX_LINE_BYTES}): {quoted}",
                        quoted)  # fmt: skip
        if seconds > allowed:
            raise Fault("timeout", f"answered {excerpt(line.strip())} after {seconds:.2f} s; the limit is {limit}",
                        excerpt(line.strip()))  # fmt: skip
        self.answers += 1
        return line, seconds

    def unread(self) -> str | None:
        """An excerpt of a line the program wrote beyond its answers, if any arrived; Fault ``crash`` if it ended
        (its output closed) since its last answer."""
        try:
            line, _ = self.output.next(0.0)
        except queue.Empty:
            return None
        if line is None:
            self.ended = True
            raise Fault("crash", f"ended before its turn ({self._exit()})")
        return excerpt(line.start) if isinstance(line, LongLine) else excerpt(line.strip())

    def _exit(self) -> str:
        """How the program ended (waiting a moment for it): ``exit code N``, ``killed by SIGNAME``, or that it still
        runs."""
        try:
            self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "its output closed, the program still running"
        return exit_status(self.process.returncode)

    def stderr_tail(self) -> str:
        """The last lines of what the program wrote on standard error (read from the end of its file, each line
        cut to an excerpt), joined by `` | ``."""
        self.stderr.flush()
        size = self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, size - STDERR_TAIL_BYTES))
        text = self.stderr.read().decode("utf-8", errors="replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return " | ".join(line if len(line) <= 200 else line[:200] + "..." for line in lines[-STDERR_LINES:])

    def finish(self) -> None:
        """Send ``END`` if the program still runs, give it :data:`EXIT_GRACE` seconds to exit, then kill it; in every
        case its whole process group is ended (the guard kills it when the program exits)."""
        try:
            if self.process.poll() is None:
                self.process.stdin.write(b"END\n")
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=EXIT_GRACE)
        except subprocess.TimeoutExpired:
            pass
        self.kill()
        for thread in self._threads:
            thread.join(timeout=5)
        if self.keep_stderr:
            self.stderr.seek(0)
            self.stderr_bytes = self.stderr.read()
        self.stderr.close()

    def kill(self) -> None:
        """End the program and whatever it started (its process group) at once, and its guard."""
        if self.watch is not None:
            os.close(self.watch)  # the guard kills the group when this end closes
            self.watch = None
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
        elif self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a guard that does not answer: it and the program die with its group
            self.process.kill()
            self.process.wait()


class AgentPlayer:
    """A toolkit agent (built by ``make``) as a player of a refereed game, in this process: it answers from the
    referee's own position, timed like a program (its first answer gets the start-up time as well)."""

    def __init__(self, agent: Any, game: Game) -> None:
        self.agent, self.game = agent, game
        self.answers = 0

    def ask(self, lines: list[str], state: Any, allowed: float, limit: str) -> tuple[str, float]:
        started = time.perf_counter()
        try:
            action = self.agent.act(state)
        except Exception as error:  # the agent's failure loses its game, as a program's crash does
            raise Fault("crash", f"raised {type(error).__name__}: {excerpt(str(error), 200)}") from None
        seconds = time.perf_counter() - started
        try:
            line = self.game.format_move(int(action))
        except (ValueError, TypeError, IndexError, IllegalMoveError):
            raise Fault("illegal", f"played {excerpt(str(action))}, not an action of the game") from None
        if seconds > allowed:
            raise Fault("timeout", f"answered {line!r} after {seconds:.2f} s; the limit is {limit}", line)
        self.answers += 1
        return line, seconds

    def stderr_tail(self) -> str:
        return ""

    def finish(self) -> None:
        pass

    def kill(self) -> None:
        pass


def split_command(command: str) -> list[str]:
    """The words of ``command`` as a shell splits them; ValueError if it is empty or its program is not found."""
    argv = shlex.split(command, posix=os.name == "posix")
    if not argv:
        raise ValueError("a player command is empty")
    if shutil.which(argv[0]) is None:
        raise ValueError(f"cannot run {command!r}: no program {argv[0]!r} (a path, or a program on the PATH)")
    return argv


def command_digest(command: str) -> str | None:
    """The SHA-256 of what ``command`` runs: its program file and every file its arguments name (a script, a jar),
    read in that order; None when no word names a file."""
    argv = shlex.split(command, posix=os.name == "posix")
    paths = [shutil.which(argv[0]) if argv else None, *argv[1:]]
    digest, found = hashlib.sha256(), False
    for path in paths:
        if path and os.path.isfile(path):
            with open(path, "rb") as file:
                digest.update(hashlib.file_digest(file, "sha256").digest())
            found = True
    return digest.hexdigest() if found else None


def check_answer(game: Game, state: Any, line: str) -> tuple[str, int, tuple[int, int] | None]:
    """The move of an answer line as written, its action and the scores the line claims (``RESULT <move> <score1>
    <score2>``, else None); Fault ``malformed`` or ``illegal``."""
    move = line.strip()
    quoted = excerpt(move)
    claim = None
    if "RESULT" in move:
        words = move.split()
        if len(words) != 4 or words[0] != "RESULT" or not all(word.isascii() and word.isdigit() for word in words[2:]):
            raise Fault("malformed", f"answered {quoted}; a result line is RESULT <move> <score1> <score2>", quoted)
        move, claim = words[1], (int(words[2]), int(words[3]))
    try:
        action = game.parse_move(move)
    except IllegalMoveError as error:
        raise Fault("malformed", f"answered {quoted}: {excerpt(str(error), 200)[1:-1]}", quoted) from None
    try:
        return move, state.to_action(action), claim
    except IllegalMoveError as error:
        raise Fault("illegal", str(error), quoted) from None


#: A player of a refereed game: a running :class:`Program` or an :class:`AgentPlayer`.
Player = Program | AgentPlayer


class RefereedGame:
    """Game ``number`` (from 1) between two players made by ``start(index, seat_argument)`` (index 0 or 1: the
    first or second player of the match; they swap seats every game, the first being JoueurA in odd games): every
    answer within ``seconds``, a player's first within ``seconds + startup``. ``opening``: actions played before
    the players' first turn (only between agents: the protocol cannot tell a program a position). :meth:`play`
    runs it."""

    def __init__(
        self,
        game: Game,
        options: dict[str, Any],
        max_plies: int | None,
        start: Callable[[int, str], Player],
        number: int,
        seconds: float,
        startup: float,
        seat_style: str = "names",
        opening: tuple[int, ...] = (),
        seed: int | None = None,
    ) -> None:
        self.game, self.start, self.seconds, self.startup = game, start, seconds, startup
        self.seat_arguments = SEAT_ARGUMENTS[seat_style]
        self.report = GameReport(number, (1, 2) if number % 2 else (2, 1))
        self.state = game.initial(max_plies=max_plies, seed=seed, **options)
        #: The rules' player at each seat: JoueurA moves first.
        self.players = (self.state.to_move, 1 - self.state.to_move)
        for action in opening:
            self.report.movers.append(self.players.index(self.state.to_move))
            self.state = self.state.play(action)

    def scores(self, state: Any) -> tuple[int, int]:
        """The seeds each seat captured in ``state``, JoueurA's first."""
        return state.stores[self.players[0]], state.stores[self.players[1]]

    def play(self) -> GameReport:
        """Start both players, play the game through them, end them; the report."""
        report = self.report
        players: list[Player] = []
        try:
            for seat in (0, 1):
                players.append(self.start(report.seats[seat] - 1, self.seat_arguments[seat]))
            unseen: tuple[list[str], list[str]] = (["START"], [])  # what each seat has not been sent yet
            while not self.state.is_terminal:
                seat = self.players.index(self.state.to_move)
                try:
                    move, self.state = self._move(players[seat], seat, unseen[seat])
                except Fault as fault:
                    self._forfeit(players[seat], seat, fault)
                    break
                unseen[seat].clear()
                unseen[1 - seat].append(move)
                report.moves.append(move)
                report.movers.append(seat)
            else:
                winner = self.state.winner
                report.end = self.state.end_reason
                report.winner = None if winner is None else report.seats[self.players.index(winner)]
        except BaseException:
            for player in players:
                player.kill()
            raise
        finally:
            for player in players:
                player.finish()
        report.scores = self.scores(self.state)
        report.plies = self.state.ply
        return report

    def _move(self, player: Player, seat: int, lines: list[str]) -> tuple[str, Any]:
        """Send ``lines`` to the player at ``seat``, whose turn it is (``START``, the opponent's moves since its last
        one, or none when its own move gave it another turn), and check its answer: the move as the player wrote it
        and the position after it; Fault for anything the protocol or the rules do not allow."""
        first = player.answers == 0
        allowed = self.seconds + (self.startup if first else 0.0)
        limit = f"{allowed:g} s ({self.seconds:g} s + {self.startup:g} s of start-up)" if first else f"{allowed:g} s"
        line, took = player.ask(lines, self.state, allowed, limit)
        number = self.report.seats[seat]
        if first:
            self.report.first_answer[number - 1] = took
        else:
            self.report.longest_answer[number - 1] = max(self.report.longest_answer[number - 1], took)
        quoted = excerpt(line.strip())
        try:
            move, action, claim = check_answer(self.game, self.state, line)
        except Fault as fault:
            words = line.split()
            last = lines[-1] if lines and self.report.moves else None  # the opponent's last move, if sent
            if fault.kind == "illegal" and words[:1] == ["RESULT"] and len(words) == 4 and words[1] == last:
                a, b = self.scores(self.state)  # not its own move: it says the opponent's last move ended the game
                raise Fault("false_result", f"answered {quoted} as if the opponent's {last} had ended the game, but "
                            f"the game goes on (scores {a}-{b})", quoted) from None  # fmt: skip
            raise
        after = self.state.play(action)
        if claim is not None and not after.is_terminal:
            a, b = self.scores(after)
            raise Fault("false_result", f"answered {quoted} but the game goes on (scores {a}-{b})", quoted)
        scores = self.scores(after)
        if claim is not None and claim != scores:
            raise Fault("false_result", f"answered {quoted}; the scores are {scores[0]} {scores[1]}", quoted)
        self.report.times.append(took)
        return move, after

    def _forfeit(self, player: Player, seat: int, fault: Fault) -> None:
        """Record that the player at ``seat`` lost the game by ``fault``; kill it if it hangs or died."""
        if fault.kind in ("timeout", "crash"):
            player.kill()
        tail = player.stderr_tail()
        report = self.report
        report.faulty, report.winner, report.end = report.seats[seat], report.seats[1 - seat], fault.kind
        report.fault_ply, report.fault_answer = self.state.ply + 1, fault.answer
        report.fault_position = json.dumps(self.state.to_dict())
        report.detail = f"{SEAT_ARGUMENTS['names'][seat]} at ply {self.state.ply + 1}: {fault}"
        report.detail += f" [stderr: {tail}]" if tail else ""
