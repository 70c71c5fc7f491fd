"""A Ctrl-C that a run never loses. Python raises KeyboardInterrupt wherever the main thread is when SIGINT arrives;
inside a ctypes callback (llvmlite's, while numba writes its compile cache) the exception is printed and dropped,
and the run would go on for hours. While :func:`caught` is active, SIGINT is also remembered, the dropped exception
is not printed (the run prints its one line when it stops), and :func:`raise_if_dropped`, called at every step of a
trainer's loop, raises it again. :func:`interrupted` tells an error that Ctrl-C caused from a bug, for the one line
a command prints when it stops. SIGTERM (``kill``, a scheduler or ``docker stop`` ending a job) stops a run the
same way, as :class:`Terminated`: the run's ``finally`` blocks end its worker processes, and its exit code is 143.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

#: the handler each signal has while Python's own is in place: only those are taken over
PYTHON_DEFAULTS = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}


class Terminated(KeyboardInterrupt):
    """SIGTERM: a request to end the run, stopping it as Ctrl-C does."""


_requested: type[KeyboardInterrupt] | None = None


def _quiet_on_ctrl_c(previous: Callable[[Any], object]) -> Callable[[Any], None]:
    """An unraisable-exception hook that passes on all but a dropped KeyboardInterrupt (raised again later)."""

    def hook(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous(unraisable)

    return hook


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _requested
    _requested = Terminated if signum == signal.SIGTERM else KeyboardInterrupt
    raise _requested


@contextlib.contextmanager
def caught() -> Iterator[None]:
    """Remember SIGINT and SIGTERM while the block runs: from the main thread (elsewhere Python delivers no signal),
    each while it has Python's own handler (one ignored, as SIGINT in a job started with ``&`` by a script, or a
    caller's own handler is left as it is)."""
    global _requested
    taken = [number for number, default in PYTHON_DEFAULTS.items() if signal.getsignal(number) is default]
    if threading.current_thread() is not threading.main_thread() or not taken:
        yield
        return
    previous = {number: signal.signal(number, _on_signal) for number in taken}
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _quiet_on_ctrl_c(previous_hook)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        sys.unraisablehook = previous_hook
        _requested = None


def _interruption(error: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt behind ``error`` (itself, or its cause or context; a context hidden by ``raise ... from
    None`` is not followed), None if none is."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return seen
        seen = seen.__cause__ or (None if seen.__suppress_context__ else seen.__context__)
    return None


def interrupted(error: BaseException) -> bool:
    """Whether ``error`` is Ctrl-C or SIGTERM, or was raised while one stopped something (numba turns a
    KeyboardInterrupt during a compilation into a RuntimeError)."""
    return _interruption(error) is not None


def exit_code(error: BaseException) -> int:
    """The exit code of a command that ``error`` (:func:`interrupted`) stopped: 128 + the signal's number, as a shell
    reports it (143 for SIGTERM, 130 for Ctrl-C)."""
    signal_number = signal.SIGTERM if isinstance(_interruption(error), Terminated) else signal.SIGINT
    return 128 + signal_number


def raise_if_dropped() -> None:
    """Raise the interruption again if SIGINT or SIGTERM arrived inside :func:`caught` (its first raise may have
    been dropped)."""
    if _requested is not None:
        raise _requested
