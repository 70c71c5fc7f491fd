"""What every route of one app shares: its limits, its live games, its worker processes and the thinks waiting for
them (:class:`Server`, kept in ``app.state.server`` and handed to the routes by :func:`current_server`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request

from awale_apps.web import thinker
from awale_apps.web.errors import ApiError
from awale_apps.web.live import GameStore, LiveGame
from awale_apps.web.opponents import THINK_GRACE_SECONDS, Thinkers

MAX_BODY_BYTES = 4096
MAX_SPEC_CHARS = 200
MAX_PLIES_ALLOWED = 1000


@dataclass
class Server:
    """One app's settings and state: ``presets`` are the opponent specs offered on the page (the operator's first),
    ``trusted`` the specs that may use ``path=``; at most ``max_queue`` requests (``max_client_queue`` of one client)
    wait for an agent or are being answered by one at once; each worker keeps at most ``max_memory_bytes`` of search
    memory (trees, tables) for the agents of its games."""

    max_games: int
    max_think_seconds: float
    presets: list[str]
    trusted: set[str]
    thinkers: Thinkers
    max_queue: int
    max_client_queue: int
    max_memory_bytes: int
    store: GameStore = field(init=False)
    #: The requests of each client (by address) holding a place in the queue, and their total.
    queued: Counter[str] = field(init=False, default_factory=Counter)

    def __post_init__(self) -> None:
        self.store = GameStore(self.max_games)

    def retry_after(self, thinks: int) -> dict[str, str]:
        """The ``Retry-After`` header of a refusal: about the seconds ``thinks`` agent moves take on the workers."""
        seconds = math.ceil(self.max_think_seconds * thinks / self.thinkers.count)
        return {"Retry-After": str(max(1, seconds))}

    @contextmanager
    def queue_place(self, client: str) -> Iterator[None]:
        """Hold a place in the queue of requests that need an agent, for ``client``'s request; refused at once when
        full: 429 if the client already holds ``max_client_queue`` places, 503 if all ``max_queue`` are taken (both
        with ``Retry-After``), so that no client can occupy the workers and no request waits without end."""
        total = self.queued.total()
        if self.queued[client] >= self.max_client_queue:
            raise ApiError(
                429,
                f"too many requests waiting for an agent: you have {self.queued[client]} (this server's limit per "
                f"client is {self.max_client_queue}); retry when one is answered",
                self.retry_after(self.queued[client]),
            )
        if total >= self.max_queue:
            raise ApiError(
                503,
                f"the server is busy: {total} requests are waiting for an agent (its limit is {self.max_queue}); "
                "retry later",
                self.retry_after(total),
            )
        self.queued[client] += 1
        try:
            yield
        finally:
            self.queued[client] -= 1
            if not self.queued[client]:
                del self.queued[client]

    async def agent_moves(self, game: LiveGame, states: list[Any]) -> tuple[list[int], list[float]]:
        """The agent's moves from ``states[-1]`` until the person is to move or the game ends (appended to
        ``states``), checked by the engine; ApiError 503 if the agent fails."""
        moves, seconds = [], []
        while not states[-1].is_terminal and states[-1].to_move != game.human:
            try:
                action, took = await self.thinkers.run(
                    game.worker, self.max_think_seconds + THINK_GRACE_SECONDS, thinker.think,
                    game.id, game.opponent, game.seed, self.max_think_seconds, self.agent_limits(),
                    states[-1].to_dict(),
                )  # fmt: skip
                states.append(states[-1].play(action))
            except Exception as error:  # a crashed or stuck worker, an agent's bug or an illegal move from it
                raise ApiError(503, f"the opponent {game.opponent_name} failed: {error}; nothing was played") from None
            moves.append(action)
            seconds.append(took)
        return moves, seconds

    def agent_limits(self) -> thinker.AgentLimits:
        """What a worker may keep of its games' agents."""
        return thinker.AgentLimits(self.max_games, self.max_memory_bytes)

    def forget(self, game: LiveGame) -> None:
        """Drop the agent of a game that is gone from the store."""
        self.thinkers.forget(game.worker, game.id)


def client_of(request: Request) -> str:
    """Who sent ``request``, for the per-client limit of the queue: its address."""
    return request.client.host if request.client is not None else "unknown"


def current_server(request: Request) -> Server:
    """The :class:`Server` of the app answering ``request`` (a FastAPI dependency)."""
    return request.app.state.server
