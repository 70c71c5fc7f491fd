"""The web app of ``awale serve``: one page to play any game of the toolkit against any agent, and the JSON API the
page uses.

Every game goes through the game protocol (:mod:`awale_env.games`): its ``State`` API, ``format_move`` and
``parse_move``; only the page's board drawing and the wording of results are specific to a game. The server owns
every game (its States and who played what) and checks every move with the engine; the page only draws what the API
returns and posts the moves clicked. A move request plays the person's move and the agent's reply together, and
commits both or neither, so a failed request leaves the game as it was. Agents think in worker processes
(:mod:`awale_env.web.thinker`) under a per-move time cap; the number of live games and the size of a request are
bounded, so one client cannot exhaust the server. API reference: docs/web.md.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import random
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agents import AGENTS, AgentSpecError, parse_spec
from awale_env.errors import IllegalMoveError
from awale_env.games import GAMES, get_game
from awale_env.web import thinker

DEFAULT_MAX_GAMES = 16
DEFAULT_MAX_THINK_SECONDS = 5.0
MAX_BODY_BYTES = 4096
MAX_SPEC_CHARS = 200
MAX_PLIES_ALLOWED = 1000
#: Extra seconds a worker gets beyond the think cap before the server gives up on it: compiling an agent's kernels on
#: its first use after a fresh install (numba caches them), and moves of other games queued on the same worker.
THINK_GRACE_SECONDS = 120.0
#: Building an agent may wait for the worker's warm-up (compiling the search kernels on a fresh install takes about a
#: minute) and load torch and a network.
PREPARE_SECONDS = 300.0


@dataclass(frozen=True)
class GamePage:
    """How the page presents one game of :data:`awale_env.games.GAMES`: its title, each player's side, and the rule
    choices it offers (label, rule options for ``Game.initial``; the API takes any of the game's rule options)."""

    title: str
    players: tuple[str, str]
    rule_choices: tuple[tuple[str, dict[str, Any]], ...] = ()


GAME_PAGES = {
    "awale16": GamePage("Two-colour Awale, 16 holes", ("odd holes", "even holes")),
    "oware": GamePage(
        "Oware, 2 × 6",
        ("South", "North"),
        (
            ("texts: grand slam forbidden", {"preset": "texts"}),
            ("openspiel: abapa, 25 seeds win", {"preset": "openspiel"}),
        ),
    ),
    "hawalis": GamePage(
        "Hawalis, 4 × 7 relay sowing",
        ("South", "North"),
        (
            ("endless move loses", {"endless_move": "loses"}),
            ("endless moves illegal", {"endless_move": "illegal"}),
        ),
    ),
}

#: Offered on the page; any other spec can be typed in.
PRESETS = (
    "random",
    "greedy",
    "alphabeta:depth=6",
    "alphabeta:time=2",
    "mcts:simulations=2000",
    "ppo:pretrained",
    "alphazero:pretrained",
)

#: Upper bounds on agent parameters that size memory up front (for a client's spec; ``time`` is bounded by the cap).
PARAMETER_LIMITS = {
    ("alphabeta", "table_bits"): 20,  # 2**20 entries, about 16 MB per game
    ("alphazero", "simulations"): 50_000,  # the tree is allocated for every simulation, about 20 MB at 50,000
    ("alphazero", "leaves"): 64,
}

#: Why each game ended, by game and ``State.end_reason``; Oware's texts name where the seeds left on the board went.
END_REASONS = {
    "awale16": {
        "score": "a player captured 33 seeds or more",
        "draw": "both players captured 32 seeds",
        "few_seeds": "fewer than 8 seeds were left on the board (they count for nobody)",
        "ply_limit": "the ply limit was reached (seeds left on the board count for nobody)",
    },
    "oware": {
        "repetition": "a position repeated ({on_repetition})",
        "majority": "a store reached 25 seeds, or both 24 (each player took the seeds left in their row)",
        "no_move": "the player to move had no legal move ({on_no_move})",
        "ply_limit": "the ply limit was reached ({on_repetition})",
    },
    "hawalis": {
        "opponent_empty": "the last move took the last seeds of the other side",
        "no_legal_move": "the player to move had seeds but no legal move, and loses",
        "endless_move": "the last move would never end (its relay sowing runs in a cycle), so its player loses",
        "ply_limit": "the ply limit was reached (the player with more seeds on their side wins)",
    },
}
SEEDS_LEFT = {
    "discard": "seeds left on the board count for nobody",
    "own_side": "each player took the seeds left in their row",
}


def end_explanation(game: str, state: Any) -> str:
    """Why the game of ``state`` ended, in words."""
    text = END_REASONS[game][state.end_reason]
    if game == "oware":
        rules = state.rules
        text = text.format(on_repetition=SEEDS_LEFT[rules.on_repetition], on_no_move=SEEDS_LEFT[rules.on_no_move])
    return text


class ApiError(Exception):
    """A request the API refuses: answered with ``status`` and ``{"error": message}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# --- agents' specs and the worker processes --------------------------------------------------------------------------


def check_spec(spec: str, max_think_seconds: float, trusted: bool) -> str:
    """The spec to build, or AgentSpecError when it asks for more than the server allows.

    The rest of the spec (names, types, ranges) is checked by ``agents.make`` when the worker builds the agent.
    ``path=`` would let a page make the server open files (a PyTorch checkpoint can run code), so only the
    operator's presets (``awale serve --preset``) may use it.
    """
    name, kwargs = parse_spec(spec)
    for key, value in kwargs.items():
        if key == "path" and not trusted:
            raise AgentSpecError(
                f"{name}: path= is refused here (the page may not open files on the server); use {name}:pretrained, "
                f"or start the server with --preset '{spec.strip()}' to offer that checkpoint"
            )
        kind = AGENTS[name].params.get(key, (str, ""))[0]
        if kind not in (int, float) or value is True:
            continue
        try:
            number = kind(value)
        except ValueError:
            continue  # agents.make names the bad value
        limit = max_think_seconds if key == "time" else PARAMETER_LIMITS.get((name, key))
        if limit is not None and number > limit:
            unit = " seconds per move" if key == "time" else ""
            raise AgentSpecError(f"{name}: {key}={value} is over this server's limit of {limit:g}{unit}")
    return spec.strip()


class AgentUnavailable(Exception):
    """The worker did not answer in time or died; it has been replaced."""


class Thinkers:
    """One single-process executor per worker: a game always goes to the same worker, where its agent lives."""

    def __init__(self, workers: int) -> None:
        self._context = multiprocessing.get_context("spawn")  # no fork of a process running threads
        self._executors = [self._new_executor() for _ in range(workers)]
        self._next = 0

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=1, mp_context=self._context)

    def assign(self) -> int:
        """The worker of a new game (round robin)."""
        self._next = (self._next + 1) % len(self._executors)
        return self._next

    def warm_up(self) -> None:
        for executor in self._executors:
            executor.submit(thinker.warm_up)

    async def run(self, worker: int, timeout: float, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` in the worker; AgentUnavailable (and a fresh worker) after ``timeout`` seconds."""
        future = asyncio.get_running_loop().run_in_executor(self._executors[worker], function, *args)
        try:
            return await asyncio.wait_for(future, timeout)
        except (asyncio.TimeoutError, BrokenProcessPool) as error:
            # The stuck process finishes its search and exits: executors cannot kill a running task.
            self._executors[worker].shutdown(wait=False)
            self._executors[worker] = self._new_executor()
            what = f"did not answer within {timeout:g} s" if isinstance(error, asyncio.TimeoutError) else "crashed"
            raise AgentUnavailable(f"the opponent's worker process {what}; it was restarted") from None

    def forget(self, worker: int, game_id: str) -> None:
        try:
            self._executors[worker].submit(thinker.forget, game_id)
        except (BrokenProcessPool, RuntimeError):
            pass  # the worker is gone, and the game's agent with it

    def shutdown(self) -> None:
        """Stop the workers, letting a search under way finish (its time is capped) so the processes exit cleanly."""
        for executor in self._executors:
            executor.shutdown(wait=True, cancel_futures=True)


# --- games ------------------------------------------------------------------------------------------------------------


def record_value(value: str | int | bool) -> str:
    """A rule option's value as a game record's header writes it: a string bare, anything else in JSON."""
    return value if isinstance(value, str) else json.dumps(value)


@dataclass(eq=False)
class LiveGame:
    """One game between the person (``human``, a seat) and an agent: every State from the start, and the moves.

    ``game`` names the game in :data:`awale_env.games.GAMES`, ``rules`` are the rule options it was started with.
    """

    id: str
    game: str
    rules: dict[str, Any]
    opponent: str
    opponent_name: str
    human: int
    seed: int | None
    worker: int
    states: list[Any]
    moves: list[int] = field(default_factory=list)
    #: Seconds the agent thought for each of its moves; None for the person's moves.
    seconds: list[float | None] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def state(self) -> Any:
        return self.states[-1]

    def last_human_ply(self) -> int | None:
        """The index of the person's last move (what undo goes back to), or None."""
        return next((i for i in range(len(self.moves) - 1, -1, -1) if self.states[i].to_move == self.human), None)

    def record(self) -> str:
        """The game as text: a header naming the game, its ply limit and rule options (``key=value``, strings bare,
        other values in JSON; with the first player the rules drew, if they drew one), then the moves as the game
        writes them. An ``awale16`` record is ``awale_env.GameRecord`` text."""
        kind = get_game(self.game)
        options = dict(self.rules)
        if "first_player" in kind.rule_options:
            options["first_player"] = self.states[0].to_move
        limit = "none" if self.state.max_plies is None else self.state.max_plies
        fields = [f"max_plies={limit}", *(f"{key}={record_value(value)}" for key, value in options.items())]
        header = " ".join([self.game, *fields])
        return f"{header}\n{' '.join(kind.format_move(action) for action in self.moves)}\n"

    def to_json(self) -> dict[str, Any]:
        state = self.state
        kind = get_game(self.game)
        moves = [
            {
                "ply": ply + 1,
                "move": kind.format_move(action),
                "player": self.states[ply].to_move,
                "by": "you" if self.states[ply].to_move == self.human else "opponent",
                "captured": self.states[ply + 1].last_capture,
                "seconds": None if seconds is None else round(seconds, 3),
            }
            for ply, (action, seconds) in enumerate(zip(self.moves, self.seconds))
        ]
        result = None
        if state.is_terminal:
            winner = state.winner
            outcome = "draw" if winner is None else "win" if winner == self.human else "loss"
            result = {
                "winner": winner,
                "outcome": outcome,
                "end_reason": state.end_reason,
                "explanation": end_explanation(self.game, state),
            }
        return {
            "id": self.id,
            "game": self.game,
            "rules": self.rules,
            "opponent": self.opponent,
            "opponent_name": self.opponent_name,
            "seat": self.human,
            "seed": self.seed,
            "status": "over" if state.is_terminal else "your_turn",
            "state": state.to_dict(),
            "legal_moves": [kind.format_move(a) for a in state.legal_actions()] if state.to_move == self.human else [],
            "moves": moves,
            "last_move": moves[-1] if moves else None,
            "can_undo": self.last_human_ply() is not None,
            "result": result,
            "record": self.record(),
        }


class GameStore:
    """The live games, least recently used first; adding one beyond ``max_games`` evicts the longest idle."""

    def __init__(self, max_games: int) -> None:
        self.max_games = max_games
        self._games: OrderedDict[str, LiveGame] = OrderedDict()

    def add(self, game: LiveGame) -> list[LiveGame]:
        """Store ``game``; return the games evicted to make room."""
        self._games[game.id] = game
        evicted = []
        while len(self._games) > self.max_games:
            evicted.append(self._games.popitem(last=False)[1])
        return evicted

    def get(self, game_id: str) -> LiveGame:
        game = self._games.get(game_id)
        if game is None:
            raise ApiError(
                404,
                f"unknown game id {game_id!r}: it never existed or was evicted (this server keeps the "
                f"{self.max_games} most recently used games); create one with POST /api/games",
            )
        self._games.move_to_end(game_id)
        return game

    def remove(self, game_id: str) -> LiveGame:
        game = self.get(game_id)
        del self._games[game_id]
        return game


# --- requests ---------------------------------------------------------------------------------------------------------


class NewGame(BaseModel):
    """Body of ``POST /api/games``."""

    model_config = ConfigDict(extra="forbid")

    game: StrictStr = Field("awale16", max_length=32)
    #: The game's rule options (``Game.rule_options``: Oware's ``preset`` and flags, Hawalis's ``first_player`` and
    #: ``endless_move``), checked by the game.
    rules: dict[StrictStr, Any] = Field(default_factory=dict, max_length=16)
    opponent: StrictStr = Field("random", min_length=1, max_length=MAX_SPEC_CHARS)
    seat: Any = 0
    #: None: the game's own limit (``Game.default_max_plies``).
    max_plies: StrictInt | None = Field(None, ge=1, le=MAX_PLIES_ALLOWED)
    seed: StrictInt | None = Field(None, ge=0, le=2**32 - 1)

    @field_validator("rules")
    @classmethod
    def _rules(cls, value: dict[str, Any]) -> dict[str, Any]:
        for key, option in value.items():
            if not isinstance(option, (str, int)):  # bool is an int
                raise ValueError(f"{key}: a rule option is a string, an integer or true/false, got {option!r}")
        return value

    @field_validator("seat", mode="before")
    @classmethod
    def _seat(cls, value: Any) -> Any:
        if isinstance(value, bool) or value not in (0, 1, "random") or isinstance(value, float):
            raise ValueError("must be 0 (player 0: odd holes in awale16, South in oware and hawalis), 1 or 'random'")
        return value


class MoveRequest(BaseModel):
    """Body of ``POST /api/games/{id}/moves``."""

    model_config = ConfigDict(extra="forbid")

    move: Any

    @field_validator("move", mode="before")
    @classmethod
    def _move(cls, value: Any) -> Any:
        if not (isinstance(value, str) and len(value) <= 8) and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(
                "a move is a string as the game writes it ('14B' in awale16, '3' in oware and hawalis) "
                "or an action index"
            )
        return value


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
    """Refuse request bodies over ``max_bytes`` with 413, whether announced by Content-Length or streamed.

    The body is read here in full (it is small by then) and handed on to the app, so the app never sees an oversize
    request and the refusal cannot be mistaken for a malformed body.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length", b"0")
        body, more = b"", True
        if length.isdigit() and int(length) <= self.max_bytes:
            while more:
                message = await receive()
                if message["type"] != "http.request":  # the client went away
                    return
                body += message.get("body", b"")
                more = message.get("more_body", False)
                if len(body) > self.max_bytes:
                    break
        if more or len(body) > self.max_bytes:
            message = f"request body over the limit of {self.max_bytes} bytes"
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


# --- the app ----------------------------------------------------------------------------------------------------------


def create_app(
    max_games: int = DEFAULT_MAX_GAMES,
    max_think_seconds: float = DEFAULT_MAX_THINK_SECONDS,
    presets: Iterable[str] = (),
    workers: int = 1,
    allowed_hosts: Iterable[str] | None = None,
) -> FastAPI:
    """The web app: the page at ``/``, the JSON API under ``/api``.

    ``presets`` are extra opponent specs offered on the page, trusted (they may use ``path=``); ``workers`` worker
    processes run the agents; ``allowed_hosts`` (if given) are the only Host headers answered, which stops other web
    sites from reaching a loopback server through DNS rebinding. Workers are spawned, so a script that calls this
    needs the usual ``if __name__ == "__main__":`` guard.
    """
    if max_games < 1 or workers < 1 or not max_think_seconds > 0:
        raise ValueError(f"need max_games >= 1, workers >= 1, max_think_seconds > 0; got {max_games}, {workers}, "
                         f"{max_think_seconds}")  # fmt: skip
    extra = [check_spec(spec, max_think_seconds, trusted=True) for spec in presets]
    offered = list(dict.fromkeys([*extra, *PRESETS]))
    trusted = set(offered)
    store = GameStore(max_games)
    thinkers = Thinkers(workers)  # processes start on the first task

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        thinkers.warm_up()
        try:
            yield
        finally:
            thinkers.shutdown()

    app = FastAPI(title="awale_env web", lifespan=lifespan, docs_url="/api/docs", openapi_url="/api/openapi.json")
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    hosts = None if allowed_hosts is None else set(allowed_hosts)

    @app.middleware("http")
    async def check_host(request: Request, call_next: Callable[[Request], Any]) -> Response:
        host = request.headers.get("host", "").rpartition(":")[0] or request.headers.get("host", "")
        if hosts is not None and host not in hosts:
            message = f"this server answers requests addressed to {', '.join(sorted(hosts))}, not {host!r}"
            return JSONResponse({"error": message}, status_code=400)
        return await call_next(request)

    static = resources.files("awale_env.web") / "static"
    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    @app.exception_handler(ApiError)
    async def api_error(_: Request, error: ApiError) -> JSONResponse:
        return JSONResponse({"error": error.message}, status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": validation_message(error)}, status_code=400)

    @app.exception_handler(Exception)
    async def internal_error(_: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"error": f"internal error: {type(error).__name__}: {error}"}, status_code=500)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        message = f"{error.detail}: {request.method} {request.url.path} (the API is described at /api/docs)"
        return JSONResponse({"error": message}, status_code=error.status_code, headers=error.headers)

    async def agent_moves(game: LiveGame, states: list[Any]) -> tuple[list[int], list[float]]:
        """The agent's moves from ``states[-1]`` until the person is to move or the game ends (appended to
        ``states``), checked by the engine; ApiError 503 if the agent fails."""
        moves, seconds = [], []
        while not states[-1].is_terminal and states[-1].to_move != game.human:
            try:
                action, took = await thinkers.run(
                    game.worker, max_think_seconds + THINK_GRACE_SECONDS, thinker.think,
                    game.id, game.opponent, game.seed, max_think_seconds, max_games, states[-1].to_dict(),
                )  # fmt: skip
                states.append(states[-1].play(action))
            except Exception as error:  # a crashed or stuck worker, an agent's bug or an illegal move from it
                raise ApiError(503, f"the opponent {game.opponent_name} failed: {error}; nothing was played") from None
            moves.append(action)
            seconds.append(took)
        return moves, seconds

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse((static / "index.html").read_text(encoding="utf-8"))

    @app.get("/api/config")
    async def config() -> dict[str, Any]:
        """What the page offers: games, opponent presets, the agents and their parameters, the server's limits."""
        return {
            "games": [
                {
                    "id": name,
                    "title": GAME_PAGES[name].title,
                    "players": GAME_PAGES[name].players,
                    "rule_options": game.rule_options,
                    "rule_choices": [
                        {"label": label, "rules": rules} for label, rules in GAME_PAGES[name].rule_choices
                    ],
                    "default_max_plies": game.default_max_plies,
                }
                for name, game in GAMES.items()
            ],
            "presets": offered,
            "agents": {
                name: {
                    "summary": entry.summary,
                    "params": {
                        key: {"type": kind.__name__, "help": text} for key, (kind, text) in entry.params.items()
                    },
                }
                for name, entry in AGENTS.items()
            },
            "limits": {
                "max_games": max_games,
                "max_think_seconds": max_think_seconds,
                "max_body_bytes": MAX_BODY_BYTES,
                "max_plies": MAX_PLIES_ALLOWED,
            },
        }

    @app.post("/api/games", status_code=201)
    async def create_game(request: NewGame) -> dict[str, Any]:
        """Start a game against an agent; if the agent has the first move, it is played before the answer."""
        if request.game not in GAMES:
            raise ApiError(400, f"unknown game {request.game!r}; this server plays: {', '.join(GAMES)}")
        kind = get_game(request.game)
        try:
            kind.check_options(request.rules, rule_flags_only=True)
            max_plies = kind.default_max_plies if request.max_plies is None else request.max_plies
            initial = kind.initial(**request.rules, max_plies=max_plies, seed=request.seed)
        except ValueError as error:
            raise ApiError(400, f"bad rules for {request.game}: {error}") from None
        try:
            spec = check_spec(request.opponent, max_think_seconds, trusted=request.opponent.strip() in trusted)
        except AgentSpecError as error:
            raise ApiError(400, f"bad opponent spec: {error}") from None
        seat = request.seat
        if seat == "random":
            seat = (random.Random(request.seed) if request.seed is not None else random.SystemRandom()).randrange(2)
        game_id = secrets.token_urlsafe(12)
        worker = thinkers.assign()
        try:
            name = await thinkers.run(
                worker, PREPARE_SECONDS, thinker.prepare,
                game_id, spec, request.seed, max_think_seconds, max_games, initial.to_dict(),
            )  # fmt: skip
        except AgentSpecError as error:
            raise ApiError(400, f"bad opponent spec: {error}") from None
        except AgentUnavailable as error:
            raise ApiError(503, str(error)) from None
        game = LiveGame(game_id, request.game, dict(request.rules), spec, name, seat, request.seed, worker, [initial])
        states = [initial]
        try:
            moves, seconds = await agent_moves(game, states)
        except ApiError:
            thinkers.forget(worker, game_id)
            raise
        game.states, game.moves, game.seconds = states, moves, list(seconds)
        for old in store.add(game):
            thinkers.forget(old.worker, old.id)
        return game.to_json()

    @app.get("/api/games/{game_id}")
    async def read_game(game_id: str) -> dict[str, Any]:
        """The game as it stands."""
        return store.get(game_id).to_json()

    @app.post("/api/games/{game_id}/moves")
    async def post_move(game_id: str, request: MoveRequest) -> dict[str, Any]:
        """Play the person's move (as the game writes it, ``"14B"`` or ``"3"``, or an action index) and the agent's
        reply; all or nothing."""
        game = store.get(game_id)
        async with game.lock:
            state, move = game.state, request.move
            try:
                action = state.to_action(get_game(game.game).parse_move(move) if isinstance(move, str) else move)
            except IllegalMoveError as error:
                raise ApiError(400, str(error)) from None
            states = [*game.states, state.play(action)]
            moves, seconds = await agent_moves(game, states)
            game.states = states
            game.moves = [*game.moves, action, *moves]
            game.seconds = [*game.seconds, None, *seconds]
            return game.to_json()

    @app.post("/api/games/{game_id}/undo")
    async def undo(game_id: str) -> dict[str, Any]:
        """Take back the person's last move and the agent's replies to it."""
        game = store.get(game_id)
        async with game.lock:
            ply = game.last_human_ply()
            if ply is None:
                raise ApiError(409, "nothing to undo: you have not moved yet in this game")
            game.states, game.moves, game.seconds = game.states[: ply + 1], game.moves[:ply], game.seconds[:ply]
            return game.to_json()

    @app.delete("/api/games/{game_id}", status_code=204)
    async def delete_game(game_id: str) -> Response:
        """Drop a game (the page does this when it starts a new one)."""
        game = store.remove(game_id)
        thinkers.forget(game.worker, game.id)
        return Response(status_code=204)

    return app
