"""The ``awale`` command's entry point: ``awale bot`` runs through its own argparse parser
(:mod:`awale_apps.bot_command`), so that a fresh bot process answers its first line before any command-line
framework (and numpy, numba, torch) loads; every other subcommand goes to the typer app of :mod:`awale_apps.cli`."""

from __future__ import annotations

import sys

from competition.fast_exit import skip_final_collections


def main() -> None:
    """Entry point of the ``awale`` console script and of ``python -m awale_apps``."""
    skip_final_collections()
    if sys.argv[1:2] != ["bot"]:
        from awale_apps.cli import main as cli_main

        cli_main()
        return
    from awale_apps.bot_command import main as bot_main

    bot_main(sys.argv[2:])
