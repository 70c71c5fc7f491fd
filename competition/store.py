"""The results store: one SQLite file (stdlib ``sqlite3``) where tournaments (``awale tournament``), arena round robins
(``awale arena --db``) and referee matches (``awale referee --db``) keep every game, so that every result of the
toolkit can land in one place and be read back without the toolkit (docs/tournament.md shows the SQL).

Tables (:mod:`competition.store_schema`: version 1's, then each migration): ``meta``
(the file's format and version), ``events`` (one competition each: its kind, ``tournament`` / ``arena`` /
``referee``, its name, its settings as JSON and the toolkit version that made it),
``players`` (per event: name, kind ``command`` / ``agent``, the command or spec, and the SHA-256 of the command's
executable or the agent's network file), ``games`` (per event and task index: the players in each seat, the winner's
seat, the seeds each seat captured, the plies, how it ended, the opening, the starting position's seed and when it
ended), ``moves`` (every move of a game with its ply, seat and seconds), ``faults`` (the game a player lost by a
fault: its kind, ply, answer, position and what happened), and ``standings`` (games, points, wins, draws, losses
and faults per player of each event: :func:`competition.ratings.tally`'s numbers, written in the transaction of
each game and of each migration, so that plain SQL reads the one tally). Seats: 0 is JoueurA (who moves first)
in refereed games and tournaments, the rules' player 0 in the arena.

Versions: a file made by an earlier toolkit is brought up to date by the migrations it lacks, in one transaction,
when it is opened for writing; opened for reading, it is read through an up-to-date copy in memory (the file is left
as it is). A file of a later toolkit is refused, naming both versions. Rows are read and written by column name.

Writing: a game, its moves and its fault go in one transaction, and ``(event, task)`` is unique, so a process killed
at any moment leaves whole games only, and a resume adds the missing ones and never one twice. A writer holds an
exclusive lock on the file (``flock``, freed by the system however the writer ends): a second writer is refused with
:class:`StoreBusy`. Readers take no lock of ours (SQLite's own, held while a
game is written, makes them wait a moment).

Reading (the API of the web page and of ``awale tournament standings``): :meth:`Store.events`,
:meth:`Store.games`, :meth:`Store.game` (one game's moves with their times, and its fault), :meth:`Store.standings`
(:class:`competition.ratings.Standing` rows with Bradley-Terry Elo and 95 % intervals). A JSON column that does not
hold what it should (an event's settings, a game's opening: a damaged or hand-edited file) is a StoreError naming the
file, the table, the row and the column, what it holds and what it should hold (:data:`JSON_COLUMNS`); so is a game
whose ``player0`` or ``player1`` names no player of its event, or whose fault names neither of its players.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from awale_env import __version__
from competition.ratings import Outcome, Standing, Table, tally
from competition.store_schema import StoreError, up_to_date

#: The fault kinds a game can be lost by (docs/tournament.md).
FAULT_KINDS = ("illegal", "malformed", "timeout", "crash", "extra_output", "false_result")


class StoreBusy(RuntimeError):
    """Another process is writing to the store."""


@dataclass(frozen=True)
class PlayerEntry:
    """A player of an event: its name, ``command`` or ``agent``, the command line or spec, and the digest of what
    it runs (SHA-256 of the executable or of the agent's network file; None when there is none)."""

    name: str
    kind: str
    spec: str
    digest: str | None = None


@dataclass(frozen=True)
class Move:
    """One move of a stored game: its ply (from 1), the seat that played it (0 moved first), the move as written and
    the seconds its answer took (None where not timed, e.g. an opening)."""

    ply: int
    seat: int
    move: str
    seconds: float | None


@dataclass(frozen=True)
class FaultRecord:
    """Why a player lost a game by a fault: its name, the fault's kind, the ply it was due at, an excerpt of its
    answer (None if it gave none), the position it was to move in (``State.to_dict`` JSON) and what happened."""

    player: str
    kind: str
    ply: int
    answer: str | None
    position: str | None
    detail: str


@dataclass(frozen=True)
class StoredGame:
    """A game as the store keeps it: its id, event, task index, the players (names) in seat 0 and 1, the winner's
    seat (None: a draw), the seeds each seat captured, the plies, how it ended, the opening (moves of the game's
    notation), the seed of the starting position (None: the game's fixed start) and when it ended (UTC, ISO 8601);
    :meth:`Store.game` adds the moves and the fault. ``unreadable``: None, or (from ``Store.games(...,
    keep_unreadable=True)`` only) why its row cannot be read whole (its stored opening is no JSON list of moves: the
    opening is then empty; a seat names no player of its event: that player is then named ``?``)."""

    id: int
    event: int
    task: int
    players: tuple[str, str]
    winner: int | None
    scores: tuple[int, int]
    plies: int
    end_reason: str
    opening: list[str]
    start_seed: int | None
    ended: str
    moves: list[Move] = field(default_factory=list)
    fault: FaultRecord | None = None
    unreadable: str | None = None

    @property
    def number(self) -> int:
        """The game's number in its event, as every command, log and page shows it: its task index + 1."""
        return self.task + 1


@dataclass(frozen=True)
class Event:
    """A competition in the store: id, kind (tournament, arena, referee), name, game, settings, when it was made and
    the toolkit version that made it (None: a toolkit before the store recorded it). ``unreadable``: None, or (from
    ``Store.events(keep_unreadable=True)`` only) why its settings cannot be read (they are then empty)."""

    id: int
    kind: str
    name: str
    game: str
    settings: dict[str, Any]
    created: str
    toolkit: str | None = None
    unreadable: str | None = None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _insert(db: sqlite3.Connection, table: str, values: dict[str, Any], ignore: bool = False) -> sqlite3.Cursor:
    """Insert one row of ``values`` by column name (``ignore``: nothing if it would break a unique key)."""
    columns = ", ".join(values)
    named = ", ".join(f":{column}" for column in values)
    return db.execute(f"INSERT {'OR IGNORE ' if ignore else ''}INTO {table} ({columns}) VALUES ({named})", values)


def _is_opening(value: Any) -> bool:
    """A stored opening: a list of moves as the game writes them (a version 1 arena wrote action numbers)."""
    return isinstance(value, list) and all(isinstance(m, str | int) and not isinstance(m, bool) for m in value)


#: What each JSON column of the store holds, as an error says it, and the check of a value read from it.
JSON_COLUMNS = {
    ("events", "settings"): ("a JSON object: the event's settings", lambda value: isinstance(value, dict)),
    ("games", "opening"): ('a JSON list of the opening\'s moves as the game writes them (e.g. ["3R", "14B"], or [] '
                           "for none)", _is_opening),
}  # fmt: skip

#: Characters of a stored value that an error quotes.
QUOTED_CHARS = 60


def _json_kind(value: Any) -> str:
    """What a JSON value is, as an error says it: ``a JSON object``, ``a JSON list of ...``, ``JSON null``..."""
    if isinstance(value, list):
        kinds = sorted({_json_kind(item).removeprefix("a JSON ").removeprefix("JSON ") for item in value})
        return f"a JSON list of {', '.join(kinds)}" if kinds else "an empty JSON list"
    if value is None or isinstance(value, bool):
        return f"JSON {json.dumps(value)}"
    names = {dict: "object", str: "string", int: "number", float: "number"}
    return f"a JSON {names.get(type(value), type(value).__name__)}"


def _quoted(value: Any) -> str:
    """``value``'s repr, cut to :data:`QUOTED_CHARS` (its length said): a row can hold megabytes."""
    text = repr(value)
    return text if len(text) <= QUOTED_CHARS else f"{text[:QUOTED_CHARS]}... ({len(str(value))} characters)"


def _damaged(path: Path, row: str, column: str, text: Any, problem: str, holds: str) -> StoreError:
    """The StoreError of a damaged ``row`` (e.g. ``games row 3 (game 3 of event 1)``) of the store at ``path``: its
    ``column`` holds ``text``, which ``problem`` says what is wrong with, and should hold ``holds``."""
    return StoreError(
        f"{path}: {row}, column {column}: {_quoted(text)} {problem}; it should hold {holds} (a damaged or hand-edited "
        "file: restore it from a copy, or give another file)"
    )


def _game_where(row: sqlite3.Row) -> str:
    """The game of a ``games`` row as an error names it: ``game 3 of event 1``."""
    return f"game {row['task'] + 1} of event {row['event']}" if isinstance(row["task"], int) else "a game"


def _players(path: Path, row: sqlite3.Row) -> tuple[str, str]:
    """The names of the players of a ``games`` row of :data:`_GAMES` (``name0``, ``name1``: None where ``player0``
    or ``player1`` names no player of the game's event); StoreError naming the row and the column if one does not."""
    for seat in (0, 1):
        if row[f"name{seat}"] is None:
            raise _damaged(path, f"games row {row['id']} ({_game_where(row)})", f"player{seat}",
                           row[f"player{seat}"], f"names no player of event {row['event']}",
                           f"the id of one of event {row['event']}'s players rows")  # fmt: skip
    return row["name0"], row["name1"]


def _fault_player(path: Path, row: sqlite3.Row, players: tuple[str, str]) -> str:
    """The name of the player at fault in a game of ``players``: ``faulty``, the name of the player its ``faults``
    row's ``player`` (``fault_player``) names (:data:`_FAULTY`); StoreError naming the row and the column if that is
    neither of them."""
    if row["faulty"] not in players:
        raise _damaged(path, f"faults row of games row {row['id']} ({_game_where(row)})", "player",
                       row["fault_player"], "names neither of the game's players",
                       f"the id of {players[0]!r} or {players[1]!r} (players rows {row['player0']} and "
                       f"{row['player1']})")  # fmt: skip
    return row["faulty"]


#: The games ``g`` with their players ``a`` (seat 0) and ``b`` (seat 1): NULL for a seat that names no player of
#: the game's event.
_SEATS = (
    "FROM games g LEFT JOIN players a ON a.id = g.player0 AND a.event = g.event LEFT JOIN players b ON b.id = "
    "g.player1 AND b.event = g.event"
)
#: A game's row and the names of its players (:func:`_players` checks them).
_GAMES = f"SELECT g.*, a.name AS name0, b.name AS name1 {_SEATS}"
#: The name of the player at fault in a game ``g`` with its faults row ``f`` (NULL: none of its event).
_FAULTY = "LEFT JOIN players p ON p.id = f.player AND p.event = g.event"


def _record(cls: type, row: sqlite3.Row, **values: Any) -> Any:
    """An instance of the dataclass ``cls`` from the columns of ``row`` named as its fields (``values`` first)."""
    return cls(**{f.name: values[f.name] if f.name in values else row[f.name] for f in fields(cls) if f.init
                  and (f.name in values or f.name in row.keys())})  # fmt: skip


class Store:
    """An open results store (:func:`open_store`). Close it (or use it as a context manager)."""

    def __init__(self, path: Path, connection: sqlite3.Connection, lock: int | None) -> None:
        self.path, self.connection, self.lock = path, connection, lock

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def close(self) -> None:
        self.connection.close()
        if self.lock is not None:
            os.close(self.lock)  # frees the flock
            self.lock = None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        try:
            with self.connection:
                yield self.connection
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path}: cannot write: {error}") from None

    def _json(self, table: str, row: int, where: str, column: str, text: Any) -> Any:
        """The JSON value ``text`` that ``column`` of row ``row`` of ``table`` (``where``: what the row is) holds;
        StoreError naming the file, the row and the column, what it holds and what it should hold
        (:data:`JSON_COLUMNS`), when it is not JSON or not what that column holds."""
        holds, fits = JSON_COLUMNS[table, column]
        try:
            value = json.loads(text)
        except (TypeError, ValueError) as error:  # not JSON; a number or NULL written in its place
            problem = f"is not JSON ({error})"
        else:
            if fits(value):
                return value
            problem = f"is {_json_kind(value)}"
        raise _damaged(self.path, f"{table} row {row} ({where})", column, text, problem, holds)

    def _settings(self, row: sqlite3.Row) -> dict[str, Any]:
        """The settings of an ``events`` row (StoreError if they are not a JSON object)."""
        return self._json("events", row["id"], f"the {row['kind']} {row['name']!r}", "settings", row["settings"])

    # --- writing ---------------------------------------------------------------------------------------------------

    def event(self, kind: str, name: str, game: str, settings: dict[str, Any], players: list[PlayerEntry],
              resume: bool = True) -> int:  # fmt: skip
        """The id of the event ``kind``/``name`` with these settings and players, made if new (an existing one's
        ``standings`` rows rewritten from its games). An existing event of that name with other settings or players:
        StoreError naming the difference (``resume=False`` makes a new event instead, named ``name`` with a number
        added)."""
        settings_json = json.dumps(settings, sort_keys=True)
        rows = self.connection.execute(
            "SELECT id, kind, name, settings FROM events WHERE kind = ? AND name = ? ORDER BY id", (kind, name)
        ).fetchall()
        if rows and resume:
            event, recorded = rows[-1]["id"], rows[-1]["settings"]
            if recorded != settings_json:
                theirs = self._settings(rows[-1])
                changed = sorted(k for k in {*theirs, *settings} if theirs.get(k) != settings.get(k))
                raise StoreError(
                    f"{self.path} holds the {kind} {name!r} with other settings ({', '.join(changed)} differ): run "
                    "it with its own settings to resume it, or give another --db file"
                )
            known = {player.name: player for player in self.players(event)}
            for player in players:
                if known.get(player.name) != player:
                    what = "is new" if player.name not in known else "runs another program, spec or network file"
                    raise StoreError(
                        f"{self.path}: player {player.name!r} {what} since the {kind} {name!r} started (its games "
                        "would not be comparable): give another --db file to start again"
                    )
            with self._transaction() as db:  # each game adds to the rows: they start from the games, not a hand edit
                _write_standings(db, event, self.path)
            return event
        if rows:
            name = f"{name} #{len(rows) + 1}"
        with self._transaction() as db:
            event = _insert(db, "events", {"kind": kind, "name": name, "game": game, "settings": settings_json,
                                           "created": _now(), "toolkit": __version__}).lastrowid  # fmt: skip
            for player in players:
                _insert(db, "players", {"event": event, **asdict(player)})
            _write_standings(db, event, self.path)
        return event

    def played_tasks(self, event: int) -> set[int]:
        """The task indices of the games ``event`` holds."""
        return {row["task"] for row in self.connection.execute("SELECT task FROM games WHERE event = ?", (event,))}

    def add_game(
        self,
        event: int,
        task: int,
        players: tuple[str, str],
        winner: int | None,
        scores: tuple[int, int],
        plies: int,
        end_reason: str,
        opening: list[str],
        moves: list[Move],
        fault: FaultRecord | None = None,
        start_seed: int | None = None,
    ) -> bool:
        """Record a game with its moves and fault in one transaction; False (and nothing written) if the event holds
        that task already. ``start_seed``: the seed of the starting position (``Game.initial(seed=...)``) where the
        rules leave it to chance."""
        ids = {row["name"]: row["id"] for row in self.connection.execute(
            "SELECT name, id FROM players WHERE event = ?", (event,))}  # fmt: skip
        row = {"event": event, "task": task, "player0": ids[players[0]], "player1": ids[players[1]], "winner": winner,
               "score0": scores[0], "score1": scores[1], "plies": plies, "end_reason": end_reason,
               "opening": json.dumps(opening), "start_seed": start_seed, "ended": _now()}  # fmt: skip
        with self._transaction() as db:
            cursor = _insert(db, "games", row, ignore=True)
            if not cursor.rowcount:
                return False
            game = cursor.lastrowid
            for move in moves:
                _insert(db, "moves", {"game": game, **asdict(move)})
            if fault is not None:
                _insert(db, "faults", {"game": game, **asdict(fault), "player": ids[fault.player]})
            faulty = None if fault is None else (fault.player, fault.kind)
            _add_to_standings(db, event, _outcome(players, winner, faulty))
        return True

    # --- reading -----------------------------------------------------------------------------------------------------

    def _event(self, row: sqlite3.Row, keep_unreadable: bool = False) -> Event:
        """The event of an ``events`` row; StoreError for settings that are no JSON object (``keep_unreadable``: the
        event with its ``unreadable`` reason and no settings instead)."""
        try:
            return _record(Event, row, settings=self._settings(row))
        except StoreError as error:
            if not keep_unreadable:
                raise
            return _record(Event, row, settings={}, unreadable=str(error))

    def events(self, keep_unreadable: bool = False) -> list[Event]:
        """Every event, oldest first. StoreError naming the row for an event whose settings are no JSON object;
        ``keep_unreadable``: such an event is in the list with its ``unreadable`` reason, so that one bad row hides
        no other event."""
        rows = self.connection.execute("SELECT * FROM events ORDER BY id")
        return [self._event(row, keep_unreadable) for row in rows]

    def latest_event(self, kind: str | None = None) -> Event:
        """The last event (of ``kind``); StoreError if there is none (or if its row cannot be read; the others are
        not read)."""
        where, values = ("", ()) if kind is None else (" WHERE kind = ?", (kind,))
        row = self.connection.execute(f"SELECT * FROM events{where} ORDER BY id DESC LIMIT 1", values).fetchone()
        if row is None:
            raise StoreError(f"{self.path} holds no {kind or 'event'} yet")
        return self._event(row)

    def players(self, event: int) -> list[PlayerEntry]:
        """The players of ``event`` in the order they were entered."""
        rows = self.connection.execute("SELECT * FROM players WHERE event = ? ORDER BY id", (event,))
        return [_record(PlayerEntry, row) for row in rows]

    def _game_row(self, row: sqlite3.Row, keep_unreadable: bool = False) -> StoredGame:
        """The game of a ``games`` row; StoreError for an opening that is no JSON list of moves or a seat that names
        no player of its event (``keep_unreadable``: the game with its ``unreadable`` reason instead)."""
        opening, unreadable = [], None
        try:
            opening = self._json("games", row["id"], _game_where(row), "opening", row["opening"])
            _players(self.path, row)
        except StoreError as error:
            if not keep_unreadable:
                raise
            unreadable = str(error)
        return _record(StoredGame, row, players=(row["name0"] or "?", row["name1"] or "?"), opening=opening,
                       scores=(row["score0"], row["score1"]), unreadable=unreadable)  # fmt: skip

    def games(self, event: int | None = None, keep_unreadable: bool = False) -> list[StoredGame]:
        """The games (of ``event``, else all) in task order, without their moves. StoreError naming the row for a
        game whose row cannot be read (its opening no JSON list of moves, a seat naming no player of its event);
        ``keep_unreadable``: such a game is in the list with its ``unreadable`` reason, so that one bad row hides no
        other game."""
        if event is None:
            rows = self.connection.execute(_GAMES + " ORDER BY g.event, g.task")
        else:
            rows = self.connection.execute(_GAMES + " WHERE g.event = ? ORDER BY g.task", (event,))
        return [self._game_row(row, keep_unreadable) for row in rows]

    def game(self, game_id: int) -> StoredGame:
        """One game with its moves (and their seconds) and its fault; KeyError if there is no such game, StoreError
        naming the row if it cannot be read."""
        row = self.connection.execute(_GAMES + " WHERE g.id = ?", (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id} in {self.path}")
        game = self._game_row(row)
        moves = [_record(Move, m) for m in self.connection.execute(
            "SELECT * FROM moves WHERE game = ? ORDER BY ply", (game_id,))]  # fmt: skip
        fault_row = self.connection.execute(
            "SELECT g.id, g.task, g.event, g.player0, g.player1, f.player AS fault_player, p.name AS faulty, f.kind, "
            f"f.ply, f.answer, f.position, f.detail FROM faults f JOIN games g ON g.id = f.game {_FAULTY} WHERE "
            "f.game = ?",
            (game_id,),
        ).fetchone()
        fault = None
        if fault_row is not None:
            fault = _record(FaultRecord, fault_row, player=_fault_player(self.path, fault_row, game.players))
        return replace(game, moves=moves, fault=fault)

    def game_numbered(self, event: int, number: int) -> StoredGame:
        """Game ``number`` (task index + 1) of ``event`` with its moves and fault; KeyError if there is none."""
        row = self.connection.execute("SELECT id FROM games WHERE event = ? AND task = ?", (event, number - 1))
        found = row.fetchone()
        if found is None:
            raise KeyError(f"no game {number} in event {event} of {self.path}")
        return self.game(found["id"])

    def standings(self, event: int, prior_draws: float = 1.0) -> list[Standing]:
        """The standings of ``event``, best points first (then Elo): W-D-L, faults by kind, Elo with 95 %
        intervals (:func:`competition.ratings.tally`)."""
        return sorted(_tally(self.connection, event, self.path, prior_draws).standings,
                      key=lambda r: (-r.points, -r.elo))  # fmt: skip


def _tally(db: sqlite3.Connection, event: int, path: Path, prior_draws: float = 1.0) -> Table:
    """:func:`competition.ratings.tally` of the games of ``event`` in ``db`` (the store at ``path``): the one tally
    of every standings. StoreError naming the row for a game that names no player of the event in a seat or at
    fault: whose result it is cannot be told."""
    players = [row["name"] for row in db.execute("SELECT name FROM players WHERE event = ? ORDER BY id", (event,))]
    rows = db.execute(
        "SELECT g.*, a.name AS name0, b.name AS name1, f.kind, f.player AS fault_player, p.name AS faulty "
        f"{_SEATS} LEFT JOIN faults f ON f.game = g.id {_FAULTY} WHERE g.event = ? ORDER BY g.task",
        (event,),
    )
    outcomes = []
    for row in rows:
        seats = _players(path, row)
        fault = None if row["kind"] is None else (_fault_player(path, row, seats), row["kind"])
        outcomes.append(_outcome(seats, row["winner"], fault))
    return tally(players, outcomes, prior_draws)


def _outcome(players: tuple[str, str], winner: int | None, fault: tuple[str, str] | None) -> Outcome:
    """A stored game's :class:`Outcome` from its players, winner's seat and fault (the player at fault, its kind)."""
    return Outcome(players, winner, None if fault is None else (players.index(fault[0]), fault[1]))


#: The columns of a ``standings`` row that count games (what a game adds to).
_COUNTS = ("games", "points", "wins", "draws", "losses", "faults")


def _standings_row(event: int, standing: Standing) -> dict[str, Any]:
    """The ``standings`` row of ``standing`` in ``event``, by column name."""
    counts = (standing.games, standing.points, standing.wins, standing.draws, standing.losses)
    return {"event": event, "player": standing.player, **dict(zip(_COUNTS, (*counts, sum(standing.faults.values()))))}


def _write_standings(db: sqlite3.Connection, event: int, path: Path) -> None:
    """Rewrite the ``standings`` rows of ``event`` from :func:`_tally` of all its games (in the caller's
    transaction)."""
    db.execute("DELETE FROM standings WHERE event = ?", (event,))
    for standing in _tally(db, event, path).standings:
        _insert(db, "standings", _standings_row(event, standing))


def _add_to_standings(db: sqlite3.Connection, event: int, outcome: Outcome) -> None:
    """Add one game to the ``standings`` rows of its two players: the tally of that game alone, summed into the rows
    (in the game's transaction), so that a game costs the same whatever the event holds already."""
    added = ", ".join(f"{column} = {column} + :{column}" for column in _COUNTS)
    for standing in tally(list(outcome.players), [outcome]).standings:
        db.execute(f"UPDATE standings SET {added} WHERE event = :event AND player = :player",
                   _standings_row(event, standing))  # fmt: skip


def _write_all_standings(db: sqlite3.Connection, path: Path) -> None:
    """Rewrite the ``standings`` rows of every event from its games: what a schema migration fills after its SQL."""
    for row in db.execute("SELECT id FROM events").fetchall():
        _write_standings(db, row["id"], path)


def open_store(path: str | Path, write: bool = False) -> Store:
    """Open the results store at ``path``: for writing (``write=True``: made if missing, locked against other
    writers, StoreBusy if one holds it; an older file migrated) or for reading (StoreError if missing; an older file
    read through a migrated copy in memory). StoreError for a file that is not a results store (corrupt, or another
    program's database) or one of a later toolkit, naming it."""
    path = Path(path)
    if path.is_dir():
        raise StoreError(f"{path} is a directory; a results store is a file (e.g. {path / 'results.db'})")
    if not write and not path.is_file():
        raise StoreError(f"{path}: no such results store")
    lock = None
    created = write and not path.exists()
    try:
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
            lock = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreBusy(f"{path} is being written by another process (a tournament running on it): wait for "
                                "it to end, or give another --db file") from None  # fmt: skip
        uri = path.resolve().as_uri() + ("" if write else "?mode=ro")
        connection = up_to_date(
            path,
            sqlite3.connect(uri, uri=True, timeout=30, isolation_level="DEFERRED"),
            write,
            lambda db: _write_all_standings(db, path),
        )
    except BaseException as error:
        if lock is not None:
            if created:  # under our lock: nobody else uses the half-made file
                _discard(path)
            os.close(lock)
        if isinstance(error, OSError):
            raise StoreError(f"{path}: cannot open: {error.strerror or error}") from None
        raise
    return Store(path, connection, lock)


def _discard(path: Path) -> None:
    """Remove a store this process began to make and could not finish, with SQLite's journal."""
    for leftover in (path, path.with_name(path.name + "-journal")):
        leftover.unlink(missing_ok=True)
