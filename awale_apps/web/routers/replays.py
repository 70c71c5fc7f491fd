"""``/api/sources``, ``/api/replays``, ``/api/positions``: games to step through on the analysis board, from the
server's sources (the page's games, records files), from an uploaded record, or a line from any position."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from awale_apps.web.board import AnalysisBoard, current_board, parse_state
from awale_apps.web.errors import ApiError
from awale_apps.web.live import web_games
from awale_apps.web.replays import GameSource, Replay, parse_records, replay_of_record
from awale_apps.web.server import MAX_PLIES_ALLOWED
from awale_env.errors import IllegalMoveError, RecordError

router = APIRouter(prefix="/api")
BoardDependency = Annotated[AnalysisBoard, Depends(current_board)]
#: The most characters of a record uploaded (a 1,000-ply game in any notation fits).
MAX_RECORD_CHARS = 60_000


class RecordUpload(BaseModel):
    """Body of ``POST /api/replays``: one game record (the text or JSON format of ``awale_env.GameRecord``)."""

    model_config = ConfigDict(extra="forbid")

    record: StrictStr = Field(min_length=1, max_length=MAX_RECORD_CHARS)


class PositionRequest(BaseModel):
    """Body of ``POST /api/positions``: a start (``state``, a ``State.to_dict()``; or ``game`` and its ``rules``,
    for its initial position) and ``moves`` played from it."""

    model_config = ConfigDict(extra="forbid")

    state: dict[StrictStr, Any] | None = None
    game: StrictStr | None = Field(None, max_length=32)
    rules: dict[StrictStr, Any] = Field(default_factory=dict, max_length=16)
    moves: list[StrictStr | int] = Field(default_factory=list, max_length=MAX_PLIES_ALLOWED)


def uploaded_replay(text: str) -> Replay:
    """The one game of an uploaded record; ApiError 400 naming what is wrong with it."""
    try:
        records = parse_records(text)
    except RecordError as error:
        raise ApiError(400, f"bad game record: {error}") from None
    if len(records) != 1:
        raise ApiError(400, f"bad game record: expected one game, got {len(records)}")
    record, extra = records[0]
    if record.game not in web_games():
        raise ApiError(400, f"bad game record: this page does not show {record.game}")
    return replay_of_record(record, "uploaded record", extra)


def position_replay(request: PositionRequest) -> Replay:
    """The line of a position request; ApiError 400 for a bad start or move."""
    if (request.state is None) == (request.game is None):
        raise ApiError(400, "bad position: give either 'state' (a State's to_dict form) or 'game' (and its 'rules')")
    if request.state is not None:
        start = parse_state(request.state)
    else:
        games = web_games()
        if request.game not in games:
            raise ApiError(400, f"bad position: unknown game {request.game!r}; this server plays: {', '.join(games)}")
        try:
            games[request.game].check_options(request.rules, rule_flags_only=True)
            start = games[request.game].initial(**request.rules, seed=0)
        except (ValueError, TypeError) as error:
            raise ApiError(400, f"bad rules for {request.game}: {error}") from None
    kind = web_games()[start.to_dict()["game"]]
    state, actions = start, []
    for ply, move in enumerate(request.moves, start=1):
        try:
            action = state.to_action(kind.parse_move(move) if isinstance(move, str) else move)
            state = state.play(action)
        except (IllegalMoveError, ValueError) as error:
            raise ApiError(400, f"bad position: move {ply} ({move!r}): {error}") from None
        actions.append(action)
    return Replay(start, actions, list(kind.page()["players"]), "position")


def listing(name: str, source: GameSource) -> dict[str, Any]:
    """A source's row of ``GET /api/sources``; one that cannot be read now has ``games`` null and its ``error``."""
    row = {"name": name, "title": source.title, "games": None,
           "standings": callable(getattr(source, "standings", None))}  # fmt: skip
    try:
        row["games"] = len(source.summaries())
    except ApiError as error:
        row["error"] = error.message
    return row


@router.get("/sources")
async def sources(board: BoardDependency) -> list[dict[str, Any]]:
    """The sources of games to replay (a results store's events re-read, so one started since is listed): each
    one's ``name``, ``title``, number of ``games`` and whether it has ``standings``; one that cannot be read now
    (its file gone or broken) has ``games`` null and the ``error``, and the others are listed as ever."""
    return [listing(name, source) for name, source in board.library.refresh().items()]


@router.get("/sources/{name}/games")
async def source_games(name: str, board: BoardDependency) -> list[dict[str, Any]]:
    """The games of a source: ``key``, ``game``, ``players``, ``plies``, ``result`` (0, 1, ``"draw"`` or None for an
    unfinished game), ``title``; a results store's (``--db``) add ``task``, ``scores``, ``end_reason`` and
    ``replayable`` (false for the arena's games, kept without moves)."""
    return board.library.source(name).summaries()


@router.get("/sources/{name}/games/{key}")
async def source_game(name: str, key: str, board: BoardDependency) -> dict[str, Any]:
    """One game of a source, to step through (see ``POST /api/replays`` for its form)."""
    return board.library.source(name).load(key).to_json()


@router.get("/sources/{name}/standings")
async def source_standings(name: str, board: BoardDependency) -> list[dict[str, Any]]:
    """The standings of a source that has them (a tournament's): its ``standings()`` rows; 404 for the others."""
    source = board.library.source(name)
    standings = getattr(source, "standings", None)
    if not callable(standings):
        raise ApiError(404, f"the source {name!r} ({source.title}) has no standings")
    return standings()


@router.post("/replays")
async def upload_replay(request: RecordUpload) -> dict[str, Any]:
    """A game record (text or JSON format; a JSON record may add ``players``, each move's ``seconds`` and a
    ``fault``) as a replay: each position (``state``, ``stores``, ``legal_moves``), each move (``ply``, ``move``,
    ``player``, ``captured``, ``seconds``, ``note``, ``ended``), ``players``, ``result``, ``fault``, ``record``."""
    return uploaded_replay(request.record).to_json()


@router.post("/positions")
async def position(request: PositionRequest) -> dict[str, Any]:
    """A position (a State's ``to_dict`` form, or a game's initial position) and moves played from it, as a replay
    (the form of ``POST /api/replays``): set up a position and analyse it."""
    return position_replay(request).to_json()
