"""``awale serve``: a local web page to play against any agent, and the JSON API behind it (docs/web.md)."""

from __future__ import annotations

from collections.abc import Iterable

from awale_env.web.app import DEFAULT_MAX_GAMES, DEFAULT_MAX_THINK_SECONDS, create_app

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

    app = create_app(max_games=max_games, max_think_seconds=max_think_seconds, presets=presets, workers=workers)
    # limit_concurrency bounds the connections served at once; the rest get 503 rather than queueing without end.
    uvicorn.run(app, host=host, port=port, limit_concurrency=64, timeout_keep_alive=5)
