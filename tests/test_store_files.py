"""Results stores written by earlier toolkits open and read as they were written, brought up to date by the store's
migrations (docs/tournament.md): the file in tests/data was made with the schema of 2026-11-27 (version 1) and is
never regenerated."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from awale_env import __version__
from competition.store import MIGRATIONS, VERSION, PlayerEntry, StoreError, open_store

VERSION_1 = Path(__file__).parent / "data" / "tournament_v1.db"


@pytest.fixture(params=[False, True], ids=["read", "write"])
def store(request, tmp_path):
    copy = tmp_path / "tournament.db"
    shutil.copyfile(VERSION_1, copy)
    with open_store(copy, write=request.param) as opened:
        yield opened


def test_version_1_events_games_and_faults(store):
    assert [(e.kind, e.name, e.game) for e in store.events()] == [
        ("tournament", "class 2025", "awale16_2025"), ("arena", "arena", "oware"), ("referee", "referee", "kalah")
    ]  # fmt: skip
    tournament, arena, referee = store.events()
    assert tournament.settings == {"seconds": 2.0, "games": 4}
    assert [p.name for p in store.players(tournament.id)] == ["alice", "bob", "late"]
    assert store.players(tournament.id)[0].digest == "ab" * 32
    games = store.games(tournament.id)
    assert [(g.players, g.winner, g.scores, g.end_reason) for g in games] == [
        (("alice", "bob"), 0, (40, 20), "captures"), (("bob", "alice"), None, (32, 32), "max_plies"),
        (("alice", "bob"), 1, (10, 12), "timeout"),
    ]  # fmt: skip
    first = store.game_numbered(tournament.id, 1)
    assert [(m.ply, m.seat, m.move, m.seconds) for m in first.moves] == [
        (1, 0, "1R", None), (2, 1, "2B", 0.5), (3, 0, "3R", 1.25)
    ]  # fmt: skip
    assert first.opening == ["1R"] and first.fault is None
    fault = store.game_numbered(tournament.id, 3).fault
    assert (fault.player, fault.kind, fault.ply, fault.answer, fault.detail) == (
        "alice", "timeout", 3, None, "no answer in 2 s")  # fmt: skip
    kalah = store.game_numbered(referee.id, 1)
    assert [m.seat for m in kalah.moves] == [0, 0, 1] and kalah.start_seed == 7
    assert store.games(arena.id)[0].opening == [3, 4]


def test_version_1_standings(store):
    tournament = store.events()[0]
    rows = {row.player: row for row in store.standings(tournament.id)}
    assert (rows["alice"].wins, rows["alice"].draws, rows["alice"].losses) == (1, 1, 1)
    assert rows["alice"].faults == {"timeout": 1} and rows["bob"].points == 1.5
    assert rows["late"].games == 0
    query = "SELECT player, games, points, wins, draws, losses, faults FROM standings WHERE event = ? ORDER BY player"
    view = [tuple(row) for row in store.connection.execute(query, (tournament.id,))]
    assert view == [("alice", 3, 1.5, 1, 1, 1, 1), ("bob", 3, 1.5, 1, 1, 1, 0), ("late", 0, 0.0, 0, 0, 0, 0)]


def version(path: Path) -> str:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()[0]


def test_reading_an_older_file_leaves_it_as_it_was_and_writing_migrates_it_in_place(tmp_path):
    assert VERSION == 1 + len(MIGRATIONS) > 1
    path = tmp_path / "old.db"
    shutil.copyfile(VERSION_1, path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with open_store(path) as store:
        assert all(event.toolkit is None for event in store.events())
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before and version(path) == "1"
    with open_store(path, write=True) as store:
        event = store.event("arena", "new", "oware", {}, [PlayerEntry("a", "agent", "random")])
        assert [e.toolkit for e in store.events()] == [None, None, None, __version__]
        assert len(store.games(store.events()[0].id)) == 3 and store.players(event)[0].spec == "random"
    assert version(path) == str(VERSION)
    with open_store(path) as store:  # now current: read from the file itself
        assert store.events()[-1].toolkit == __version__ and len(store.games()) == 5


def test_a_new_store_is_made_at_the_current_version_by_the_same_migrations(tmp_path):
    with open_store(tmp_path / "new.db", write=True) as store:
        store.event("arena", "a", "oware", {"seed": 1}, [])
    assert version(tmp_path / "new.db") == str(VERSION)
    with sqlite3.connect(tmp_path / "new.db") as new, sqlite3.connect(":memory:") as migrated:
        with sqlite3.connect(VERSION_1) as old:
            old.backup(migrated)
        with open_store(VERSION_1) as store:  # the copy in memory a reader gets
            assert [tuple(row) for row in store.connection.execute("SELECT * FROM meta ORDER BY key")] == [
                ("format", "awale results store"), ("version", str(VERSION))]  # fmt: skip

        def schema(connection):
            return sorted(
                connection.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
            )

        for migration in MIGRATIONS:
            migrated.executescript(migration)
        assert schema(new) == schema(migrated)


def test_a_file_of_a_later_toolkit_is_refused_naming_both_versions(tmp_path):
    path = tmp_path / "later.db"
    shutil.copyfile(VERSION_1, path)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE meta SET value = '99' WHERE key = 'version'")
    for write in (False, True):
        with pytest.raises(
            StoreError, match=f"version '99' \\(made by a later toolkit\\): this toolkit reads versions 1 to {VERSION}"
        ):
            open_store(path, write=write)
    assert version(path) == "99"
