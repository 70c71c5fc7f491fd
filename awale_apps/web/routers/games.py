"""``/api/games``: start a game against an agent, read it, play a move (with the agent's reply), undo, drop it."""

from __future__ import annotations

import random
import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

from agents import AgentSpecError
from awale_apps.web import thinker
from awale_apps.web.errors import ApiError
from awale_apps.web.live import LiveGame, web_games
from awale_apps.web.opponents import PREPARE_SECONDS, AgentUnavailable, check_spec
from awale_apps.web.server import MAX_PLIES_ALLOWED, MAX_SPEC_CHARS, Server, client_of, current_server, searches
from awale_env.errors import IllegalMoveError
from awale_env.games import DEFAULT_GAME, get_game

router = APIRouter(prefix="/api/games")
ServerDependency = Annotated[Server, Depends(current_server)]


class NewGame(BaseModel):
    """Body of ``POST /api/games``."""

    model_config = ConfigDict(extra="forbid")

    game: StrictStr = Field(DEFAULT_GAME, max_length=32)
    #: The game's rule options (``Game.rule_options``), checked by the game.
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
            raise ValueError("must be 0 (player 0, the first of the game's players), 1 or 'random'")
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
                "a move is a string of at most 8 characters as the game writes it (its page's example) or an "
                "action index"
            )
        return value


def check_idle(server: Server, game: LiveGame) -> None:
    """ApiError 409 at once if a move of ``game`` is under way (its answer will hold the game as it is then)."""
    if game.lock.locked():
        raise ApiError(409, "a move of this game is under way: wait for its answer", server.retry_after(1))


@router.post("", status_code=201)
async def create_game(request: NewGame, server: ServerDependency, http: Request) -> dict[str, Any]:
    """Start a game against an agent; if the agent has the first move, it is played before the answer."""
    games = web_games()
    if request.game not in games:
        raise ApiError(400, f"unknown game {request.game!r}; this server plays: {', '.join(games)}")
    kind = games[request.game]
    try:
        kind.check_options(request.rules, rule_flags_only=True)
        max_plies = kind.default_max_plies if request.max_plies is None else request.max_plies
        initial = kind.initial(**request.rules, max_plies=max_plies, seed=request.seed)
    except ValueError as error:
        raise ApiError(400, f"bad rules for {request.game}: {error}") from None
    try:
        trusted = request.opponent.strip() in server.trusted
        spec = check_spec(request.opponent, server.max_think_seconds, trusted=trusted)
    except AgentSpecError as error:
        raise ApiError(400, f"bad opponent spec: {error}") from None
    seat = request.seat
    if seat == "random":
        seat = (random.Random(request.seed) if request.seed is not None else random.SystemRandom()).randrange(2)
    game_id = secrets.token_urlsafe(12)
    with server.queue_place(client_of(http), thinking=searches(spec) and initial.to_move != seat):
        worker = server.thinkers.assign()
        try:
            name = await server.thinkers.run(
                worker, PREPARE_SECONDS, thinker.prepare,
                game_id, spec, request.seed, server.agent_limits(), initial.to_dict(),
            )  # fmt: skip
        except AgentSpecError as error:
            raise ApiError(400, f"bad opponent spec: {error}") from None
        except AgentUnavailable as error:
            raise ApiError(503, str(error)) from None
        game = LiveGame(game_id, request.game, dict(request.rules), spec, name, seat, request.seed, worker, [initial])
        states = [initial]
        try:
            moves, seconds = await server.agent_moves(game, states)
        except ApiError:
            server.forget(game)
            raise
    game.states, game.moves, game.seconds = states, moves, list(seconds)
    for old in server.store.add(game):
        server.forget(old)
    return game.to_json()


@router.get("/{game_id}")
async def read_game(game_id: str, server: ServerDependency) -> dict[str, Any]:
    """The game as it stands."""
    return server.store.get(game_id).to_json()


@router.post("/{game_id}/moves")
async def post_move(game_id: str, request: MoveRequest, server: ServerDependency, http: Request) -> dict[str, Any]:
    """Play the person's move (as the game writes it, or an action index) and the agent's reply; all or nothing."""
    game = server.store.get(game_id)
    check_idle(server, game)
    async with game.lock:
        state, move = game.state, request.move
        try:
            action = state.to_action(get_game(game.game).parse_move(move) if isinstance(move, str) else move)
        except IllegalMoveError as error:
            raise ApiError(400, str(error)) from None
        states = [*game.states, state.play(action)]
        with server.queue_place(client_of(http), thinking=searches(game.opponent) and not states[-1].is_terminal):
            moves, seconds = await server.agent_moves(game, states)
        game.states = states
        game.moves = [*game.moves, action, *moves]
        game.seconds = [*game.seconds, None, *seconds]
        return game.to_json()


@router.post("/{game_id}/undo")
async def undo(game_id: str, server: ServerDependency) -> dict[str, Any]:
    """Take back the person's last move and the agent's replies to it."""
    game = server.store.get(game_id)
    check_idle(server, game)
    async with game.lock:
        ply = game.last_human_ply()
        if ply is None:
            raise ApiError(409, "nothing to undo: you have not moved yet in this game")
        game.states, game.moves, game.seconds = game.states[: ply + 1], game.moves[:ply], game.seconds[:ply]
        return game.to_json()


@router.delete("/{game_id}", status_code=204)
async def delete_game(game_id: str, server: ServerDependency) -> Response:
    """Drop a game (the page does this when it starts a new one)."""
    server.forget(server.store.remove(game_id))
    return Response(status_code=204)
