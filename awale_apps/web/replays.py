"""Finished (or any) games to step through on the analysis board: a :class:`Replay` (a start position, its moves,
who played them, the seconds each move took and any fault) and the sources they come from.

A source is a small loader (:class:`GameSource`): a name, a title, :meth:`~GameSource.summaries` (one row per game)
and :meth:`~GameSource.load` (one game as a Replay). The page's own games (:class:`PageGames`) and files of game
records (:class:`RecordsFile`, ``awale serve --records FILE``) are two; any other store of games (a tournament
database) is one more class with those three members, added to the :class:`Library` ``create_app`` builds; sources
that appear while the server runs (a results store's new events) come from a :class:`SourceFeed` it asks again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from awale_apps.web.errors import ApiError
from awale_apps.web.live import GameStore, end_explanation, move_details
from awale_env.errors import RecordError
from awale_env.games import game_of, get_game
from awale_env.record import GameRecord

#: The most games one records file may hold, and its largest size (bytes).
MAX_RECORDS = 10_000
MAX_RECORDS_FILE_BYTES = 64 * 2**20
#: The most characters of a player's name in a JSON record's ``players``.
MAX_PLAYER_NAME_CHARS = 80


@dataclass
class Replay:
    """One game from ``start`` (a State): the ``moves`` (action indices) played by ``players`` (two names, player
    0's first), the ``seconds`` each move took (None where unknown) and the ``fault`` that ended it, if one did
    (``{"player": 0 or 1, "kind": ..., "detail": ...}``: a program that broke the rules or the time limit)."""

    start: Any
    moves: list[int]
    players: list[str]
    title: str
    seconds: list[float | None] = field(default_factory=list)
    fault: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        self.seconds = list(self.seconds) + [None] * (len(self.moves) - len(self.seconds))

    def states(self) -> list[Any]:
        """Every State of the game, the start first (IllegalMoveError for a move that is not legal)."""
        states = [self.start]
        for action in self.moves:
            states.append(states[-1].play(action))
        return states

    def to_json(self) -> dict[str, Any]:
        """The game for the page: each position (``state``, ``stores``, ``legal_moves`` written as the game writes
        them), each move (``ply``, ``move``, ``player``, ``captured``, ``seconds``, ``note``, ``ended``), the result
        and the record."""
        kind = game_of(self.start)
        page = kind.page()
        states = self.states()
        final = states[-1]
        result = None
        if final.is_terminal:
            result = {"winner": final.winner, "end_reason": final.end_reason, "explanation": end_explanation(final)}
        return {
            "game": kind.name,
            "title": self.title,
            "players": self.players,
            "positions": [
                {
                    "state": state.to_dict(),
                    "stores": list(state.stores),
                    "legal_moves": [kind.format_move(a) for a in state.legal_actions()]
                    if not state.is_terminal
                    else [],
                }  # fmt: skip
                for state in states
            ],
            "moves": [
                {
                    "ply": states[i].ply + 1,
                    "move": kind.format_move(action),
                    "player": states[i].to_move,
                    "captured": states[i + 1].last_capture,
                    "seconds": None if seconds is None else round(seconds, 3),
                    **move_details(kind, page, states[i + 1]),
                }
                for i, (action, seconds) in enumerate(zip(self.moves, self.seconds))
            ],
            "result": result,
            "fault": self.fault,
            "record": self.record_text(),
        }

    def record_text(self) -> str | None:
        """The game as a :class:`GameRecord` text when it starts from its game's initial position (a record replays
        from there), else None."""
        data = self.start.to_dict()
        if data.get("ply") != 0:
            return None
        rules = data.get("rules", {})
        options = {key: value for key, value in rules.items() if key in get_game(data["game"]).rule_options}
        try:
            record = GameRecord(list(self.moves), self.start.max_plies, data["game"], options)
            if record.replay()[0].to_dict() != data:
                return None
        except (RecordError, ValueError):
            return None
        return record.to_text()


def replay_of_record(record: GameRecord, title: str, extra: dict[str, Any] | None = None) -> Replay:
    """A record as a Replay; ``extra`` (a JSON record's other fields, checked by :func:`record_extras`) may name the
    ``players`` and give each move's ``seconds`` and a ``fault``."""
    extra = record_extras(extra or {}, len(record.moves))
    start = record.replay()[0]
    players = extra.get("players") or list(get_game(record.game).page()["players"])
    return Replay(start, list(record.moves), list(players), title, extra.get("seconds", []), extra.get("fault"))


#: The fields of a JSON record's ``fault``: the player at fault (0 or 1) and the fault's kind are required.
FAULT_FIELDS = {"player": "0 or 1", "kind": "a string", "detail": "a string", "name": "a string",
                "answer": "a string or null", "ply": "a ply number (1 or more) or null"}  # fmt: skip


def _fault_field_ok(key: str, value: Any) -> bool:
    if key == "player":
        return value in (0, 1) and not isinstance(value, bool | float)
    if key == "ply":
        return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 1)
    return isinstance(value, str) or (key == "answer" and value is None)


def record_extras(extra: dict[str, Any], plies: int) -> dict[str, Any]:
    """The extra fields of a JSON record of ``plies`` moves, checked (a null one is left out): ``players``, the two
    players' names (player 0's first), each of at most :data:`MAX_PLAYER_NAME_CHARS` characters; ``seconds``, at
    most one per move, each a number >= 0 or null; ``fault``, an object with ``player`` (0 or 1), ``kind`` and
    optionally ``detail``, ``name``, ``answer`` and ``ply``.
    RecordError naming the first bad field, what it holds (an excerpt) and what is allowed."""
    checked: dict[str, Any] = {}
    players, seconds, fault = extra.get("players"), extra.get("seconds"), extra.get("fault")
    if players is not None:
        if not (isinstance(players, list) and len(players) == 2 and all(isinstance(p, str) for p in players)):
            raise RecordError(f"'players' must be a list of the two players' names (player 0's first), got "
                              f"{players!r:.80}")  # fmt: skip
        for player, name in enumerate(players):
            if len(name) > MAX_PLAYER_NAME_CHARS:
                raise RecordError(f"'players': player {player}'s name must be at most {MAX_PLAYER_NAME_CHARS} "
                                  f"characters, got {len(name)} ({name!r:.40}...)")  # fmt: skip
        checked["players"] = players
    if seconds is not None:
        if not isinstance(seconds, list) or len(seconds) > plies:
            got = f"{len(seconds)} times" if isinstance(seconds, list) else f"{seconds!r:.80}"
            raise RecordError(f"'seconds' must be a list of at most one time per move ({plies}), got {got}")
        for ply, value in enumerate(seconds, start=1):
            if not (value is None or (isinstance(value, int | float) and not isinstance(value, bool)
                                      and 0 <= value < float("inf"))):  # fmt: skip
                raise RecordError(f"'seconds' of ply {ply} must be a number of seconds >= 0 or null, got "
                                  f"{value!r:.80}")  # fmt: skip
        checked["seconds"] = seconds
    if fault is not None:
        if not isinstance(fault, dict) or not {"player", "kind"} <= fault.keys():
            raise RecordError(f"'fault' must be an object with 'player' (0 or 1) and 'kind', got {fault!r:.80}")
        for key, value in fault.items():
            if key not in FAULT_FIELDS:
                raise RecordError(f"unknown field {key!r:.40} of 'fault': it may have {', '.join(FAULT_FIELDS)}")
            if not _fault_field_ok(key, value):
                raise RecordError(f"'fault' field {key!r} must be {FAULT_FIELDS[key]}, got {value!r:.80}")
        checked["fault"] = fault
    return checked


_HEADER = re.compile(r"^\S+\s+max_plies=", re.MULTILINE)


#: Characters of a value of a record that an error quotes (a record's line can be megabytes long), and the most
#: characters of an error message about a record.
QUOTED_CHARS = 60
MESSAGE_CHARS = 600
#: A quoted value (``'...'`` or ``"..."``, as ``repr`` writes it) longer than :data:`QUOTED_CHARS`.
_LONG_QUOTE = re.compile("|".join(f"{q}[^{q}\\n]{{{QUOTED_CHARS + 1},}}{q}" for q in "'\""))


def capped(message: str) -> str:
    """An error message about a record with each long quoted value cut to an excerpt (its length said) and the whole
    kept to :data:`MESSAGE_CHARS`: what the records hold is never echoed whole."""
    message = _LONG_QUOTE.sub(lambda m: f"{m[0][: QUOTED_CHARS + 1]}...{m[0][0]} ({len(m[0]) - 2} characters)", message)
    return message if len(message) <= MESSAGE_CHARS else f"{message[:MESSAGE_CHARS]}... ({len(message)} characters)"


def parse_records(text: str) -> list[tuple[GameRecord, dict[str, Any]]]:
    """The records of a text: JSON records one per line (their ``players``, ``seconds`` and ``fault`` kept, checked
    by :func:`record_extras`), or text records each starting with its header line; RecordError names the first bad
    one, quoting excerpts of what it holds (:func:`capped`)."""
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if lines and all(line.lstrip().startswith("{") for line in lines):
        records = []
        for number, line in enumerate(lines, start=1):
            try:
                record = GameRecord.from_text(line)
            except RecordError as error:
                raise RecordError(f"record {number}: {capped(str(error))}") from None
            data = json.loads(line)
            try:
                extra = record_extras(data, len(record.moves))
            except RecordError as error:
                raise RecordError(f"record {number}: {capped(str(error))}") from None
            records.append((record, extra))
        return records
    starts = [match.start() for match in _HEADER.finditer(text)] or [0]
    chunks = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)])]
    records = []
    for number, chunk in enumerate(chunks, start=1):
        try:
            records.append((GameRecord.from_text(chunk), {}))
        except RecordError as error:
            raise RecordError(f"record {number}: {capped(str(error))}") from None
    return records


class GameSource(Protocol):
    """Where replays come from (see the module docstring)."""

    name: str
    title: str

    def summaries(self) -> list[dict[str, Any]]:
        """One row per game: ``key`` (what :meth:`load` takes), ``game``, ``players``, ``plies``, ``result`` (the
        winner 0 or 1, ``"draw"``, or None for an unfinished game) and ``title``."""
        ...

    def load(self, key: str) -> Replay:
        """The game ``key``; ApiError 404 for an unknown key."""
        ...


def summary(key: str, replay: Replay) -> dict[str, Any]:
    """A source's row for ``replay``."""
    final = replay.states()[-1]
    result = None if not final.is_terminal else "draw" if final.winner is None else final.winner
    return {"key": key, "game": game_of(final).name, "players": replay.players, "plies": len(replay.moves),
            "result": result, "title": replay.title}  # fmt: skip


class PageGames:
    """The games played on this page (the server's live games), finished or not."""

    name = "page"
    title = "games played on this page"

    def __init__(self, store: GameStore) -> None:
        self.store = store

    def _replay(self, game: Any) -> Replay:
        page = get_game(game.game).page()
        players = [f"you ({page['players'][seat]})" if seat == game.human else game.opponent_name for seat in (0, 1)]
        return Replay(game.states[0], list(game.moves), players, f"{page['title']}: you vs {game.opponent_name}",
                      list(game.seconds))  # fmt: skip

    def summaries(self) -> list[dict[str, Any]]:
        return [summary(game.id, self._replay(game)) for game in reversed(self.store.games())]

    def load(self, key: str) -> Replay:
        return self._replay(self.store.peek(key))


class RecordsFile:
    """The games of a records file (:func:`parse_records`), read once when the server starts; keyed by their number
    in the file (1, 2, ...)."""

    def __init__(self, path: str | Path, name: str = "records") -> None:
        path = Path(path)
        try:
            if path.stat().st_size > MAX_RECORDS_FILE_BYTES:
                raise RecordError(f"{path}: over {MAX_RECORDS_FILE_BYTES // 2**20} MB")
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise RecordError(f"cannot read the records file {path}: {error}") from None
        try:
            records = parse_records(text)
        except RecordError as error:
            raise RecordError(f"{path}: {error}") from None
        if len(records) > MAX_RECORDS:
            raise RecordError(f"{path}: {len(records)} records, over the limit of {MAX_RECORDS}")
        self.name = name
        self.title = f"records of {path.name}"
        self._replays = {
            str(number): replay_of_record(record, f"{path.name} #{number}", extra)
            for number, (record, extra) in enumerate(records, start=1)
        }
        self._rows = [summary(key, replay) for key, replay in self._replays.items()]

    def summaries(self) -> list[dict[str, Any]]:
        return self._rows

    def load(self, key: str) -> Replay:
        if key not in self._replays:
            raise ApiError(404, f"no game {key!r} in {self.title}: its games are numbered 1-{len(self._replays)}")
        return self._replays[key]


class SourceFeed(Protocol):
    """Sources that may grow while the server runs (a results store's events)."""

    def sources(self) -> Iterable[GameSource]:
        """Every source it has now; a source once given keeps its name and is given again each time."""
        ...


class Library:
    """The sources of replays the server offers, by name (the page's games first); the ``feeds`` are asked again
    (:meth:`refresh`) when the sources are listed and when an unknown name is asked for."""

    def __init__(self, sources: Iterable[GameSource], feeds: Iterable[SourceFeed] = ()) -> None:
        self.sources: dict[str, GameSource] = {}
        self.feeds = list(feeds)
        for source in sources:
            self._add(source)
        self.refresh()

    def _add(self, source: GameSource) -> None:
        if self.sources.setdefault(source.name, source) is not source:
            raise ValueError(f"two sources of games are named {source.name!r}")

    def refresh(self) -> dict[str, GameSource]:
        """Every source by name, with those the feeds gained since the last look."""
        for feed in self.feeds:
            for source in feed.sources():
                self._add(source)
        return dict(self.sources)

    def source(self, name: str) -> GameSource:
        if name not in self.sources and name not in self.refresh():
            raise ApiError(404, f"unknown source of games {name!r}; this server has: {', '.join(self.sources)}")
        return self.sources[name]
