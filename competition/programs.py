"""Player programs speaking the course referee's protocol (docs/editions.md), run contained: the players of
:mod:`competition.refereed_game`'s games, in this process, a pool's worker process or a Ray actor alike.

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
from typing import IO, Any

from competition.answer_lines import MAX_LINE_BYTES, AnswerLines, LongLine

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
