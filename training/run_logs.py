"""What a run writes as it goes, for every trainer: its clock summed over resumes (:class:`Clock`), its CSV logs
(:class:`CsvLog`), its TensorBoard events (:func:`tensorboard_writer`) and its progress on the terminal or in a log
(:class:`Progress`). The run directories themselves, their options and the trainers' command line are
:mod:`training.runs`'.
"""

from __future__ import annotations

import csv
import io
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from tqdm import tqdm

from agents.checkpoint import atomic_write
from competition import interrupts

TENSORBOARD_DIR = "tb"
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


class CsvLog:
    """A CSV file of rows appended as a run goes, keyed by a step column (``eval.csv``, ``metrics.csv``)."""

    def __init__(self, path: Path, step_field: str) -> None:
        self.path = path
        self.step_field = step_field

    def _read(self) -> tuple[list[str], list[dict[str, str]]]:
        """The columns and rows of the file; ValueError naming it for one that is not such a CSV file."""
        if not self.path.exists():
            return [], []
        try:
            with self.path.open(newline="", encoding="utf-8") as file:
                reader = csv.DictReader(file)
                fields, rows = list(reader.fieldnames or []), list(reader)
        except UnicodeDecodeError as error:
            raise ValueError(f"{self.path} is not a readable CSV log: not UTF-8 text (byte {error.start})") from None
        except csv.Error as error:
            raise ValueError(f"{self.path} is not a readable CSV log: {error}") from None
        if rows and self.step_field not in fields:
            raise ValueError(f"{self.path} is not a readable CSV log: it lacks its column {self.step_field!r}")
        return fields, rows

    def _step(self, row: dict[str, str]) -> int:
        """The step of a row; ValueError naming the file, the column and the value for one that is no integer."""
        try:
            return int(row[self.step_field])
        except (TypeError, ValueError):
            raise ValueError(
                f"{self.path}: column {self.step_field!r} must hold integers, got {row[self.step_field]!r}"
            ) from None

    def _write(self, fields: list[str], rows: Iterable[dict[str, Any]]) -> None:
        text = io.StringIO(newline="")
        writer = csv.DictWriter(text, fieldnames=fields, restval="")
        writer.writeheader()
        writer.writerows(rows)
        atomic_write(self.path, lambda file: file.write(text.getvalue().encode()))

    def keep_until(self, step: int) -> None:
        """Drop the rows logged after ``step`` (a run stopped after its last checkpoint; 0: every row)."""
        fields, rows = self._read()
        kept = [row for row in rows if self._step(row) <= step]
        if len(kept) < len(rows):
            self._write(fields, kept)

    def append(self, rows: list[dict[str, Any]]) -> None:
        """Add ``rows``; a column they bring that the file lacks (a resume given other references) is added to it.
        The file is rewritten atomically (it is small): a kill or a full disk never leaves half a row."""
        fields, old = self._read()
        self._write(list(dict.fromkeys([*fields, *(key for row in rows for key in row)])), [*old, *rows])


def tensorboard_writer(run_dir: Path, step: int) -> TensorBoardWriter:
    """A TensorBoard writer into ``run_dir/tb`` that drops the events a stopped run logged after ``step`` (its last
    checkpoint; 0 for a new run)."""
    from torch.utils.tensorboard import SummaryWriter  # torch: only when a trainer runs

    folder = run_dir / TENSORBOARD_DIR
    quiet_writer_threads()
    return TensorBoardWriter(SummaryWriter(str(folder), purge_step=step + 1), folder)


class TensorBoardWriter:
    """A SummaryWriter whose write errors (a full disk) name its folder, so that the trainer's one line says which
    files could not be written; every other attribute is the writer's."""

    def __init__(self, writer: Any, folder: Path) -> None:
        self._writer = writer
        self._folder = folder

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._writer, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return attribute(*args, **kwargs)
            except OSError as error:
                raise OSError(error.errno, error.strerror or str(error), f"{self._folder} (TensorBoard)") from None

        return call


#: The class of TensorBoard's background writing thread (tensorboard.summary.writer.event_file_writer).
WRITER_THREAD = "_AsyncWriterThread"


def quiet_writer_threads() -> None:
    """TensorBoard writes events in a thread of its own: a write that fails there (a full disk) would print the
    thread's traceback, although the writer raises the same error at its next call, where :class:`TensorBoardWriter`
    names the folder and the trainer says it in one line. Keep those tracebacks quiet; any other thread's error
    reaches the hook it had."""
    previous = threading.excepthook
    if getattr(previous, "quiets_writer_threads", False):
        return

    def hook(args: threading.ExceptHookArgs) -> None:
        if type(args.thread).__name__ == WRITER_THREAD and issubclass(args.exc_type, OSError):
            return
        previous(args)

    hook.quiets_writer_threads = True  # type: ignore[attr-defined]
    threading.excepthook = hook


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
