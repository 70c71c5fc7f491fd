"""The results store's schema (competition/store.py): the tables as version 1 made them, the migrations since, and
bringing a file up to date (a new file made, an older one migrated in place or in a copy in memory, a foreign or later
one refused), so that the store itself only reads and writes rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

#: What the ``meta`` table says this file is.
FORMAT = "awale results store"

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
#: The changes of the schema since version 1, in order: the k-th (from 0) brings a file of version k + 1 to version
#: k + 2. Append only; a new store is made as version 1 and brought up by all of them, as an older file is.
#: A migration's rows are filled by the store after its SQL, in the same transaction: the ``standings`` table of every
#: event is rewritten from its games (:func:`competition.store._write_standings`) whenever a file is brought up to date.
MIGRATIONS = (
    # version 2: the toolkit version that made each event (NULL for the events of a version 1 file)
    "ALTER TABLE events ADD COLUMN toolkit TEXT;",
    # version 3: the standings as a table the store writes from the one tally (was a view counting in SQL)
    """DROP VIEW IF EXISTS standings;
CREATE TABLE standings (
    event INTEGER NOT NULL REFERENCES events(id),
    player TEXT NOT NULL,
    games INTEGER NOT NULL,
    points REAL NOT NULL,
    wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    faults INTEGER NOT NULL,
    PRIMARY KEY (event, player)
);""",
)
#: The schema version this module writes and reads.
VERSION = 1 + len(MIGRATIONS)


class StoreError(ValueError):
    """A file that is not a results store of this version (corrupt, foreign), or settings that do not match."""


def up_to_date(
    path: Path, connection: sqlite3.Connection, write: bool, fill: Callable[[sqlite3.Connection], None]
) -> sqlite3.Connection:
    """The connection to read and write ``path`` at :data:`VERSION`: the schema made in a new file, an older file
    migrated (in place for writing, in a copy in memory for reading), ``fill`` writing the rows the store derives after
    the schema's SQL, in its transaction. StoreError (the connection closed) for a file
    that is not a results store, or one of a later toolkit."""
    connection.row_factory = sqlite3.Row
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables and write:
            try:
                _run(connection, f"{TABLES} {_meta(1)} {_migrations(1)}", fill)
            except StoreError as error:
                raise StoreError(f"{path}: cannot create the results store: {error}") from None
            return connection
        meta = dict(connection.execute("SELECT key, value FROM meta").fetchall()) if "meta" in tables else {}
    except sqlite3.DatabaseError as error:
        connection.close()
        raise StoreError(f"{path} is not a results store: {error} (a corrupt or foreign file?)") from None
    if meta.get("format") != FORMAT:
        connection.close()
        raise StoreError(f"{path} is an SQLite database of another program, not an awale results store")
    version = str(meta.get("version", ""))
    if not version.isdigit() or not 1 <= int(version) <= VERSION:
        connection.close()
        later = "made by a later toolkit" if version.isdigit() and int(version) > VERSION else "an unknown version"
        raise StoreError(f"{path} is a results store of version {version!r} ({later}): this toolkit reads versions "
                         f"1 to {VERSION}; a later awale_env may read it")  # fmt: skip
    if not write and int(version) < VERSION:
        memory = sqlite3.connect(":memory:", isolation_level="DEFERRED")
        connection.backup(memory)
        connection.close()
        connection = memory
        connection.row_factory = sqlite3.Row
    if int(version) < VERSION:
        try:
            _run(connection, _migrations(int(version)), fill)
        except StoreError as error:
            cause = str(error).removeprefix(f"{path}: ")  # a damaged row's error names the file too
            raise StoreError(f"{path}: cannot bring the results store from version {version} to {VERSION}: "
                             f"{cause}") from None  # fmt: skip
    return connection


def _meta(version: int) -> str:
    """The ``meta`` rows of a new file at ``version``."""
    return f"INSERT INTO meta (key, value) VALUES ('format', '{FORMAT}'), ('version', '{version}');"


def _migrations(version: int) -> str:
    """The SQL that brings a file of ``version`` to :data:`VERSION` (nothing for a file at it)."""
    steps = " ".join(MIGRATIONS[version - 1 :])
    return f"{steps} UPDATE meta SET value = '{VERSION}' WHERE key = 'version';" if steps else ""


def _run(connection: sqlite3.Connection, script: str, fill: Callable[[sqlite3.Connection], None]) -> None:
    """``script`` in one transaction, then ``fill`` (the standings of every event written from their games): all of
    it or nothing. StoreError (the connection closed, the cause chained) if it fails, as on a full disk or a game
    whose row ``fill`` cannot read."""
    try:
        connection.executescript(f"BEGIN; {script}")
        fill(connection)
        connection.commit()
    except (sqlite3.DatabaseError, StoreError) as error:
        connection.rollback()
        connection.close()
        raise StoreError(str(error)) from error
