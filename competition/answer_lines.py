"""A player program's answer lines, read from its standard output by a thread of the referee.

Lines that arrive together (one read of the pipe: an answer and a second line written with it) are handed over
together, so the referee sees the second one as output nobody asked for however the threads are scheduled; read one
by one, the referee could take the answer, pass it on and ask again before the thread had queued the second line,
which then passed for the next answer. Nothing is held without a cap: a line is kept up to :data:`MAX_LINE_BYTES`
(a longer one becomes a :class:`LongLine`: its start and its length), and at most :data:`MAX_UNREAD_LINES` lines
wait unread; the rest are read and dropped (one extra line already makes the program lose).
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import IO

#: The longest answer line kept (a move is a few bytes): a longer one is a malformed move.
MAX_LINE_BYTES = 4096
#: Bytes of a long line kept to quote it.
LONG_LINE_START = 60
#: Lines that may wait unread (a program keeping to the protocol has at most one).
MAX_UNREAD_LINES = 16
#: Bytes asked for per read of the pipe.
READ_BYTES = 1 << 16


@dataclass(frozen=True)
class LongLine:
    """An answer line over :data:`MAX_LINE_BYTES`: its first bytes and its length in bytes (newline included)."""

    start: bytes
    length: int


Line = str | LongLine


class LineSplitter:
    """Cuts a byte stream into lines (newline kept), holding at most ``max_bytes + 1`` bytes of the line under way."""

    def __init__(self, max_bytes: int = MAX_LINE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._start = b""  # the line under way, cut to max_bytes + 1 bytes
        self._length = 0  # its length so far

    def feed(self, chunk: bytes, limit: int) -> list[Line]:
        """The lines ``chunk`` ends, the first ``limit`` of them (the others are dropped)."""
        *ended, rest = chunk.split(b"\n")
        lines = [self._line(part, b"\n") for part in ended[: max(limit, 0)]]
        if len(ended) > limit:
            self._start, self._length = b"", 0
        self._add(rest)
        return lines

    def end(self) -> list[Line]:
        """The last line, if the stream ended without a newline."""
        return [self._line(b"", b"")] if self._length else []

    def _add(self, part: bytes) -> None:
        room = self.max_bytes + 1 - len(self._start)
        if room > 0:
            self._start += part[:room]
        self._length += len(part)

    def _line(self, part: bytes, newline: bytes) -> Line:
        self._add(part)
        start, length = self._start, self._length
        self._start, self._length = b"", 0
        if length > self.max_bytes:
            return LongLine(start[:LONG_LINE_START], length + len(newline))
        return (start + newline).decode("utf-8", errors="replace")


class AnswerLines:
    """Reads ``stdout`` in a daemon thread until it closes; :meth:`next` hands the lines over in order, each with the
    :func:`time.perf_counter` time it arrived, then ``None`` for the end of the output."""

    def __init__(self, stdout: IO[bytes]) -> None:
        self._lines: deque[tuple[Line | None, float]] = deque()
        self._arrived = threading.Condition()
        self.thread = threading.Thread(target=self._read, args=(stdout,), daemon=True)
        self.thread.start()

    def next(self, timeout: float) -> tuple[Line | None, float]:
        """The next line and when it arrived, waiting at most ``timeout`` seconds (0: only a line already read);
        :class:`queue.Empty` if none came."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: self._lines, timeout=max(0.0, timeout)):
                raise queue.Empty
            return self._lines.popleft()

    def _read(self, stdout: IO[bytes]) -> None:
        splitter = LineSplitter()
        with stdout:
            while chunk := stdout.read1(READ_BYTES):
                self._put(splitter.feed(chunk, MAX_UNREAD_LINES))
        self._put([*splitter.end(), None])

    def _put(self, lines: list[Line | None]) -> None:
        """Queue ``lines`` at once (within the cap; the end of the output always)."""
        if not lines:
            return
        arrived = time.perf_counter()
        with self._arrived:
            room = MAX_UNREAD_LINES - len(self._lines)
            kept = [line for line in lines[: max(room, 0)] if line is not None]
            self._lines.extend((line, arrived) for line in kept)
            if lines[-1] is None:
                self._lines.append((None, arrived))
            self._arrived.notify_all()
