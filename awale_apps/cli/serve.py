"""``awale serve``: the web page, to play against any agent and analyse games."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer

from awale_apps.cli.common import build_agent, fail
from awale_apps.web.defaults import (
    DEFAULT_MAX_CLIENT_QUEUE,
    DEFAULT_MAX_GAMES,
    DEFAULT_MAX_MEMORY_MB,
    DEFAULT_MAX_QUEUE,
    DEFAULT_MAX_THINK_SECONDS,
)
from awale_env.errors import RecordError


def serve(
    host: Annotated[str, typer.Option(help="address to listen on (loopback by default: the page has no login)")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="TCP port")] = 8000,
    max_games: Annotated[
        int, typer.Option(help="live games kept; a new one evicts the longest idle")
    ] = DEFAULT_MAX_GAMES,
    max_think: Annotated[float, typer.Option(help="seconds an agent may think per move (larger time= refused)")] = (
        DEFAULT_MAX_THINK_SECONDS
    ),
    preset: Annotated[
        list[str] | None, typer.Option(help="extra opponent spec offered on the page, may use path= (repeatable)")
    ] = None,
    workers: Annotated[int, typer.Option(help="processes running the agents")] = 1,
    max_queue: Annotated[
        int, typer.Option(help="requests waiting for an agent at once; more are refused at once (503)")
    ] = DEFAULT_MAX_QUEUE,
    max_client_queue: Annotated[
        int, typer.Option(help="requests of one address waiting for an agent at once; more get 429")
    ] = DEFAULT_MAX_CLIENT_QUEUE,
    max_memory: Annotated[
        float, typer.Option(help="megabytes of search trees and tables each worker keeps for its games' agents")
    ] = DEFAULT_MAX_MEMORY_MB,
    records: Annotated[
        list[Path] | None,
        typer.Option(help="a file of game records (text or JSON lines) the analysis board replays (repeatable)"),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(help="a results store (awale tournament's SQLite file): its standings and games, to replay"),
    ] = None,
) -> None:
    """A local web page to play against any agent and analyse games, at http://HOST:PORT/ (JSON API under /api, see
    docs/web.md)."""
    from awale_apps.web import serve as run_server

    if max_games < 1 or workers < 1 or not 0 < max_think < math.inf or not 0 < port < 65536:
        fail(f"need --max-games >= 1, --workers >= 1, a finite --max-think > 0 and a port 1-65535; got {max_games}, "
              f"{workers}, {max_think}, {port}")  # fmt: skip
    if not 1 <= max_client_queue <= max_queue or not 0 < max_memory < math.inf:
        fail(f"need 1 <= --max-client-queue <= --max-queue and a finite --max-memory > 0; got {max_client_queue}, "
              f"{max_queue}, {max_memory}")  # fmt: skip
    for spec in preset or []:
        build_agent(spec)
    for path in records or []:
        _check_records(path)
    if db is not None:
        _check_store(db)
    if host not in ("127.0.0.1", "localhost"):
        typer.echo(f"warning: listening on {host}: anyone who can reach it can start games and use this CPU", err=True)
    typer.echo(f"awale: open http://{host}:{port}/ (Ctrl+C to stop)")
    run_server(host, port, max_games, max_think, preset or [], workers, max_queue, max_client_queue, max_memory,
               records or [], db)  # fmt: skip


def _check_records(path: Path) -> None:
    """Exit with one line if the records file ``path`` cannot be read or holds a bad record."""
    from awale_apps.web.replays import RecordsFile

    try:
        RecordsFile(path)
    except RecordError as error:
        fail(f"--records: {error}")


def _check_store(path: Path) -> None:
    """Exit with one line if ``path`` is not a results store holding an event (missing, corrupt, foreign, empty)."""
    from awale_apps.web.database_source import database_sources
    from competition.store import StoreError

    try:
        database_sources(path)
    except StoreError as error:
        fail(f"--db: {error}")
