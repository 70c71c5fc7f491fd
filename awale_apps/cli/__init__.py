"""The ``awale`` command: ``awale demo`` (a short self-play training, then an arena), ``awale play`` (a human
against an agent in the terminal), ``awale arena`` (round robins with Elo), ``awale train ppo|alphazero|imitation``,
``awale serve`` (the web page), ``awale bot`` and ``awale referee`` (the course referee's protocol). ``play``,
``arena``, ``demo``, ``bot`` and ``referee`` take ``--game`` (any game of :data:`awale_env.games.GAMES`), all but
``demo`` the game's rule flags (``--rule name=value``). A typer app, one module per command (Typer's one file per
command: ``play``, ``arena``, ``tournament``, ``referee``, ``train``, ``demo``, ``serve``, ``bot``; what they share
in :mod:`awale_apps.cli.common`); each only parses its options and calls library code; ``python -m awale_apps``
runs it too.

Every expected failure ends a command with one line ``error: ...`` on stderr, never a traceback: bad input (a
``ValueError``: the library's ``AgentSpecError``, ``CheckpointError``, ``RecordError`` ... are ValueErrors) with exit
code 2, a file that cannot be read or written (``OSError``: a full disk, a path under a regular file) or a command that
needs an optional extra not installed (:class:`agents.extras.MissingExtraError`: what to pip install) with exit code
1, Ctrl-C with exit code 130 and SIGTERM with 143 (the command's worker processes ended first).
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from typing import Annotated, Any

import click
import typer
from typer.core import TyperGroup

from awale_apps import check_packages
from awale_apps.cli import arena, bot, demo, play, referee, serve, tournament, train
from awale_apps.cli.common import HELP_MARKUP, GameHelp, describe_os_error, one_line
from competition import interrupts


def failure(error: BaseException) -> tuple[int, str] | None:
    """The exit code and the line on stderr of an expected failure (see the module docstring), None for others."""
    if isinstance(error, (click.exceptions.Exit, click.ClickException, click.exceptions.Abort)):
        return None  # typer's own way out: a usage error, --help, an explicit exit
    if interrupts.interrupted(error):
        return interrupts.exit_code(error), "\ninterrupted"
    if isinstance(error, ValueError):
        return 2, "error: " + one_line(str(error))
    if isinstance(error, ModuleNotFoundError):
        from agents.extras import MissingExtraError  # only now: the error is there, the import is cheap

        if isinstance(error, MissingExtraError):
            return 1, "error: " + one_line(str(error))
    if isinstance(error, OSError):
        return 1, "error: " + one_line(describe_os_error(error))
    return None


class OneLineErrors(TyperGroup):
    """The command group that ends any subcommand's expected failure with one line on stderr (:func:`failure`);
    anything else is a bug and keeps its traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with interrupts.caught():  # SIGTERM too unwinds the command, which ends its worker processes
                return super().invoke(ctx)
        except (Exception, KeyboardInterrupt) as error:
            ending = failure(error)
            if ending is None:
                raise
            typer.echo(ending[1], err=True)
            raise typer.Exit(ending[0]) from None


def show_version(value: bool) -> None:
    if value:
        typer.echo(f"awale {version('awale_env')}")
        raise typer.Exit()


app = typer.Typer(
    cls=OneLineErrors,
    help="Mancala games: train agents, play against them, run tournaments (the help of a command that plays a game "
    "lists the games: awale play --help).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=HELP_MARKUP,
)


@app.callback()
def options(
    show: Annotated[
        bool, typer.Option("--version", callback=show_version, is_eager=True, help="print the version and exit")
    ] = False,
) -> None:
    """The options of ``awale`` itself (``--version``), before a subcommand."""


for command in (play.play, arena.arena):
    app.command(cls=GameHelp)(command)
app.add_typer(tournament.app, name="tournament")
app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True}, add_help_option=False)(bot.bot)
for command in (referee.referee, demo.demo):
    app.command(cls=GameHelp)(command)
app.command()(serve.serve)
app.add_typer(train.app, name="train")


# Options that take several values after one flag (``--agents a b c``), which click cannot parse by itself.
LIST_OPTIONS = ("--agents",)


def expand_list_options(args: list[str]) -> list[str]:
    """Rewrite ``--agents a b c`` as ``--agents a --agents b --agents c`` (values run up to the next ``-`` word)."""
    expanded, current = [], None
    for arg in args:
        if arg.startswith("-"):
            current = arg if arg in LIST_OPTIONS else None
            expanded.append(arg)
        elif current is not None and expanded[-1] != current:
            expanded += [current, arg]
        else:
            expanded.append(arg)
    return expanded


def main() -> None:
    """Entry point of the ``awale`` console script."""
    try:
        check_packages()
    except ImportError as error:
        typer.echo("error: " + one_line(str(error)), err=True)
        raise SystemExit(1) from None
    app(args=expand_list_options(sys.argv[1:]), prog_name="awale")
