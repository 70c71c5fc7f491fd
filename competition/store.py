"""The results store: one SQLite file (stdlib ``sqlite3``) where tournaments (``awale tournament``), arena round robins
(``awale arena --db``) and referee matches (``awale referee --db``) keep every game, so that every result of the
toolkit can land in one place and be read back without the toolkit (docs/tournament.md shows the SQL).

Tables (:data:`TABLES`, :data:`STANDINGS_VIEW`): ``meta`` (the file's format and version), ``events`` (one
competition each: its kind, ``tournament`` / ``arena`` / ``referee``, its name and its settings as JSON),
``players`` (per event: name, kind ``command`` / ``agent``, the command or spec, and the SHA-256 of the command's
executable or the agent's network file), ``games`` (per event and task index: the players in each seat, the winner's
seat, the seeds each seat captured, the plies, how it ended, the opening, the starting position's seed and when it
ended), ``moves`` (every move of a game with its ply, seat and seconds), ``faults`` (the game a player lost by a
fault: its kind, ply, answer, position and what happened), and the view ``standings`` (points, wins, draws, losses
and faults per player of each event). Seats: 0 is JoueurA (who moves first) in refereed games and tournaments, the
rules' player 0 in the arena.

Writing: a game, its moves and its fault go in one transaction, and ``(event, task)`` is unique, so a process killed
at any moment leaves whole games only, and a resume adds the missing ones and never one twice. A writer holds an
exclusive lock on the file (``flock``, freed by the system however the writer ends): a second writer is refused with
:class:`StoreBusy`. Readers take no lock of ours (SQLite's own, held while a
game is written, makes them wait a moment).

Reading (the API of the web page and of ``awale tournament standings``): :meth:`Store.events`,
:meth:`Store.games`, :meth:`Store.game` (one game's moves with their times, and its fault), :meth:`Store.standings`
(:class:`competition.ratings.Standing` rows with Bradley-Terry Elo and 95 % intervals).
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from competition.ratings import Outcome, Standing, tally

#: What the ``meta`` table says this file is, and the schema version this module writes and reads.
FORMAT = "awale results store"
VERSION = 1
#: The fault kinds a game can be lost by (docs/tournament.md).
FAULT_KINDS = ("illegal", "malformed", "timeout", "crash", "extra_output", "false_result")

TABLES = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('tournament', 'arena', 'referee')),
    name TEXT NOT NULL,
    game TEXT NOT NULL,
    settings TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE players (
    id INTEGER PRIMARY KEY,
    event INTEGER NOT NULL REFERENCES events(id),
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('command', 'agent')),
    spec TEXT NOT NULL,
    digest TEXT,
    UNIQUE (event, name)
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    event INTEGER NOT NULL REFERENCES events(id),
    task INTEGER NOT NULL,
    player0 INTEGER NOT NULL REFERENCES players(id),
    player1 INTEGER NOT NULL REFERENCES players(id),
    winner INTEGER CHECK (winner IN (0, 1)),
    score0 INTEGER NOT NULL,
    score1 INTEGER NOT NULL,
    plies INTEGER NOT NULL,
    end_reason TEXT NOT NULL,
    opening TEXT NOT NULL,
    start_seed INTEGER,
    ended TEXT NOT NULL,
    UNIQUE (event, task)
);
CREATE TABLE moves (
    game INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    move TEXT NOT NULL,
    seconds REAL,
    PRIMARY KEY (game, ply)
);
CREATE TABLE faults (
    game INTEGER PRIMARY KEY REFERENCES games(id),
    player INTEGER NOT NULL REFERENCES players(id),
    kind TEXT NOT NULL,
    ply INTEGER NOT NULL,
    answer TEXT,
    position TEXT,
    detail TEXT NOT NULL
);
"""
#: The standings view (a player without a game has 0 games and 0 points): remade whenever a store is opened for
#: writing, so that a file made by an earlier toolkit gets it too.
STANDINGS_VIEW = """
DROP VIEW IF EXISTS standings;
CREATE VIEW standings AS
SELECT p.event AS event, p.name AS player,
       COUNT(g.id) AS games,
       SUM(CASE WHEN g.id IS NULL THEN 0.0 WHEN g.winner IS NULL THEN 0.5
                WHEN (g.winner = 0) = (g.player0 = p.id) THEN 1.0 ELSE 0.0 END) AS points,
       SUM(g.winner IS NOT NULL AND (g.winner = 0) = (g.player0 = p.id)) AS wins,
       SUM(g.id IS NOT NULL AND g.winner IS NULL) AS draws,
       SUM(g.winner IS NOT NULL AND (g.winner = 0) != (g.player0 = p.id)) AS losses,
       (SELECT COUNT(*) FROM faults f WHERE f.player = p.id) AS faults
FROM players p LEFT JOIN games g ON g.event = p.event AND p.id IN (g.player0, g.player1)
GROUP BY p.id;
"""


class StoreError(ValueError):
    """A file that is not a results store of this version (corrupt, foreign), or settings that do not match."""


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
    :meth:`Store.game` adds the moves and the fault."""

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

    @property
    def number(self) -> int:
        """The game's number in its event, as every command, log and page shows it: its task index + 1."""
        return self.task + 1


@dataclass(frozen=True)
class Event:
    """A competition in the store: id, kind (tournament, arena, referee), name, game and settings."""

    id: int
    kind: str
    name: str
    game: str
    settings: dict[str, Any]
    created: str


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


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

    # --- writing ---------------------------------------------------------------------------------------------------

    def event(self, kind: str, name: str, game: str, settings: dict[str, Any], players: list[PlayerEntry],
              resume: bool = True) -> int:  # fmt: skip
        """The id of the event ``kind``/``name`` with these settings and players, made if new. An existing event of
        that name with other settings or players: StoreError naming the difference (``resume=False`` makes a new
        event instead, named ``name`` with a number added)."""
        settings_json = json.dumps(settings, sort_keys=True)
        rows = self.connection.execute(
            "SELECT id, settings FROM events WHERE kind = ? AND name = ? ORDER BY id", (kind, name)
        ).fetchall()
        if rows and resume:
            event, recorded = rows[-1]
            if recorded != settings_json:
                theirs = json.loads(recorded)
                changed = sorted(k for k in {*theirs, *settings} if theirs.get(k) != settings.get(k))
                raise StoreError(
                    f"{self.path} holds the {kind} {name!r} with other settings ({', '.join(changed)} differ): run "
                    "it with its own settings to resume it, or give another --db file"
                )
            known = {
                row[0]: PlayerEntry(*row)
                for row in self.connection.execute(
                    "SELECT name, kind, spec, digest FROM players WHERE event = ?", (event,)
                )
            }
            for player in players:
                if known.get(player.name) != player:
                    what = "is new" if player.name not in known else "runs another program, spec or network file"
                    raise StoreError(
                        f"{self.path}: player {player.name!r} {what} since the {kind} {name!r} started (its games "
                        "would not be comparable): give another --db file to start again"
                    )
            return event
        if rows:
            name = f"{name} #{len(rows) + 1}"
        with self._transaction() as db:
            event = db.execute(
                "INSERT INTO events (kind, name, game, settings, created) VALUES (?, ?, ?, ?, ?)",
                (kind, name, game, settings_json, _now()),
            ).lastrowid
            db.executemany(
                "INSERT INTO players (event, name, kind, spec, digest) VALUES (?, ?, ?, ?, ?)",
                [(event, p.name, p.kind, p.spec, p.digest) for p in players],
            )
        return event

    def played_tasks(self, event: int) -> set[int]:
        """The task indices of the games ``event`` holds."""
        return {row[0] for row in self.connection.execute("SELECT task FROM games WHERE event = ?", (event,))}

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
        ids = dict(self.connection.execute("SELECT name, id FROM players WHERE event = ?", (event,)).fetchall())
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO games (event, task, player0, player1, winner, score0, score1, plies, end_reason,"
                " opening, start_seed, ended) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (event, task, ids[players[0]], ids[players[1]], winner, scores[0], scores[1], plies, end_reason,
                 json.dumps(opening), start_seed, _now()),
            )  # fmt: skip
            if not cursor.rowcount:
                return False
            game = cursor.lastrowid
            db.executemany(
                "INSERT INTO moves (game, ply, seat, move, seconds) VALUES (?, ?, ?, ?, ?)",
                [(game, m.ply, m.seat, m.move, m.seconds) for m in moves],
            )
            if fault is not None:
                db.execute(
                    "INSERT INTO faults (game, player, kind, ply, answer, position, detail)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (game, ids[fault.player], fault.kind, fault.ply, fault.answer, fault.position, fault.detail),
                )
        return True

    # --- reading -----------------------------------------------------------------------------------------------------

    def events(self) -> list[Event]:
        """Every event, oldest first."""
        rows = self.connection.execute("SELECT id, kind, name, game, settings, created FROM events ORDER BY id")
        return [Event(i, kind, name, game, json.loads(settings), created) for i, kind, name, game, settings, created
                in rows]  # fmt: skip

    def latest_event(self, kind: str | None = None) -> Event:
        """The last event (of ``kind``); StoreError if there is none."""
        events = [e for e in self.events() if kind is None or e.kind == kind]
        if not events:
            raise StoreError(f"{self.path} holds no {kind or 'event'} yet")
        return events[-1]

    def players(self, event: int) -> list[PlayerEntry]:
        """The players of ``event`` in the order they were entered."""
        rows = self.connection.execute(
            "SELECT name, kind, spec, digest FROM players WHERE event = ? ORDER BY id", (event,)
        )
        return [PlayerEntry(*row) for row in rows]

    _GAMES = (
        "SELECT g.id, g.event, g.task, a.name, b.name, g.winner, g.score0, g.score1, g.plies, g.end_reason, g.opening,"
        " g.start_seed, g.ended FROM games g JOIN players a ON a.id = g.player0 JOIN players b ON b.id = g.player1"
    )

    @staticmethod
    def _game_row(row: tuple) -> StoredGame:
        id_, event, task, a, b, winner, s0, s1, plies, end_reason, opening, start_seed, ended = row
        return StoredGame(id_, event, task, (a, b), winner, (s0, s1), plies, end_reason, json.loads(opening),
                          start_seed, ended)  # fmt: skip

    def games(self, event: int | None = None) -> list[StoredGame]:
        """The games (of ``event``, else all) in task order, without their moves."""
        if event is None:
            rows = self.connection.execute(self._GAMES + " ORDER BY g.event, g.task")
        else:
            rows = self.connection.execute(self._GAMES + " WHERE g.event = ? ORDER BY g.task", (event,))
        return [self._game_row(row) for row in rows]

    def game(self, game_id: int) -> StoredGame:
        """One game with its moves (and their seconds) and its fault; KeyError if there is no such game."""
        row = self.connection.execute(self._GAMES + " WHERE g.id = ?", (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id} in {self.path}")
        moves = [Move(*m) for m in self.connection.execute(
            "SELECT ply, seat, move, seconds FROM moves WHERE game = ? ORDER BY ply", (game_id,))]  # fmt: skip
        fault_row = self.connection.execute(
            "SELECT p.name, f.kind, f.ply, f.answer, f.position, f.detail FROM faults f JOIN players p ON p.id = "
            "f.player WHERE f.game = ?",
            (game_id,),
        ).fetchone()
        game = self._game_row(row)
        return StoredGame(**{**game.__dict__, "moves": moves, "fault": FaultRecord(*fault_row) if fault_row else None})

    def game_numbered(self, event: int, number: int) -> StoredGame:
        """Game ``number`` (task index + 1) of ``event`` with its moves and fault; KeyError if there is none."""
        row = self.connection.execute("SELECT id FROM games WHERE event = ? AND task = ?", (event, number - 1))
        found = row.fetchone()
        if found is None:
            raise KeyError(f"no game {number} in event {event} of {self.path}")
        return self.game(found[0])

    def standings(self, event: int, prior_draws: float = 1.0) -> list[Standing]:
        """The standings of ``event``, best points first (then Elo): W-D-L, faults by kind, Elo with 95 %
        intervals (:func:`competition.ratings.tally`)."""
        faults = {game: (name, kind) for game, name, kind in self.connection.execute(
            "SELECT f.game, p.name, f.kind FROM faults f JOIN players p ON p.id = f.player JOIN games g ON g.id = "
            "f.game WHERE g.event = ?", (event,))}  # fmt: skip
        outcomes = []
        for game in self.games(event):
            fault = faults.get(game.id)
            at_fault = None if fault is None else (game.players.index(fault[0]), fault[1])
            outcomes.append(Outcome(game.players, game.winner, at_fault))
        table = tally([p.name for p in self.players(event)], outcomes, prior_draws)
        return sorted(table.standings, key=lambda r: (-r.points, -r.elo))


def open_store(path: str | Path, write: bool = False) -> Store:
    """Open the results store at ``path``: for writing (``write=True``: made if missing, locked against other
    writers, StoreBusy if one holds it) or for reading (StoreError if missing). StoreError for a file that is not a
    results store of this version (corrupt, or another program's database), naming it."""
    path = Path(path)
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
        connection = sqlite3.connect(uri, uri=True, timeout=30, isolation_level="DEFERRED")
        _check_schema(path, connection, write)
    except BaseException as error:
        if lock is not None:
            if created:  # under our lock: nobody else uses the half-made file
                _discard(path)
            os.close(lock)
        if isinstance(error, OSError):
            raise StoreError(f"{path}: cannot open: {error.strerror or error}") from None
        raise
    return Store(path, connection, lock)


def _check_schema(path: Path, connection: sqlite3.Connection, write: bool) -> None:
    """Make the schema in a new file; check an existing one's format and version. StoreError otherwise."""
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables and write:
            _create(path, connection)
            return
        meta = dict(connection.execute("SELECT key, value FROM meta").fetchall()) if "meta" in tables else {}
        if write and meta.get("format") == FORMAT and meta.get("version") == str(VERSION):
            connection.executescript(f"BEGIN; {STANDINGS_VIEW} COMMIT;")
    except sqlite3.DatabaseError as error:
        connection.close()
        raise StoreError(f"{path} is not a results store: {error} (a corrupt or foreign file?)") from None
    if meta.get("format") != FORMAT:
        connection.close()
        raise StoreError(f"{path} is an SQLite database of another program, not an awale results store")
    if meta.get("version") != str(VERSION):
        connection.close()
        raise StoreError(f"{path} is a results store of version {meta.get('version')!r}; this toolkit reads {VERSION}")


def _create(path: Path, connection: sqlite3.Connection) -> None:
    """The schema and the ``meta`` rows in a new file, in one transaction: a failure (a full disk) leaves no table
    behind. StoreError naming the file and the cause."""
    meta = f"INSERT INTO meta (key, value) VALUES ('format', '{FORMAT}'), ('version', '{VERSION}');"
    try:
        connection.executescript(f"BEGIN; {TABLES} {STANDINGS_VIEW} {meta} COMMIT;")
    except sqlite3.DatabaseError as error:
        connection.close()
        raise StoreError(f"{path}: cannot create the results store: {error}") from None


def _discard(path: Path) -> None:
    """Remove a store this process began to make and could not finish, with SQLite's journal."""
    for leftover in (path, path.with_name(path.name + "-journal")):
        leftover.unlink(missing_ok=True)
