"""Results stores written by earlier toolkits open and read as they were written (docs/tournament.md): the file in
tests/data was made with the schema of 2026-11-27 (version 1) and is never regenerated."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from competition.store import open_store

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
    view = store.connection.execute("SELECT player, games, points, wins, draws, losses, faults FROM standings "
                                    "WHERE event = ? ORDER BY player", (tournament.id,)).fetchall()  # fmt: skip
    assert view == [("alice", 3, 1.5, 1, 1, 1, 1), ("bob", 3, 1.5, 1, 1, 1, 0), ("late", 0, 0.0, 0, 0, 0, 0)]
