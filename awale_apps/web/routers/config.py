"""``/api/config``: what the page offers (every game of the registry with its page data, the opponent presets, the
agents and their parameters) and the server's limits."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from agents import AGENTS
from agents.analysis import SEED_SCALE, THRESHOLDS
from awale_apps.web.board import DEFAULT_ENGINE, ENGINE_PRESETS
from awale_apps.web.live import web_games
from awale_apps.web.reviews import DEFAULT_REVIEW_ENGINE
from awale_apps.web.server import MAX_BODY_BYTES, MAX_PLIES_ALLOWED, Server, current_server
from awale_env.games import DEFAULT_GAME

router = APIRouter(prefix="/api")


@router.get("/config")
async def config(server: Annotated[Server, Depends(current_server)]) -> dict[str, Any]:
    """What the page offers: games (each with its page data, ``Game.page()``), opponent presets, the agents and their
    parameters, the analysis board's engines and review thresholds, the server's limits."""
    return {
        "games": [
            {
                "id": name,
                "rule_options": game.rule_options,
                "default_max_plies": game.default_max_plies,
                **game.page(),
            }
            for name, game in web_games().items()
        ],
        "default_game": DEFAULT_GAME,
        "analysis": {
            "engines": [*ENGINE_PRESETS, *(spec for spec in server.presets if spec.startswith("alphazero:path="))],
            "default_engine": DEFAULT_ENGINE,
            "review_engine": DEFAULT_REVIEW_ENGINE,
            "thresholds": dict(THRESHOLDS),
            "seed_scale": SEED_SCALE,
        },
        "presets": server.presets,
        "agents": {
            name: {
                "summary": entry.summary,
                "params": {key: {"type": kind.__name__, "help": text} for key, (kind, text) in entry.params.items()},
            }
            for name, entry in AGENTS.items()
        },
        "limits": {
            "max_games": server.max_games,
            "max_think_seconds": server.max_think_seconds,
            "max_body_bytes": MAX_BODY_BYTES,
            "max_plies": MAX_PLIES_ALLOWED,
            "max_queue": server.max_queue,
            "max_client_queue": server.max_client_queue,
            "max_memory_mb": server.max_memory_bytes / 2**20,
        },
    }
