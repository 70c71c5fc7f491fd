"""``awale bot`` in the command's help (:mod:`awale_apps.launch` hands ``awale bot`` to its own parser first)."""

from __future__ import annotations

import typer


def bot(arguments: typer.Context) -> None:
    """A player program for the course's referee: one game over standard input and output (awale bot --help)."""
    from awale_apps.bot_command import main as bot_main

    bot_main(arguments.args)
