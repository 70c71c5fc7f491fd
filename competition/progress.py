"""Progress of games and runs on the terminal or in a log, shared by the arena, tournaments and every trainer: a
clock summed over a run's sessions (:class:`Clock`) and a progress bar or plain lines (:class:`Progress`) whose time
left leaves the start out (:class:`SteadyRate`)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from tqdm import tqdm

from competition import interrupts

#: Seconds between two plain progress lines in a log.
LOG_EVERY = 30.0


class Clock:
    """Seconds a run has trained, summed over its sessions: ``saved`` (from its checkpoint) plus this session's."""

    def __init__(self, saved: float = 0.0) -> None:
        self.saved = float(saved)
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return self.saved + time.monotonic() - self.started


def format_seconds(seconds: float) -> str:
    """``H:MM:SS``."""
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}"


class SteadyRate:
    """Units per second since the first ``warmup`` units of this session were done: what is left divided by it is
    an estimate that leaves out the start (processes starting, kernels compiling, networks loading), which made the
    first frames of a plain average predict an hour for minutes of games. None until it is known."""

    def __init__(self, done: int, warmup: int) -> None:
        self.after = done + max(warmup, 1)
        self.since: tuple[float, int] | None = None
        self.latest: tuple[float, int] | None = None

    def update(self, done: int) -> None:
        now = time.monotonic()
        if self.since is None and done >= self.after:
            self.since = (now, done)
        self.latest = (now, done)

    def rate(self) -> float | None:
        if self.since is None or self.latest is None or self.latest[1] <= self.since[1]:
            return None
        return (self.latest[1] - self.since[1]) / max(self.latest[0] - self.since[0], 1e-9)

    def left(self, total: int) -> float | None:
        """Seconds left to ``total``, None while the rate is unknown."""
        rate = self.rate()
        return None if rate is None or self.latest is None else max(total - self.latest[1], 0) / rate


class SteadyBar(tqdm):
    """A tqdm bar whose rate and time left are :class:`SteadyRate`'s (``?`` until known)."""

    def __init__(self, *args: Any, steady: SteadyRate, **kwargs: Any) -> None:
        self.steady = steady
        super().__init__(*args, **kwargs)

    @property
    def format_dict(self) -> dict[str, Any]:
        found = super().format_dict
        found["rate"] = self.steady.rate() or 0.0  # 0: tqdm shows ? for the rate and the time left
        return found


class Progress:
    """Progress on ``stream`` (stderr) of a run or of games: a tqdm bar on a terminal; anywhere else (a log file, a
    pipe) a plain line at most every ``every`` seconds and at every :meth:`status`, never a carriage return. Both
    give the time left once ``warmup`` units are done (:class:`SteadyRate`). Nothing when ``enabled`` is false."""

    def __init__(
        self,
        label: str,
        total: int,
        done: int,
        unit: str,
        clock: Clock,
        enabled: bool = True,
        every: float = LOG_EVERY,
        stream: IO[str] | None = None,
        warmup: int = 1,
    ) -> None:
        self.stream = stream or sys.stderr
        self.label, self.total, self.done, self.unit, self.clock, self.every = label, total, done, unit, clock, every
        self.text = ""
        self.last_line = time.monotonic()
        self.steady = SteadyRate(done, warmup)
        terminal = enabled and self.stream.isatty()
        self.plain = enabled and not terminal
        self.bar = None
        if terminal:
            self.bar = SteadyBar(total=total, initial=done, unit=unit, desc=label, file=self.stream, steady=self.steady)

    def update(self, count: int, status: str | None = None) -> None:
        """``count`` more units done, and the run's latest news (``status``, see :meth:`status`) if any. Every
        trainer's loop calls this at each step: a Ctrl-C that Python dropped is raised here."""
        interrupts.raise_if_dropped()
        self.done += count
        self.steady.update(self.done)
        if status is not None:
            self.text = status
        if self.bar is not None:
            if status is not None:
                self.bar.set_postfix_str(status, refresh=False)
            self.bar.update(count)
        elif self.plain and time.monotonic() - self.last_line >= self.every:
            self._line()

    def status(self, text: str) -> None:
        """The latest news of the run (an evaluation, a generation's figures), shown until the next."""
        self.text = text
        if self.bar is not None:
            self.bar.set_postfix_str(text)
        elif self.plain:
            self._line()

    @contextmanager
    def above(self) -> Iterator[None]:
        """Lines printed inside (a game's result, on stdout or stderr) go above the bar, never glued to it."""
        if self.bar is None:
            yield
            return
        with tqdm.external_write_mode(file=self.stream):
            yield

    def note(self, text: str) -> None:
        """A message that does not replace the status (a skipped evaluation)."""
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        elif self.plain:
            print(text, file=self.stream, flush=True)

    def _line(self) -> None:
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        head = f"{self.label}: {self.done:,}/{self.total:,} {self.unit}s{share}, {format_seconds(self.clock.elapsed())}"
        left = self.steady.left(self.total)
        if left is not None and self.done < self.total:
            head += f", about {format_seconds(left)} left"
        print(head + (f"; {self.text}" if self.text else ""), file=self.stream, flush=True)
        self.last_line = time.monotonic()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
