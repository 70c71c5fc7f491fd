"""``awale tournament run|standings``: a round robin of course programs and agents, every move checked and every game
kept in an SQLite store, and the standings of a store. ``awale tournament PLAYERS.toml ...`` (no subcommand) runs
one, as it always did."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import click
import typer
from typer.core import TyperGroup

from awale_apps.cli.common import (
    HELP_MARKUP,
    Address,
    Backend,
    GameHelp,
    GameName,
    MaxPlies,
    RuleFlags,
    RuntimeEnv,
    check_backend,
    fail,
    game_options,
    ray_session,
)

#: The store a tournament writes and ``standings`` reads when none is given.
DEFAULT_DB = Path("tournament.db")


class RunByDefault(TyperGroup):
    """The tournament's commands, where arguments that name none of them (``awale tournament PLAYERS.toml``, the
    spelling from before the subcommands) go to ``run``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["run", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    cls=RunByDefault,
    help="Tournaments of course programs and agents: run one (awale tournament run PLAYERS.toml), read a store's "
    "standings (awale tournament standings DB).",
    no_args_is_help=True,
    rich_markup_mode=HELP_MARKUP,
)


def print_standings(path: Path, as_csv: bool, as_json: bool) -> None:
    """The standings of the last event of the store at ``path`` as a table, CSV or JSON; a missing, corrupt or
    foreign file is a one-line error."""
    from competition.store import StoreError, open_store
    from competition.tournament import standings_csv, standings_json, standings_table

    try:
        with open_store(path) as store:
            rows = store.standings(store.latest_event().id)
    except StoreError as error:
        fail(str(error), code=1)
    typer.echo(standings_csv(rows).rstrip("\n") if as_csv else standings_json(rows) if as_json else
               standings_table(rows))  # fmt: skip


AsCsv = Annotated[bool, typer.Option("--csv", help="print the standings as CSV")]
AsJson = Annotated[bool, typer.Option("--json", help="print the standings as JSON")]


@app.command(cls=GameHelp)
def run(
    players: Annotated[
        Path,
        typer.Argument(
            help="the players: [[player]] tables with a name and a command or an agent", metavar="PLAYERS.toml"
        ),
    ],  # fmt: skip
    game: GameName = None,
    rule: RuleFlags = None,
    max_plies: MaxPlies = None,
    games_per_pair: Annotated[int, typer.Option(help="games per pair of players (even: seats swapped)")] = 2,
    openings: Annotated[
        int, typer.Option(help="random plies opening each mirrored pair of games (agents only; 0: initial position)")
    ] = 0,
    seed: Annotated[int, typer.Option(help="seed of the openings and of the agents")] = 0,
    seconds: Annotated[float, typer.Option("--time", help="seconds per move: a late answer loses")] = 3.0,
    startup: Annotated[float, typer.Option(help="seconds added to a program's first answer, for its start-up")] = 3.0,
    memory: Annotated[
        int, typer.Option(help="address-space limit of each program in MiB (0: none); beyond it the program loses")
    ] = 4096,
    workers: Annotated[int, typer.Option(help="games at once (processes, or Ray actors with --backend ray)")] = 1,
    backend: Backend = "process",
    address: Address = None,
    db: Annotated[
        Path, typer.Option(help="the SQLite results store (made if missing; run again to resume)")
    ] = DEFAULT_DB,
    runtime_env: RuntimeEnv = None,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
    as_csv: AsCsv = False,
    as_json: AsJson = False,
) -> None:
    """A round robin of course programs and agents, every move checked, every game kept in an SQLite store (run it
    again to resume it); then its standings."""
    from competition.pool import ArenaError
    from competition.store import StoreBusy, StoreError, open_store
    from competition.tournament import PlayersError, TournamentSettings, load_players, log_folder, run_tournament

    rules, options, limit = game_options(game, rule, max_plies)
    if workers < 1:
        fail(f"--workers must be >= 1, got {workers}")
    check_backend(backend, runtime_env)
    try:
        entries = load_players(players, rules.name)
        settings = TournamentSettings(rules.name, tuple(sorted(options.items())), limit, games_per_pair, openings,
                                      seed, seconds, startup, memory)  # fmt: skip
        settings.check([spec for spec, _ in entries])
    except (PlayersError, ValueError) as error:
        fail(str(error))
    try:
        with ray_session(backend, address, runtime_env), open_store(db, write=True) as store:
            run_tournament(store, entries, settings, workers, backend, address, progress, log_folder(db), typer.echo)
    except (StoreError, StoreBusy, ArenaError, PlayersError) as error:  # PlayersError: a failed preparation
        fail(str(error), code=1)
    typer.echo(f"results in {db} (programs' standard error in {log_folder(db)}/)")
    print_standings(db, as_csv, as_json)


@app.command()
def standings(
    store_file: Annotated[Path | None, typer.Argument(help="the results store (default: --db)", metavar="[DB]")] = None,
    db: Annotated[Path, typer.Option(help="the results store, when no DB argument is given")] = DEFAULT_DB,
    as_csv: AsCsv = False,
    as_json: AsJson = False,
) -> None:
    """Points, W-D-L, faults by kind and Elo of the store's last event (a tournament, or an arena or referee run)."""
    print_standings(store_file or db, as_csv, as_json)
