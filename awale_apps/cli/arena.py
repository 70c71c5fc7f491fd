"""``awale arena``: round robins of agents with Elo ratings."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Annotated

import typer

from awale_apps.cli.common import (
    Address,
    Backend,
    GameName,
    MaxPlies,
    RuleFlags,
    RuntimeEnv,
    build_agent,
    check_backend,
    fail,
    game_options,
    one_line,
    ray_session,
    writable_directory,
    write_arena_results,
)


def arena(
    agents: Annotated[list[str], typer.Option("--agents", help="agent specs, at least 2: --agents a b c")],
    games: Annotated[int, typer.Option(help="games per pair of agents (even: each opening from both seats)")] = 20,
    seed: Annotated[int, typer.Option(help="tournament seed (openings and agent seeds)")] = 0,
    workers: Annotated[int, typer.Option(help="parallel processes")] = 1,
    opening_plies: Annotated[int, typer.Option(help="random plies opening each mirrored pair of games")] = 4,
    max_plies: MaxPlies = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="write games.jsonl (each game as it ends), then results.json, standings.csv, games.csv, elo.png"
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            help="play only the games missing from --out DIR/games.jsonl (a stopped tournament; a larger --games adds "
            "games to each pair)"
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the table as JSON on the last line")] = False,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
    game: GameName = None,
    rule: RuleFlags = None,
    backend: Backend = "process",
    address: Address = None,
    db: Annotated[
        Path | None, typer.Option(help="also keep every game in this SQLite results store (docs/tournament.md)")
    ] = None,
    runtime_env: RuntimeEnv = None,
) -> None:
    """Round robin between agents: a win/draw/loss table and Elo ratings with 95 % confidence intervals."""
    from competition.arena import JOURNAL_NAME, ArenaError, JournalWarning, format_table, round_robin
    from competition.store import StoreBusy, StoreError

    rules, options, limit = game_options(game, rule, max_plies)
    for spec in agents:
        build_agent(spec)
    if workers < 1:
        fail(f"--workers must be >= 1, got {workers}")
    check_backend(backend, runtime_env)
    if resume and out is None:
        fail(f"--resume continues the tournament recorded in --out DIR ({JOURNAL_NAME}): give its --out")
    if out is not None:
        writable_directory(out)
    # a journal's cut last line: one line on stderr, as the tournament starts
    with ray_session(backend, address, runtime_env), warnings.catch_warnings():
        warnings.simplefilter("always", JournalWarning)
        warnings.showwarning = lambda message, *_: typer.echo(f"warning: {one_line(str(message))}", err=True)
        journal = None if out is None else out / JOURNAL_NAME
        try:
            result = round_robin(agents, games, seed, workers, opening_plies, limit, progress, game=rules.name,
                                 backend=backend, address=address, journal=journal, resume=resume, db=db,
                                 **options)  # fmt: skip
        except (ArenaError, StoreError, StoreBusy) as error:
            fail(str(error), code=1)
    typer.echo(format_table(result))
    if out is not None:
        for path in write_arena_results(result, out):
            typer.echo(f"wrote {path}")
    if as_json:
        typer.echo(json.dumps(result.table()))
