"""Results stores written by earlier toolkits open and read as they were written, brought up to date by the store's
migrations (docs/tournament.md): the file in tests/data was made with the schema of 2026-11-27 (version 1) and is
never regenerated."""

from __future__ import annotations

import hashlib
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from awale_apps.cli import app as cli_app
from awale_env import __version__
from competition.ratings import Outcome, tally
from competition.store import FaultRecord, PlayerEntry, StoreError, open_store
from competition.store_schema import MIGRATIONS, VERSION

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


COLUMNS = "player, games, points, wins, draws, losses, faults"


def sql_standings(connection: sqlite3.Connection, event: int) -> dict[str, tuple]:
    """The ``standings`` table's rows of ``event`` as plain SQL reads them."""
    rows = connection.execute(f"SELECT {COLUMNS} FROM standings WHERE event = ?", (event,))
    return {row[0]: tuple(row[1:]) for row in rows}


def tallied(players: list[str], outcomes: list[Outcome]) -> dict[str, tuple]:
    """What the one tally (competition.ratings.tally) makes of ``outcomes``, in the table's columns."""
    rows = tally(players, outcomes).standings
    return {r.player: (r.games, r.points, r.wins, r.draws, r.losses, sum(r.faults.values())) for r in rows}


def test_the_standings_table_is_the_tally_after_every_game_of_an_event_resumed_too(tmp_path):
    """Each game, its fault and its event's standings rows go in one transaction: after every game (a win, a draw, a
    fault by either seat) the table holds what the tally makes of the games so far, a player without a game
    included; a resumed event goes on from the file's rows, and a reader sees the same."""
    path, names = tmp_path / "event.db", ["a", "b", "idle"]
    entries = [PlayerEntry(name, "agent", "random") for name in names]
    games = [(("a", "b"), 0, None), (("b", "a"), None, None), (("a", "b"), 1, ("a", "timeout")),
             (("b", "a"), 1, ("b", "illegal")), (("a", "b"), 0, None), (("b", "a"), 0, ("a", "crash"))]  # fmt: skip
    outcomes: list[Outcome] = []
    for half in (games[:3], games[3:]):
        with open_store(path, write=True) as store:
            event = store.event("tournament", "t", "oware", {"games": 6}, entries)
            assert sql_standings(store.connection, event) == tallied(names, outcomes)
            for players, winner, fault in half:
                record = None if fault is None else FaultRecord(fault[0], fault[1], 5, None, None, "lost")
                assert store.add_game(event, len(outcomes), players, winner, (20, 20), 30, "x", [], [], record)
                outcomes.append(Outcome(players, winner, fault and (players.index(fault[0]), fault[1])))
                assert sql_standings(store.connection, event) == tallied(names, outcomes)
            assert not store.add_game(event, 0, ("a", "b"), 1, (0, 0), 1, "x", [], [])  # no game twice
            assert sql_standings(store.connection, event) == tallied(names, outcomes)
    assert tallied(names, outcomes)["a"] == (6, 3.5, 3, 1, 2, 2)
    with open_store(path) as store, sqlite3.connect(path) as plain:
        assert sql_standings(store.connection, event) == sql_standings(plain, event) == tallied(names, outcomes)


def test_a_hand_edited_standings_table_changes_nothing_shown_and_a_resume_rewrites_it_from_the_games(tmp_path):
    """The toolkit never reads the table back (its standings count the games); a resume rewrites the event's rows
    before adding to them, so that a changed or deleted row does not carry on into the file's standings."""
    path, names = tmp_path / "edited.db", ["a", "b"]
    entries = [PlayerEntry(name, "agent", "random") for name in names]
    games = [(("a", "b"), 0, None), (("b", "a"), 0, None)]
    with open_store(path, write=True) as store:
        event = store.event("tournament", "t", "oware", {"games": 2}, entries)
        store.add_game(event, 0, *games[0][:2], (30, 10), 20, "x", [], [])
        shown = store.standings(event)
    damage_sql(path, "UPDATE standings SET points = 77 WHERE player = 'a'", "DELETE FROM standings WHERE player = 'b'")
    with open_store(path, write=True) as store:
        assert store.standings(event) == shown
        assert store.event("tournament", "t", "oware", {"games": 2}, entries) == event
        assert sql_standings(store.connection, event) == tallied(names, [Outcome(*games[0])])
        store.add_game(event, 1, *games[1][:2], (30, 10), 20, "x", [], [])
    with sqlite3.connect(path) as plain:
        assert sql_standings(plain, event) == tallied(names, [Outcome(*game) for game in games])


def test_a_version_2_file_gets_the_standings_table_in_place_of_its_view(tmp_path):
    """Version 3 replaces the SQL view (a second tally, whatever it counted) with the table: a reader gets it in its
    copy in memory (the file left as it was), a writer in the file, both filled from the games of every event."""
    path = tmp_path / "v2.db"
    shutil.copyfile(VERSION_1, path)
    wrong_view = "SELECT p.event AS event, p.name AS player, 0 AS games, 0.5 AS points, 0 AS wins, 0 AS draws, "
    wrong_view += "0 AS losses, 0 AS faults FROM players p"
    with sqlite3.connect(path) as connection:
        connection.executescript(f"{MIGRATIONS[0]} UPDATE meta SET value = '2' WHERE key = 'version'; "
                                 f"DROP VIEW standings; CREATE VIEW standings AS {wrong_view};")  # fmt: skip
    expected = {"alice": (3, 1.5, 1, 1, 1, 1), "bob": (3, 1.5, 1, 1, 1, 0), "late": (0, 0.0, 0, 0, 0, 0)}
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with open_store(path) as store:
        assert sql_standings(store.connection, 1) == expected
        assert len(sql_standings(store.connection, 2)) == len(store.players(2)) > 0
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before and version(path) == "2"
    open_store(path, write=True).close()
    assert version(path) == str(VERSION)
    with sqlite3.connect(path) as plain:
        assert plain.execute("SELECT type FROM sqlite_master WHERE name = 'standings'").fetchone() == ("table",)
        assert sql_standings(plain, 1) == expected


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


def damaged_store(path: Path, table: str, column: str, text: str) -> str:
    """A store of one tournament (two games, no moves) whose ``column`` of row 1 of ``table`` holds ``text``, as a
    damaged or hand-edited file does; the file's SHA-256."""
    players = [PlayerEntry("a", "agent", "random"), PlayerEntry("b", "agent", "greedy")]
    with open_store(path, write=True) as store:
        event = store.event("tournament", "tournament", "awale16", {"games": 2, "rules": {}}, players)
        for task in range(2):
            store.add_game(event, task, ("a", "b")[:: 1 - 2 * task], 0, (30, 10), 20, "score", ["3R"], [])
    with sqlite3.connect(path) as connection:
        connection.execute(f"UPDATE {table} SET {column} = ? WHERE id = 1", (text,))
    connection.close()
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    ("text", "holds"),
    [("not json", "is not JSON (Expecting value"), ("[1, 2]", "is a JSON list of number"), ("null", "is JSON null")],
)
def test_damaged_settings_are_a_store_error_naming_the_file_the_row_and_what_they_should_hold(tmp_path, text, holds):
    """Whatever reads an event (its list, the last one, a resume with other settings) says which row and column of
    which file is bad and what it should hold, and leaves the file as it was."""
    path = tmp_path / "settings.db"
    before = damaged_store(path, "events", "settings", text)
    expected = re.escape(f"{path}: events row 1 (the tournament 'tournament'), column settings: {text!r} {holds}")
    expected += ".*" + re.escape("; it should hold a JSON object: the event's settings")
    with open_store(path) as store:
        with pytest.raises(StoreError, match=expected):
            store.events()
        with pytest.raises(StoreError, match=expected):
            store.latest_event()
        (kept,) = store.events(keep_unreadable=True)
        assert (kept.id, kept.name, kept.settings) == (1, "tournament", {}) and re.match(expected, kept.unreadable)
        assert [row.games for row in store.standings(1)] == [2, 2]  # the games themselves are intact
    with open_store(path, write=True) as store:
        with pytest.raises(StoreError, match=expected):
            store.event("tournament", "tournament", "awale16", {"games": 4}, [])
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_the_last_event_is_read_without_the_damaged_rows_of_older_ones(tmp_path):
    path = tmp_path / "two.db"
    damaged_store(path, "events", "settings", "not json")
    with open_store(path, write=True) as store:
        store.event("arena", "round robin", "oware", {"seed": 1}, [PlayerEntry("a", "agent", "random")])
    with open_store(path) as store:
        assert store.latest_event().settings == {"seed": 1}
        with pytest.raises(StoreError, match="events row 1"):
            store.latest_event("tournament")


@pytest.mark.parametrize(("text", "holds"), [("{bad", "is not JSON"), ('"3R"', "is a JSON string"),
                                             ("[null]", "is a JSON list of null")])  # fmt: skip
def test_a_damaged_opening_is_a_store_error_naming_the_game_unless_the_list_keeps_it_marked(tmp_path, text, holds):
    path = tmp_path / "opening.db"
    before = damaged_store(path, "games", "opening", text)
    expected = re.escape(f"{path}: games row 1 (game 1 of event 1), column opening: {text!r} {holds}")
    expected += ".*" + re.escape("; it should hold a JSON list of the opening's moves")
    with open_store(path) as store:
        with pytest.raises(StoreError, match=expected):
            store.games()
        with pytest.raises(StoreError, match=expected):
            store.game(1)
        with pytest.raises(StoreError, match=expected):
            store.game_numbered(1, 1)
        assert store.game(2).opening == ["3R"]
        bad, good = store.games(1, keep_unreadable=True)
        assert (bad.number, bad.opening, bad.players, bad.scores) == (1, [], ("a", "b"), (30, 10))
        assert bad.unreadable is not None and "column opening" in bad.unreadable
        assert good.unreadable is None and good.opening == ["3R"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_the_commands_refuse_damaged_settings_in_one_line_naming_the_row_and_leave_the_file(tmp_path):
    """``awale tournament standings``, ``awale tournament run`` (a resume) and ``awale serve --db`` on a file whose
    event settings are not JSON: one line naming the file, the row and the column and what it should hold."""
    path = tmp_path / "settings.db"
    before = damaged_store(path, "events", "settings", "not json")
    players = tmp_path / "players.toml"
    players.write_text('[[player]]\nname = "a"\nagent = "random"\n\n[[player]]\nname = "b"\nagent = "greedy"\n')
    for args in (
        ["tournament", "standings", "--db", str(path)],
        ["tournament", "run", str(players), "--game", "awale16", "--db", str(path), "--no-progress"],
        ["serve", "--db", str(path)],
    ):
        result = CliRunner().invoke(cli_app, args)
        assert result.exit_code in (1, 2) and "Traceback" not in result.output, (args, result.output)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, result.stderr)
        assert f"{path}: events row 1 (the tournament 'tournament'), column settings: 'not json' is not" in lines[0]
        assert "it should hold a JSON object: the event's settings" in lines[0]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["players.toml", "settings.db"]


MISSING_PLAYER = (
    "games row 1 (game 1 of event 1), column player1: {id} names no player of event 1; it should hold the id "
)
MISSING_PLAYER += "of one of event 1's players rows"


@pytest.mark.parametrize("elsewhere", [False, True], ids=["no-player", "another-event's"])
def test_a_game_naming_no_player_of_its_event_is_a_store_error_unless_the_list_keeps_it_marked(tmp_path, elsewhere):
    """A seat naming a players row that is gone, or one of another event, hides no game: reading it, its event's
    standings (whose result it is cannot be told) and ``awale tournament standings`` name the row; the list keeps
    it marked; the file is left as it was."""
    path = tmp_path / "players.db"
    damaged_store(path, "games", "player1", "99")
    if elsewhere:
        with open_store(path, write=True) as store:
            other = store.event("arena", "other", "oware", {}, [PlayerEntry("z", "agent", "random")])
            (row,) = store.connection.execute("SELECT id FROM players WHERE event = ?", (other,)).fetchall()
        damage_sql(path, f"UPDATE games SET player1 = {row['id']} WHERE id = 1")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    expected = re.escape(f"{path}: " + MISSING_PLAYER.format(id=3 if elsewhere else 99))
    with open_store(path) as store:
        for read in (store.games, lambda: store.game(1), lambda: store.game_numbered(1, 1), lambda: store.standings(1)):
            with pytest.raises(StoreError, match=expected):
                read()
        assert store.game(2).players == ("b", "a")
        bad, good = store.games(1, keep_unreadable=True)
        assert (bad.number, bad.players, bad.scores, bad.opening) == (1, ("a", "?"), (30, 10), ["3R"])
        assert bad.unreadable is not None and "column player1" in bad.unreadable and good.unreadable is None
    if not elsewhere:  # the tournament is the last event, which the command reads
        result = CliRunner().invoke(cli_app, ["tournament", "standings", "--db", str(path)])
        assert result.exit_code == 1 and "Traceback" not in result.output, result.output
        assert result.stderr.count("\n") == 1 and "column player1" in result.stderr and str(path) in result.stderr
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def damage_sql(path: Path, *statements: str) -> None:
    """Run ``statements`` on the file, as a hand edit does."""
    with sqlite3.connect(path) as connection:
        for statement in statements:
            connection.execute(statement)
    connection.close()


def test_a_fault_naming_neither_player_of_its_game_is_a_store_error_naming_the_row(tmp_path):
    path = tmp_path / "fault.db"
    with open_store(path, write=True) as store:
        players = [PlayerEntry(name, "agent", "random") for name in "abc"]
        event = store.event("referee", "match", "awale16", {}, players)
        store.add_game(event, 0, ("a", "b"), 1, (10, 30), 7, "illegal", [], [], FaultRecord("a", "illegal", 7, "9Z",
                       None, "no such hole"))  # fmt: skip
    damage_sql(path, "UPDATE faults SET player = 3")  # "c" plays in the event, not in this game
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    expected = re.escape(f"{path}: faults row of games row 1 (game 1 of event 1), column player: 3 names neither of "
                         "the game's players; it should hold the id of 'a' or 'b' (players rows 1 and 2)")  # fmt: skip
    with open_store(path) as store:
        assert [game.unreadable for game in store.games()] == [None]
        for read in (lambda: store.game(1), lambda: store.standings(event)):
            with pytest.raises(StoreError, match=expected):
                read()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


@pytest.mark.parametrize("write", [False, True], ids=["read", "write"])
def test_an_older_file_whose_game_names_no_player_is_refused_naming_the_row_and_left_as_it_was(tmp_path, write):
    """Its standings cannot be written from its games when it is brought up to date: nothing is, and it says why."""
    path = tmp_path / "old.db"
    shutil.copyfile(VERSION_1, path)
    damage_sql(path, "UPDATE games SET player1 = 99 WHERE id = 1")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    refusal = f"{path}: cannot bring the results store from version 1 to {VERSION}: {MISSING_PLAYER.format(id=99)}"
    with pytest.raises(StoreError, match=re.escape(refusal)):
        open_store(path, write=write)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before and version(path) == "1"
