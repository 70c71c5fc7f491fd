"""What a run writes as it goes, for every trainer: its CSV logs (:class:`CsvLog`) and its TensorBoard events
(:func:`tensorboard_writer`); its progress on the terminal or in a log is :mod:`competition.progress`'s. The run
directories themselves, their options and the trainers' command line are :mod:`training.runs`'.
"""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agents.checkpoint import atomic_write

TENSORBOARD_DIR = "tb"


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
