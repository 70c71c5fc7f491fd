"""``/api/analysis`` and ``/api/reviews``: an engine's evaluation of a position (its expected score for the player
to move, its best line), and post-game reviews that evaluate every move of a game, computed in the agent workers
under the server's limits."""

from __future__ import annotations

import asyncio
import secrets
from contextlib import ExitStack
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from awale_apps.web.board import DEFAULT_ENGINE, AnalysisBoard, check_engine, current_board, parse_state, run_analysis
from awale_apps.web.errors import ApiError
from awale_apps.web.replays import Replay
from awale_apps.web.reviews import DEFAULT_REVIEW_ENGINE, REVIEW_LINE_PLIES, Review, run_review
from awale_apps.web.routers.replays import MAX_RECORD_CHARS, PositionRequest, position_replay, uploaded_replay
from awale_apps.web.server import MAX_PLIES_ALLOWED, MAX_SPEC_CHARS, Server, client_of, current_server

router = APIRouter(prefix="/api")
ServerDependency = Annotated[Server, Depends(current_server)]
BoardDependency = Annotated[AnalysisBoard, Depends(current_board)]


class AnalysisRequest(BaseModel):
    """Body of ``POST /api/analysis``."""

    model_config = ConfigDict(extra="forbid")

    #: The position: a live game's ``State.to_dict()``.
    state: dict[StrictStr, Any]
    engine: StrictStr = Field(DEFAULT_ENGINE, min_length=1, max_length=MAX_SPEC_CHARS)
    #: The page's board: a newer analysis of the same channel (and client) supersedes this one.
    channel: StrictStr = Field("default", min_length=1, max_length=64)
    #: The most plies of the best line.
    plies: StrictInt = Field(12, ge=1, le=40)


class ReviewRequest(BaseModel):
    """Body of ``POST /api/reviews``: a game of a source (``source`` and ``key``), a ``record``, or a line from a
    position (``state`` and ``moves``, as ``POST /api/positions`` takes them)."""

    model_config = ConfigDict(extra="forbid")

    source: StrictStr | None = Field(None, max_length=64)
    key: StrictStr | None = Field(None, max_length=128)
    record: StrictStr | None = Field(None, min_length=1, max_length=MAX_RECORD_CHARS)
    state: dict[StrictStr, Any] | None = None
    moves: list[StrictStr | int] = Field(default_factory=list, max_length=MAX_PLIES_ALLOWED)
    engine: StrictStr = Field(DEFAULT_REVIEW_ENGINE, min_length=1, max_length=MAX_SPEC_CHARS)


@router.post("/analysis")
async def analyse(request: AnalysisRequest, server: ServerDependency, board: BoardDependency,
                  http: Request) -> dict[str, Any]:  # fmt: skip
    """The engine's look at the position, for the player to move: ``score`` (expected score 0-1), ``value`` (the
    engine's own), ``win_in`` (a proven result), ``best_move``, ``line_moves`` (the best line), ``depth``, ``nodes``,
    ``seconds`` and (AlphaZero) ``move_probabilities``."""
    state = parse_state(request.state)
    if state.is_terminal:
        raise ApiError(400, "the game is over in this position: there is nothing to analyse")
    spec = check_engine(request.engine, server)
    return await board.analyse(server, client_of(http), request.channel, spec, state, request.plies)


def review_replay(request: ReviewRequest, board: AnalysisBoard) -> Replay:
    """The game a review request names; ApiError 400 unless it names exactly one."""
    given = [request.source is not None or request.key is not None, request.record is not None,
             request.state is not None]  # fmt: skip
    if sum(given) != 1 or (given[0] and (request.source is None or request.key is None)):
        raise ApiError(400, "bad review request: give one of 'source' and 'key' (a game of GET /api/sources), "
                            "'record', or 'state' and 'moves'")  # fmt: skip
    if request.record is not None:
        return uploaded_replay(request.record)
    if request.state is not None:
        return position_replay(PositionRequest(state=request.state, moves=request.moves))
    return board.library.source(request.source).load(request.key)


@router.post("/reviews", status_code=202)
async def start_review(request: ReviewRequest, server: ServerDependency, board: BoardDependency,
                       http: Request) -> dict[str, Any]:  # fmt: skip
    """Start the review of a game: 202 and the review (poll ``GET /api/reviews/{id}``). The first position is
    analysed before the answer, so an engine that cannot analyse the game is refused with 400."""
    replay = review_replay(request, board)
    spec = check_engine(request.engine, server)
    review = Review(secrets.token_urlsafe(12), spec, replay, replay.states())
    place = ExitStack()
    place.enter_context(server.queue_place(client_of(http)))  # 429/503 at once
    try:
        worker = server.thinkers.assign()
        first = next((i for i, state in enumerate(review.states) if not state.is_terminal), None)
        if first is not None:
            review.analyses[first] = await run_analysis(server, spec, review.states[first], REVIEW_LINE_PLIES, worker)
    except BaseException:
        place.close()
        raise
    review.task = asyncio.create_task(run_review(review, server.thinkers, worker, server.max_think_seconds))
    review.task.add_done_callback(lambda _: place.close())  # also when cancelled before it started
    board.reviews.add(review)
    return review.to_json()


@router.get("/reviews/{review_id}")
async def read_review(review_id: str, board: BoardDependency) -> dict[str, Any]:
    """The review: ``status`` (``running``, ``done``, ``failed``, ``cancelled``), ``done`` of ``total`` positions,
    ``graph`` (player 0's expected score at each position), each move's ``loss``, ``class`` and ``best_move``."""
    return board.reviews.get(review_id).to_json()


@router.delete("/reviews/{review_id}", status_code=204)
async def delete_review(review_id: str, board: BoardDependency) -> Response:
    """Stop a review (if it runs) and drop it."""
    board.reviews.remove(review_id)
    return Response(status_code=204)
