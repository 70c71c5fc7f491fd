"""What the analysis board's routes share (:class:`AnalysisBoard`, kept in ``app.state.board``): the sources of
replays, the reviews, and the analyses under way per page, where a newer request supersedes an older one.

Analyses and reviews think in the agents' workers under the server's limits (:class:`~awale_apps.web.server.Server`:
the think-time cap, the queue and each client's share of it); the engines a client may ask for are alpha-beta and
AlphaZero (:data:`agents.analysis.ENGINES`) with the same parameter limits as opponents.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterable
from typing import Any

from fastapi import Request

from agents import AgentSpecError, parse_spec
from agents.analysis import ENGINES
from awale_apps.web import analyst
from awale_apps.web.errors import ApiError
from awale_apps.web.opponents import THINK_GRACE_SECONDS, AgentUnavailable, check_spec
from awale_apps.web.replays import GameSource, Library, SourceFeed
from awale_apps.web.reviews import ReviewStore
from awale_apps.web.server import Server
from awale_env.games import get_game

#: The engine of an analysis unless the request names one, and the engines the page offers.
DEFAULT_ENGINE = "alphabeta:time=0.5"
ENGINE_PRESETS = ("alphabeta:time=0.5", "alphabeta:time=2", "alphabeta:depth=8", "alphabeta:depth=12",
                  "alphazero:pretrained")  # fmt: skip


def check_engine(spec: str, server: Server) -> str:
    """The analysis engine ``spec`` as the worker builds it; ApiError 400 for an agent that is no analysis engine
    or asks for more than the server allows."""
    try:
        name, _ = parse_spec(spec)
        if name not in ENGINES:
            raise AgentSpecError(f"{name} reports no evaluation; the analysis engines are {', '.join(ENGINES)}")
        return check_spec(spec, server.max_think_seconds, trusted=spec.strip() in server.trusted)
    except AgentSpecError as error:
        raise ApiError(400, f"bad engine spec: {error}") from None


def parse_state(data: dict[str, Any]) -> Any:
    """The State of a ``State.to_dict()`` of any game the page plays; ApiError 400 naming what is wrong."""
    from awale_apps.web.live import web_games

    games = web_games()
    name = data.get("game")
    if name not in games:
        raise ApiError(400, f"bad state: 'game' must name one of {', '.join(games)}, got {name!r}")
    try:
        return get_game(name).state_type.from_dict(data)
    except (ValueError, TypeError, KeyError) as error:
        raise ApiError(400, f"bad state: {error}") from None


class AnalysisBoard:
    """The analysis board's shared state: ``library`` (the sources of replays), ``reviews``, and per (client,
    channel) the number of the latest analysis asked for and a lock that lets one run at a time."""

    def __init__(self, sources: Iterable[GameSource], max_reviews: int, feeds: Iterable[SourceFeed] = ()) -> None:
        self.library = Library(sources, feeds)
        self.reviews = ReviewStore(max_reviews)
        self._numbers = itertools.count()
        self._latest: dict[tuple[str, str], int] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    async def analyse(self, server: Server, client: str, channel: str, spec: str, state: Any, plies: int
                      ) -> dict[str, Any]:  # fmt: skip
        """The analysis of ``state`` by ``spec`` in a worker. Analyses of one (client, channel) run one at a time,
        and one that a newer request of the same channel superseded while it waited is dropped with 409 before it
        reaches a worker; the running one holds a place in the queue (429/503 at once when there is none)."""
        key = (client, channel)
        number = next(self._numbers)
        self._latest[key] = number
        lock = self._locks.setdefault(key, asyncio.Lock())
        try:
            async with lock:
                if self._latest.get(key) != number:
                    raise ApiError(409, "superseded: a newer analysis was asked for on this board")
                with server.queue_place(client):
                    return await run_analysis(server, spec, state, plies)
        finally:
            if self._latest.get(key) == number and not lock.locked():
                del self._latest[key], self._locks[key]


async def run_analysis(server: Server, spec: str, state: Any, plies: int, worker: int | None = None
                       ) -> dict[str, Any]:  # fmt: skip
    """:func:`analyst.analyse_position` in a worker; ApiError 400 for an engine that cannot analyse the game, 503 for
    a worker that failed."""
    worker = server.thinkers.assign() if worker is None else worker
    try:
        return await server.thinkers.run(
            worker, server.max_think_seconds + THINK_GRACE_SECONDS, analyst.analyse_position,
            spec, server.max_think_seconds, state.to_dict(), plies,
        )  # fmt: skip
    except (AgentSpecError, ValueError) as error:
        raise ApiError(400, f"the engine {spec!r} cannot analyse this position: {error}") from None
    except AgentUnavailable as error:
        raise ApiError(503, str(error)) from None


def current_board(request: Request) -> AnalysisBoard:
    """The :class:`AnalysisBoard` of the app answering ``request`` (a FastAPI dependency)."""
    return request.app.state.board
