"""The ``awale`` command run in the test's own process (typer's CliRunner), for tests whose point is what a command
does or prints rather than the program: no interpreter, numba, torch or typer loaded again for each case. Tests of
what only a real process shows (signals, timeouts, the console script, the referee's programs) start ``awale``."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

from click.testing import Result
from typer.testing import CliRunner

from awale_apps.cli import app, expand_list_options


def awale(*args: str, cwd: Path | None = None, **invoke: Any) -> Result:
    """``awale ARGS`` as the console script parses them (``--agents a b``), from ``cwd`` if given; ``invoke`` goes to
    :meth:`CliRunner.invoke` (``input``, ``env``). ``result.stderr`` is the command's standard error alone."""
    with contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext():
        return CliRunner().invoke(app, expand_list_options(list(args)), **invoke)


def play_verdict(output: str, seat: int, opponent: str) -> str:
    """The line ``awale play`` must end with for the player at ``seat`` against ``opponent`` (its agent name), read
    from the final board's own status (``game over (<reason>): player N wins``, or ``draw``): a check of the command's
    verdict that does not take it from the command."""
    outcome = re.findall(r"game over \([a-z_]+\): (draw|player [01] wins)", output)[-1]
    if outcome == "draw":
        return "draw"
    return "you win" if outcome == f"player {seat} wins" else f"{opponent} wins"
