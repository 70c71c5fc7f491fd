"""The ``awale`` command's entry point: ``awale bot`` runs through its own small typer app, so that a fresh bot
process answers its first line before the rest of the command (and numpy, numba, torch) loads; every other
subcommand goes to :mod:`awale_apps.cli`."""

from __future__ import annotations

import sys


def main() -> None:
    """Entry point of the ``awale`` console script and of ``python -m awale_apps``."""
    if sys.argv[1:2] != ["bot"]:
        from awale_apps.cli import main as cli_main

        cli_main()
        return
    import typer

    from awale_apps.bot_command import bot

    app = typer.Typer(pretty_exceptions_enable=False, add_completion=False, rich_markup_mode=None)
    app.command()(bot)
    try:
        app(args=sys.argv[2:], prog_name="awale bot")
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        raise SystemExit(130) from None
