"""What every route of one app shares: its limits, its live games, its worker processes and the thinks waiting for
them (:class:`Server`, kept in ``app.state.server`` and handed to the routes by :func:`current_server`); and how
uvicorn serves the app (:func:`uvicorn_config`): connections that do not send a whole request in time are closed, and
one client holds only so many."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import math
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import h11
from fastapi import Request
from uvicorn.protocols.http.h11_impl import H11Protocol

from agents import AGENTS, parse_spec
from awale_apps.web import thinker
from awale_apps.web.errors import ApiError
from awale_apps.web.live import GameStore, LiveGame
from awale_apps.web.opponents import THINK_GRACE_SECONDS, Thinkers

MAX_BODY_BYTES = 4096
MAX_SPEC_CHARS = 200
MAX_PLIES_ALLOWED = 1000
#: Seconds a connection has to send a whole request (headers and body), from its opening or the end of the previous
#: answer: a client that sends it byte by byte, or not at all (slowloris), is closed then and holds no place longer.
REQUEST_SECONDS = 5.0
#: Connections served at once (the rest get 503), and of them, connections one client may hold (the rest are answered
#: 429 and closed).
MAX_CONNECTIONS = 64
MAX_CLIENT_CONNECTIONS = 16


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
    def queue_place(self, client: str, thinking: bool = True) -> Iterator[None]:
        """Hold a place in the queue of requests that need an agent to think, for ``client``'s request; refused at once
        when full: 429 if the client already holds ``max_client_queue`` places, 503 if all ``max_queue`` are taken
        (both with ``Retry-After``), so that no client can occupy the workers and no request waits without end. A
        request that needs no thinking (``thinking`` false: the agent does not move, or moves without searching)
        takes no place and is never refused: its worker answers it in milliseconds, after the thinks before it."""
        if not thinking:
            yield
            return
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


#: Seconds beyond one think that a Ctrl-C gives the requests under way (a worker starting or compiling its search
#: on a loaded machine takes several seconds before it thinks).
SHUTDOWN_MARGIN_SECONDS = 10.0


def searches(spec: str) -> bool:
    """Whether the agent of ``spec`` searches (takes a time per move) and so thinks for seconds; the others (random,
    greedy, a policy network) answer in milliseconds."""
    return "time" in AGENTS[parse_spec(spec)[0]].params


def client_key(host: str) -> str:
    """Who a connection or request comes from, for the per-client limits: its address, except that every loopback
    address (127.0.0.0/8, ::1) is one client, this machine, and an IPv6 address stands for its /64 network (one host's
    share), so that no client gets more places by using more of its addresses."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # not an address (a test client's name, a Unix socket)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        return "loopback"
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def client_of(request: Request) -> str:
    """Who sent ``request``, for the per-client limit of the queue (:func:`client_key`)."""
    return client_key(request.client.host) if request.client is not None else "unknown"


def current_server(request: Request) -> Server:
    """The :class:`Server` of the app answering ``request`` (a FastAPI dependency)."""
    return request.app.state.server


# --- connections ---------------------------------------------------------------------------------------------------


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, guarded: a connection must send each whole request within
    :attr:`request_seconds` of its opening or of the previous answer (a client that never completes its headers or its
    body is closed then: uvicorn alone waits for ever, so 64 such connections would turn every other client away),
    and one client (:func:`client_key`) holds at most :attr:`max_client_connections` at once (the next is answered
    429 and closed). Subclassed with its limits by :func:`guarded_protocol`, whose connections share one count."""

    request_seconds = REQUEST_SECONDS
    max_client_connections = MAX_CLIENT_CONNECTIONS
    open_connections: Counter[str] = Counter()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.deadline: asyncio.TimerHandle | None = None
        self.key = client_key(self.client[0]) if self.client else "unknown"
        self.open_connections[self.key] += 1
        if self.open_connections[self.key] > self.max_client_connections:
            self.refuse_connection()
            return
        self.watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self.open_connections[self.key] -= 1
        if not self.open_connections[self.key]:
            del self.open_connections[self.key]
        self.stop_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self.watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.watch()

    def watch(self) -> None:
        """Run the clock while the connection owes a request (none yet, or one begun: headers or body to come), stop
        it while the request is answered."""
        owes = self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing()
        if owes and self.deadline is None:
            self.deadline = self.loop.call_later(self.request_seconds, self.time_out)
        elif not owes:
            self.stop_deadline()

    def stop_deadline(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def time_out(self) -> None:
        """The request did not come whole in time: close the connection (a request being answered is not cut)."""
        self.deadline = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.transport.close()

    def refuse_connection(self) -> None:
        """Answer 429 at once and close: the client holds as many connections as it may."""
        message = (
            f"too many connections from your address: {self.max_client_connections} are open (this server's limit per "
            "client); close one, or retry later"
        )
        body = json.dumps({"error": message}).encode()
        head = (
            "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 1\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
        )
        self.transport.write(head.encode() + body)
        self.transport.close()


def guarded_protocol(
    request_seconds: float = REQUEST_SECONDS, max_client_connections: int = MAX_CLIENT_CONNECTIONS
) -> type[GuardedH11Protocol]:
    """The protocol class of one server (:class:`GuardedH11Protocol` with these limits and a count of its own)."""
    limits = {"request_seconds": request_seconds, "max_client_connections": max_client_connections}
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {**limits, "open_connections": Counter()})


def uvicorn_config(
    app: Any,
    host: str,
    port: int,
    max_think_seconds: float,
    request_seconds: float = REQUEST_SECONDS,
    max_client_connections: int = MAX_CLIENT_CONNECTIONS,
) -> Any:
    """How uvicorn serves the app: at most :data:`MAX_CONNECTIONS` connections at once (the rest get 503 rather than
    queueing without end), each owing its request within ``request_seconds`` and at most ``max_client_connections``
    of one client (:class:`GuardedH11Protocol`), idle keep-alive connections closed after 5 s. On Ctrl-C, requests
    still waiting for an agent get one think's time to be answered, and :data:`SHUTDOWN_MARGIN_SECONDS` more for a
    worker that is still starting or compiling on a busy machine."""
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=guarded_protocol(request_seconds, max_client_connections),
        limit_concurrency=MAX_CONNECTIONS,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=max_think_seconds + SHUTDOWN_MARGIN_SECONDS,
    )
