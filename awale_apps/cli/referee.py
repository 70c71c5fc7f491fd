"""``awale referee``: games between two player programs through the course referee's protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from awale_apps.cli.common import (
    GameName,
    MaxPlies,
    RuleFlags,
    game_options,
    open_writable_store,
    writable_file,
)


def referee(
    program1: Annotated[str, typer.Argument(help='command of program 1, quoted: "awale bot --game GAME"')],
    program2: Annotated[str, typer.Argument(help="command of program 2 (each gets its seat as last argument)")],
    game: GameName = None,
    rule: RuleFlags = None,
    games: Annotated[int, typer.Option(help="games; the seats alternate, program 1 is JoueurA in odd games")] = 2,
    seconds: Annotated[
        float, typer.Option("--time", help="seconds per answer, 3 as in the course's referee: a late answer loses")
    ] = 3.0,
    startup: Annotated[
        float, typer.Option(help="seconds added to a program's first answer in a game, for its start-up")
    ] = 10.0,
    max_plies: MaxPlies = None,
    numeric_seats: Annotated[bool, typer.Option(help="give the seats as 1 and 2, not JoueurA and JoueurB")] = False,
    out: Annotated[
        Path | None, typer.Option(help="write the results as JSON to this file (rewritten as each game ends)")
    ] = None,
    db: Annotated[
        Path | None, typer.Option(help="also keep every game in this SQLite results store (docs/tournament.md)")
    ] = None,
) -> None:
    """Games between two player programs through the course referee's protocol, every move checked and timed."""
    from awale_apps.referee import Match, run_match

    rules, options, limit = game_options(game, rule, max_plies)
    if out is not None:
        writable_file(out)
    seat_style = "numbers" if numeric_seats else "names"
    match = Match((program1, program2), rules, options, limit, games, seconds, startup, seat_style)
    with open_writable_store(db) as store:
        run_match(match, out, typer.echo, store)
