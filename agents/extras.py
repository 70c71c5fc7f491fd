"""The optional extras of the package: an import that needs one fails with a message saying what to install.

``pip install awale_env`` leaves out Ray (the ``rllib`` extra); the modules that need it import it inside
:func:`needs_extra`, so that the ``awale`` command ends with one line (``... needs Ray: pip install
"awale_env[rllib]"``) instead of a traceback, and the Python API raises :class:`MissingExtraError` with that message;
a module run as a script (``python -m training.rllib.trainer``) ends with that line too (:func:`script_needs_extra`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

#: What each extra brings that a module may miss: the top-level package and its name for people.
EXTRA_PACKAGES = {"rllib": ("ray", "Ray")}


class MissingExtraError(ModuleNotFoundError):
    """A package of an optional extra is not installed; the message names what needs it and the pip command."""


@contextmanager
def needs_extra(feature: str, extra: str = "rllib") -> Iterator[None]:
    """Turn the ModuleNotFoundError of the extra's package, raised by the imports inside, into a
    :class:`MissingExtraError` saying that ``feature`` needs the extra; a missing module of anything else (a broken
    installation of the package itself) keeps its own error."""
    package, label = EXTRA_PACKAGES[extra]
    try:
        yield
    except MissingExtraError:
        raise
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != package:
            raise
        message = f'{feature} needs {label}: pip install "awale_env[{extra}]"'
        raise MissingExtraError(message, name=error.name) from error


@contextmanager
def script_needs_extra(module: str) -> Iterator[None]:
    """Around the imports of a module that needs an extra: run as a script (``module`` is ``"__main__"``), a missing
    extra ends it with the one line of :class:`MissingExtraError` (exit code 1, as the ``awale`` command); imported,
    the error is raised as it is."""
    try:
        yield
    except MissingExtraError as error:
        if module != "__main__":
            raise
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(1) from None
