"""The web app of ``awale serve``: one page to play any game of the toolkit against any agent, and the JSON API the
page uses.

Every game goes through the game protocol (:mod:`awale_env.games`): its ``State`` API, ``format_move``,
``parse_move`` and its page data (``Game.page()``: the board's layout, seat names, the wording of results), so the
app and its page serve whatever games the registry holds. The server owns every game (its States and who played
what) and checks every move with the engine; the page only draws what the API returns and posts the moves clicked.
A move request plays the person's move and the agent's reply together, and commits both or neither, so a failed
request leaves the game as it was. Agents think in worker processes (:mod:`awale_apps.web.thinker`) under a
per-move time cap; the number of live games and the size of a request are bounded, so one client cannot exhaust the
server. The routes live in :mod:`awale_apps.web.routers`; API reference: docs/web.md.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from awale_apps.web.board import AnalysisBoard
from awale_apps.web.database_source import DatabaseEvents
from awale_apps.web.defaults import (
    DEFAULT_MAX_CLIENT_QUEUE,
    DEFAULT_MAX_GAMES,
    DEFAULT_MAX_MEMORY_MB,
    DEFAULT_MAX_QUEUE,
    DEFAULT_MAX_THINK_SECONDS,
)
from awale_apps.web.errors import ApiError
from awale_apps.web.opponents import PRESETS, Thinkers, check_spec
from awale_apps.web.replays import PageGames, RecordsFile
from awale_apps.web.routers import analysis, config, games, replays, static
from awale_apps.web.server import MAX_BODY_BYTES, SHUTDOWN_MARGIN_SECONDS, Server

#: Where the files of the API's reference page (/api/docs) are served.
DOCS_ASSETS = "/api/docs-assets"
#: The routes that take a game record, and their larger limit on a request's body.
RECORD_ROUTES = ("/api/replays", "/api/reviews", "/api/positions")
MAX_RECORD_BODY_BYTES = 64 * 1024


def validation_message(error: RequestValidationError) -> str:
    """One line naming each bad field, what was wrong and what is allowed."""
    parts = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"] if part != "body")
        message = str(item["msg"]).removeprefix("Value error, ")
        if item["type"] == "json_invalid":
            parts.append(f"the request body is not valid JSON ({item.get('ctx', {}).get('error', message)})")
        elif not where:
            parts.append("the body must be a JSON object, sent with Content-Type: application/json")
        elif item["type"] == "missing":
            parts.append(f"{where}: required")
        elif item["type"] == "extra_forbidden":
            parts.append(f"unknown field {where!r}")
        else:
            parts.append(f"{where}: {message} (got {item.get('input')!r})")
    return "bad request: " + "; ".join(parts)


class BodyLimit:
    """Refuse request bodies over ``max_bytes`` (``larger[path]`` for the paths it names) with 413, whether
    announced by Content-Length or streamed.

    The body is read here in full (it is small by then) and handed on to the app, so the app never sees an oversize
    request and the refusal cannot be mistaken for a malformed body.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, larger: dict[str, int] | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.larger = larger or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope["path"], self.max_bytes)
        length = dict(scope["headers"]).get(b"content-length", b"0")
        body, more = b"", True
        if length.isdigit() and int(length) <= limit:
            while more:
                message = await receive()
                if message["type"] != "http.request":  # the client went away
                    return
                body += message.get("body", b"")
                more = message.get("more_body", False)
                if len(body) > limit:
                    break
        if more or len(body) > limit:
            message = f"request body over the limit of {limit} bytes"
            await JSONResponse({"error": message}, status_code=413)(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def host_check(hosts: set[str]) -> Callable[[Request, Callable[[Request], Any]], Any]:
    """An HTTP middleware that answers only requests whose Host header names one of ``hosts``."""

    async def check_host(request: Request, call_next: Callable[[Request], Any]) -> Response:
        host = request.headers.get("host", "").rpartition(":")[0] or request.headers.get("host", "")
        if host not in hosts:
            message = f"this server answers requests addressed to {', '.join(sorted(hosts))}, not {host!r}"
            return JSONResponse({"error": message}, status_code=400)
        return await call_next(request)

    return check_host


async def api_error(_: Request, error: ApiError) -> JSONResponse:
    return JSONResponse({"error": error.message}, status_code=error.status, headers=error.headers)


async def bad_request(_: Request, error: RequestValidationError) -> JSONResponse:
    return JSONResponse({"error": validation_message(error)}, status_code=400)


async def internal_error(_: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"error": f"internal error: {type(error).__name__}: {error}"}, status_code=500)


async def http_error(request: Request, error: HTTPException) -> JSONResponse:
    message = f"{error.detail}: {request.method} {request.url.path} (the API is described at /api/docs)"
    return JSONResponse({"error": message}, status_code=error.status_code, headers=error.headers)


def create_app(
    max_games: int = DEFAULT_MAX_GAMES,
    max_think_seconds: float = DEFAULT_MAX_THINK_SECONDS,
    presets: Iterable[str] = (),
    workers: int = 1,
    allowed_hosts: Iterable[str] | None = None,
    max_queue: int = DEFAULT_MAX_QUEUE,
    max_client_queue: int = DEFAULT_MAX_CLIENT_QUEUE,
    max_memory_mb: float = DEFAULT_MAX_MEMORY_MB,
    records: Iterable[str | Path] = (),
    db: str | Path | None = None,
) -> FastAPI:
    """The web app: the page at ``/``, the JSON API under ``/api``.

    ``presets`` are extra opponent specs offered on the page, trusted (they may use ``path=``); ``workers`` worker
    processes run the agents; ``allowed_hosts`` (if given) are the only Host headers answered, which stops other web
    sites from reaching a loopback server through DNS rebinding. At most ``max_queue`` requests (``max_client_queue``
    from one address) wait for an agent at once, the others are refused at once (503, 429); each worker keeps at most
    ``max_memory_mb`` megabytes of its agents' trees and tables. ``records`` are files of game records the
    analysis board replays (RecordError for one that cannot be read); ``db`` is a results store (``awale tournament``'s
    SQLite file) whose events' games it replays and whose standings it shows, opened read-only (StoreError for a
    missing, corrupt or foreign file); events added to it while serving are offered too. Workers are spawned, so a
    script that calls this needs the usual ``if __name__ == "__main__":`` guard.
    """
    if max_games < 1 or workers < 1 or not max_think_seconds > 0:
        raise ValueError(f"need max_games >= 1, workers >= 1, max_think_seconds > 0; got {max_games}, {workers}, "
                         f"{max_think_seconds}")  # fmt: skip
    if not 1 <= max_client_queue <= max_queue or not max_memory_mb > 0:
        raise ValueError(f"need 1 <= max_client_queue <= max_queue and max_memory_mb > 0; got {max_client_queue}, "
                         f"{max_queue}, {max_memory_mb}")  # fmt: skip
    extra = [check_spec(spec, max_think_seconds, trusted=True) for spec in presets]
    offered = list(dict.fromkeys([*extra, *PRESETS]))
    thinkers = Thinkers(workers, max_think_seconds + SHUTDOWN_MARGIN_SECONDS)  # the workers start lazily
    memory = int(max_memory_mb * 2**20)
    server = Server(max_games, max_think_seconds, offered, set(offered), thinkers, max_queue, max_client_queue, memory)
    record_sources = [RecordsFile(path, "records" if i == 0 else f"records{i + 1}") for i, path in enumerate(records)]
    db_events = [DatabaseEvents(db)] if db is not None else []
    board = AnalysisBoard([PageGames(server.store), *record_sources], max_reviews=max_games, feeds=db_events)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        server.thinkers.warm_up()
        try:
            yield
        finally:
            board.reviews.cancel_all()
            server.thinkers.shutdown()

    # Swagger UI at /api/docs from the files fastapi_offline ships, not from a CDN: the page works offline and
    # loads nothing from another host (nor does Swagger UI's online validator badge, turned off).
    app = FastAPIOffline(
        title="awale_env web",
        lifespan=lifespan,
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
        static_url=DOCS_ASSETS,
        swagger_ui_parameters={"validatorUrl": None},
    )
    app.state.server = server
    app.state.board = board
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES, larger=dict.fromkeys(RECORD_ROUTES, MAX_RECORD_BODY_BYTES))
    if allowed_hosts is not None:
        app.middleware("http")(host_check(set(allowed_hosts)))
    for handled, handler in [
        (ApiError, api_error),
        (RequestValidationError, bad_request),
        (Exception, internal_error),
        (HTTPException, http_error),
    ]:
        app.add_exception_handler(handled, handler)
    for router in (games.router, config.router, replays.router, analysis.router, static.router):
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=str(static.STATIC)), name="static")
    return app
