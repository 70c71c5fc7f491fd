"""A Ctrl-C that a run never loses. Python raises KeyboardInterrupt wherever the main thread is when SIGINT arrives;
inside a ctypes callback (llvmlite's, while numba writes its compile cache) the exception is printed and dropped,
and the run would go on for hours. While :func:`caught` is active, SIGINT is also remembered, the dropped exception
is not printed (the run prints its one line when it stops), and :func:`raise_if_dropped`, called at every step of a
trainer's loop, raises it again. :func:`interrupted` tells an error that Ctrl-C caused from a bug, for the one line
a command prints when it stops.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

_requested = False


def _quiet_on_ctrl_c(previous: Callable[[Any], object]) -> Callable[[Any], None]:
    """An unraisable-exception hook that passes on all but a dropped KeyboardInterrupt (raised again later)."""

    def hook(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous(unraisable)

    return hook


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    global _requested
    _requested = True
    raise KeyboardInterrupt


@contextlib.contextmanager
def caught() -> Iterator[None]:
    """Remember SIGINT while the block runs: from the main thread (elsewhere Python delivers no signal) and when
    SIGINT has Python's own handler (one ignored, as in a job started with ``&`` by a script, or a caller's own handler
    is left as it is)."""
    global _requested
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    previous, previous_hook = signal.signal(signal.SIGINT, _on_sigint), sys.unraisablehook
    sys.unraisablehook = _quiet_on_ctrl_c(previous_hook)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = previous_hook
        _requested = False


def interrupted(error: BaseException) -> bool:
    """Whether ``error`` is Ctrl-C, or was raised while Ctrl-C stopped something (numba turns a KeyboardInterrupt
    during a compilation into a RuntimeError); a context hidden by ``raise ... from None`` is not followed."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or (None if seen.__suppress_context__ else seen.__context__)
    return False


def raise_if_dropped() -> None:
    """Raise KeyboardInterrupt if SIGINT arrived inside :func:`caught` (its first raise may have been dropped)."""
    if _requested:
        raise KeyboardInterrupt
