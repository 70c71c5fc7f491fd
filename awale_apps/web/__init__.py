"""``awale serve``: a local web page to play against any agent, and the JSON API behind it (docs/web.md)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from awale_apps import check_packages
from awale_apps.web.defaults import (
    DEFAULT_MAX_CLIENT_QUEUE,
    DEFAULT_MAX_GAMES,
    DEFAULT_MAX_MEMORY_MB,
    DEFAULT_MAX_QUEUE,
    DEFAULT_MAX_THINK_SECONDS,
)

if TYPE_CHECKING:
    from pathlib import Path

    from awale_apps.web.app import create_app

LOOPBACK_HOSTS = ("127.0.0.1", "localhost")

__all__ = [
    "DEFAULT_MAX_CLIENT_QUEUE",
    "DEFAULT_MAX_GAMES",
    "DEFAULT_MAX_MEMORY_MB",
    "DEFAULT_MAX_QUEUE",
    "DEFAULT_MAX_THINK_SECONDS",
    "create_app",
    "serve",
]


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    max_games: int = DEFAULT_MAX_GAMES,
    max_think_seconds: float = DEFAULT_MAX_THINK_SECONDS,
    presets: Iterable[str] = (),
    workers: int = 1,
    max_queue: int = DEFAULT_MAX_QUEUE,
    max_client_queue: int = DEFAULT_MAX_CLIENT_QUEUE,
    max_memory_mb: float = DEFAULT_MAX_MEMORY_MB,
    records: Iterable[str] = (),
    db: str | Path | None = None,
) -> None:
    """Run the app with uvicorn until interrupted (Ctrl-C: KeyboardInterrupt once it has shut down, the workers
    stopped); loopback only unless ``host`` says otherwise; ``records`` and ``db`` as :func:`create_app`'s."""
    import uvicorn

    check_packages()
    from awale_apps.web.app import create_app

    # On loopback, answer only requests addressed to loopback names: a web page elsewhere cannot drive the server
    # through DNS rebinding. Bound to another address, the server answers any Host.
    hosts = LOOPBACK_HOSTS if host in LOOPBACK_HOSTS else None
    app = create_app(
        max_games, max_think_seconds, presets, workers, hosts, max_queue, max_client_queue, max_memory_mb, records, db
    )
    # Connections bounded in number, per client and in time (awale_apps.web.server.uvicorn_config). On Ctrl-C, uvicorn's
    # Server (not uvicorn.run, which swallows it) raises the signal again once shut down: KeyboardInterrupt here.
    from awale_apps.web.server import uvicorn_config

    uvicorn.Server(uvicorn_config(app, host, port, max_think_seconds)).run()


def __getattr__(name: str) -> Any:
    if name == "create_app":  # loaded on first use: the app imports FastAPI and the agents
        check_packages()
        from awale_apps.web.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
