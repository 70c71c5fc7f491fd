"""``awale serve``: a local web page to play against any agent, and the JSON API behind it (docs/web.md)."""

from __future__ import annotations

from collections.abc import Iterable

from awale_env.web.app import DEFAULT_MAX_GAMES, DEFAULT_MAX_THINK_SECONDS, create_app

LOOPBACK_HOSTS = ("127.0.0.1", "localhost")

__all__ = ["DEFAULT_MAX_GAMES", "DEFAULT_MAX_THINK_SECONDS", "create_app", "serve"]


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    max_games: int = DEFAULT_MAX_GAMES,
    max_think_seconds: float = DEFAULT_MAX_THINK_SECONDS,
    presets: Iterable[str] = (),
    workers: int = 1,
) -> None:
    """Run the app with uvicorn until interrupted; loopback only unless ``host`` says otherwise."""
    import uvicorn

    # On loopback, answer only requests addressed to loopback names: a web page elsewhere cannot drive the server
    # through DNS rebinding. Bound to another address, the server answers any Host.
    hosts = LOOPBACK_HOSTS if host in LOOPBACK_HOSTS else None
    app = create_app(max_games, max_think_seconds, presets, workers, allowed_hosts=hosts)
    # limit_concurrency bounds the connections served at once; the rest get 503 rather than queueing without end.
    uvicorn.run(app, host=host, port=port, limit_concurrency=64, timeout_keep_alive=5)
