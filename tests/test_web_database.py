"""``awale serve --db FILE``: the events of a results store as sources of replays with their standings (docs/web.md).

The store holds what the toolkit writes: a small tournament of agents with random openings (moves, seconds, seeded
starts), an arena round robin (results only: listed, not replayable) and a referee match whose game ended by a fault
(written through the store's API, as ``awale referee --db`` does).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from awale_apps.cli import app as cli_app
from awale_apps.web import create_app
from awale_env.games import get_game
from competition.arena import round_robin
from competition.store import FaultRecord, Move, PlayerEntry, StoreError, open_store
from competition.tournament import TournamentSettings, load_players, run_tournament

GAME = "awale16_2025"
MAX_PLIES = 40


def write_fault_match(db: Path) -> None:
    """A referee match of one game: ``cheat`` (JoueurA) answers an illegal move at ply 7."""
    game = get_game(GAME)
    state = game.initial(max_plies=MAX_PLIES)
    moves = []
    for ply in range(1, 7):
        action = state.legal_actions()[0]
        moves.append(Move(ply, (ply - 1) % 2, game.format_move(action), 0.01 * ply))
        state = state.play(action)
    settings = {"programs": ["cheat", "honest"], "games": 1, "rules": {}, "max_plies": MAX_PLIES}
    fault = FaultRecord("cheat", "illegal", 7, "99Z", json.dumps(state.to_dict()), "99Z is no hole of this board")
    with open_store(db, write=True) as store:
        players = [PlayerEntry("cheat", "command", "./cheat"), PlayerEntry("honest", "command", "./honest")]
        event = store.event("referee", "match", GAME, settings, players, resume=False)
        store.add_game(event, 0, ("cheat", "honest"), 1, state.stores, 6, "illegal", [], moves, fault)


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    tmp_path = tmp_path_factory.mktemp("db")
    path = tmp_path / "results.db"
    players_toml = tmp_path / "players.toml"
    players_toml.write_text("".join(f'[[player]]\nname = "{name}"\nagent = "{spec}"\n\n'
                                    for name, spec in [("rand", "random"), ("greed", "greedy")]))  # fmt: skip
    settings = TournamentSettings(GAME, max_plies=MAX_PLIES, games_per_pair=2, openings=2, seed=3)
    with open_store(path, write=True) as store:
        run_tournament(store, load_players(players_toml, GAME), settings, progress=False)
    round_robin(["random", "greedy"], games_per_pair=2, seed=1, progress=False, db=path, game=GAME,
                max_plies=MAX_PLIES)  # fmt: skip
    write_fault_match(path)
    return path


@pytest.fixture(scope="module")
def client(db):
    with TestClient(create_app(db=db)) as client:
        yield client


def sources_of(client) -> dict[str, dict]:
    return {source["name"]: source for source in client.get("/api/sources").json()}


def test_each_event_is_a_source_with_its_games_and_standings(client, db):
    sources = sources_of(client)
    with open_store(db) as store:
        events = store.events()
        assert [e.kind for e in events] == ["tournament", "arena", "referee"]
        for event in events:
            source = sources[f"db-{event.id}"]
            assert source["standings"] is True and source["games"] == len(store.games(event.id))
            assert event.kind in source["title"] and "results.db" in source["title"]
            rows = client.get(f"/api/sources/db-{event.id}/games").json()
            assert [row["key"] for row in rows] == [str(g.number) for g in store.games(event.id)]
            assert all(row["replayable"] == (event.kind != "arena") for row in rows)
            standings = client.get(f"/api/sources/db-{event.id}/standings").json()
            assert standings == [row.to_dict() for row in store.standings(event.id)]


def test_games_are_keyed_by_their_number_in_the_event_not_by_the_order_they_finished(tmp_path):
    """Task 1 finished first: the page still lists game 1 (task 0) first, and key 1 replays it."""
    path, game = tmp_path / "order.db", get_game(GAME)
    with open_store(path, write=True) as store:
        players = [PlayerEntry("a", "agent", "random"), PlayerEntry("b", "agent", "greedy")]
        event = store.event("referee", "match", GAME, {"max_plies": MAX_PLIES}, players, resume=False)
        for task, plies in [(1, 4), (0, 2)]:
            state, moves = game.initial(max_plies=MAX_PLIES), []
            for ply in range(1, plies + 1):
                action = state.legal_actions()[0]
                moves.append(Move(ply, (ply - 1) % 2, game.format_move(action), 0.01))
                state = state.play(action)
            store.add_game(event, task, ("a", "b"), None, state.stores, plies, "stopped", [], moves)
        assert [g.id for g in store.games(event)] == [2, 1]  # ids follow the order the games were written
    with TestClient(create_app(db=path)) as client:
        rows = client.get("/api/sources/db/games").json()
        assert [(row["key"], row["title"], row["plies"]) for row in rows] == [
            ("1", "match game 1", 2),
            ("2", "match game 2", 4),
        ]
        assert len(client.get("/api/sources/db/games/1").json()["moves"]) == 2
        assert client.get("/api/sources/db/games/3").status_code == 404


def test_a_tournament_game_replays_to_its_stored_scores_with_its_seconds(client, db):
    with open_store(db) as store:
        event = store.latest_event("tournament")
        for stored in store.games(event.id):
            replay = client.get(f"/api/sources/db-{event.id}/games/{stored.number}").json()
            assert len(replay["moves"]) == stored.plies and stored.opening  # the opening's moves first
            assert [m["move"] for m in replay["moves"][:2]] == stored.opening
            assert [m["seconds"] for m in replay["moves"][:2]] == [None, None]
            assert all(m["seconds"] is not None for m in replay["moves"][2:])
            first = replay["positions"][0]["state"]["to_move"]  # seat 0 moves first; players in the rules' order
            seat_of = {first: 0, 1 - first: 1}
            assert [replay["players"][p] for p in (first, 1 - first)] == list(stored.players)
            final = replay["positions"][-1]
            assert final["stores"] == [stored.scores[seat_of[0]], stored.scores[seat_of[1]]]
            winner = replay["result"]["winner"]
            assert (None if winner is None else seat_of[winner]) == stored.winner


def test_a_fault_is_shown_and_an_arena_game_is_listed_but_not_replayed(client, db):
    with open_store(db) as store:
        referee = store.latest_event("referee")
        arena = store.latest_event("arena")
        faulty = store.games(referee.id)[0]
        arena_game = store.games(arena.id)[0]
    replay = client.get(f"/api/sources/db-{referee.id}/games/{faulty.number}").json()
    assert replay["players"] == ["cheat", "honest"] and len(replay["moves"]) == 6
    assert replay["fault"]["player"] == 0 and replay["fault"]["kind"] == "illegal"
    assert replay["fault"]["answer"] == "99Z" and "no hole" in replay["fault"]["detail"]
    assert [m["seconds"] for m in replay["moves"]] == [0.01 * ply for ply in range(1, 7)]
    row = client.get(f"/api/sources/db-{referee.id}/games").json()[0]
    assert row["result"] == 1 and row["end_reason"] == "illegal"
    response = client.get(f"/api/sources/db-{arena.id}/games/{arena_game.number}")
    assert response.status_code == 404 and "keeps no moves" in response.json()["error"]
    # A game of another event, or no game at all: 404 naming where to look.
    # Keys beyond SQLite's integers and digits that are not ASCII: 404 too, never a server error.
    for key in (str(faulty.id), "abc", "99999", str(2**63), str(2**63 - 1), "9" * 500, "\u00b2"):
        response = client.get(f"/api/sources/db-{arena.id}/games/{key}")
        assert response.status_code == 404 and response.json()["error"], key
        assert len(response.json()["error"]) < 300


def test_a_stored_game_is_reviewed_like_any_other(client, db):
    with open_store(db) as store:
        referee = store.latest_event("referee")
        key = str(store.games(referee.id)[0].number)
    response = client.post("/api/reviews", json={"source": f"db-{referee.id}", "key": key,
                                                  "engine": "alphabeta:depth=1"})  # fmt: skip
    assert response.status_code == 202, response.text
    assert response.json()["total"] == 7


def test_a_store_of_one_event_is_the_source_db(tmp_path):
    path = tmp_path / "one.db"
    write_fault_match(path)
    app = create_app(db=path)
    assert [name for name in app.state.board.library.sources] == ["page", "db"]


def test_an_event_added_while_serving_appears_under_a_name_of_its_own(tmp_path):
    path = tmp_path / "class.db"
    write_fault_match(path)
    with TestClient(create_app(db=path)) as client:
        assert list(sources_of(client)) == ["page", "db"]
        round_robin(["random", "greedy"], games_per_pair=2, seed=1, progress=False, db=path, game=GAME,
                    max_plies=MAX_PLIES)  # fmt: skip
        with open_store(path) as store:
            referee, arena = store.events()
            arena_games = [str(g.number) for g in store.games(arena.id)]
            referee_games = [str(g.number) for g in store.games(referee.id)]
            standings = [row.to_dict() for row in store.standings(arena.id)]
        # A link to the new event works before the sources are listed.
        response = client.get(f"/api/sources/db-{arena.id}/games")
        assert response.status_code == 200, response.text
        assert [row["key"] for row in response.json()] == arena_games and len(arena_games) == 2
        sources = sources_of(client)
        assert list(sources) == ["page", "db", f"db-{arena.id}"]
        assert sources[f"db-{arena.id}"]["games"] == 2 and sources[f"db-{arena.id}"]["standings"] is True
        assert "arena" in sources[f"db-{arena.id}"]["title"] and "referee" in sources["db"]["title"]
        assert client.get(f"/api/sources/db-{arena.id}/standings").json() == standings
        assert [row["key"] for row in client.get("/api/sources/db/games").json()] == referee_games


def test_an_event_added_while_serving_with_damaged_settings_is_listed_as_unreadable_naming_its_row(tmp_path):
    """Its settings are read as at start (there, a StoreError): listed with the reason, its games and standings 503
    naming the row, an event added after it listed as ever, and served once its row is repaired (its games and
    standings at once, before the sources are listed again); the file is left as it was."""
    path = tmp_path / "class.db"
    write_fault_match(path)
    with TestClient(create_app(db=path)) as client:
        write_games(path, 1)
        write_games(path, 2)
        before = damage(path, "UPDATE events SET settings = 'not json' WHERE id = 2")
        sources = sources_of(client)
        assert list(sources) == ["page", "db", "db-2", "db-3"] and sources["db-3"]["games"] == 2
        says = f"{path}: events row 2 (the referee 'match #2'), column settings: 'not json' is not JSON"
        assert sources["db-2"]["games"] is None and says in sources["db-2"]["error"]
        for url in ("games", "games/1", "standings"):
            response = client.get(f"/api/sources/db-2/{url}")
            assert response.status_code == 503 and says in response.json()["error"], (url, response.text)
        assert path.read_bytes() == before
        damage(path, f"UPDATE events SET settings = '{json.dumps({'max_plies': MAX_PLIES})}' WHERE id = 2")
        # served at once, before the sources are listed again
        for url in ("games", "standings"):
            response = client.get(f"/api/sources/db-2/{url}")
            assert response.status_code == 200, (url, response.text)
        assert len(client.get("/api/sources/db-2/games/1").json()["moves"]) == 4
        assert sources_of(client)["db-2"]["games"] == 1


def test_a_store_gone_while_serving_breaks_only_its_own_sources(tmp_path):
    path = tmp_path / "class.db"
    write_fault_match(path)
    with TestClient(create_app(db=path)) as client:
        path.unlink()
        response = client.get("/api/sources")
        assert response.status_code == 200, response.text
        sources = {source["name"]: source for source in response.json()}
        assert list(sources) == ["page", "db"] and sources["page"]["games"] == 0
        assert sources["db"]["games"] is None and "no such results store" in sources["db"]["error"]
        assert client.get("/api/sources/page/games").json() == []
        response = client.get("/api/sources/db/games")
        assert response.status_code == 503 and response.json()["error"] == f"{path}: no such results store"
        response = client.get("/api/sources/db-9/games")
        assert response.status_code == 404 and "page, db" in response.json()["error"]


def test_a_store_damaged_while_serving_is_a_503_naming_it(tmp_path):
    """A file that still opens but whose pages are gone (cut short while serving): its queries fail inside SQLite,
    which the board says as for an unreadable store, not as a server error."""
    path = tmp_path / "class.db"
    write_fault_match(path)
    with TestClient(create_app(db=path), raise_server_exceptions=False) as client:
        size = path.stat().st_size
        with path.open("r+b") as file:
            file.seek(size // 2)
            file.write(b"\xff" * (size - size // 2))
        for url in ("/api/sources/db/games", "/api/sources/db/standings"):
            response = client.get(url)
            assert response.status_code == 503, (url, response.text)
            assert "cannot read the results store" in response.json()["error"]
        assert client.get("/api/sources").status_code == 200


@pytest.mark.parametrize("kind", ["missing", "corrupt", "foreign", "empty", "settings"])
def test_serve_refuses_a_bad_db_in_one_line(tmp_path, kind):
    path = tmp_path / "results.db"
    if kind == "settings":  # an event whose settings are not JSON: create_app says StoreError, naming the row
        write_fault_match(path)
        with sqlite3.connect(path) as connection:
            connection.execute("UPDATE events SET settings = 'not json'")
        connection.close()
        before = path.read_bytes()
        with pytest.raises(StoreError, match="events row 1 .*column settings: 'not json' is not JSON"):
            create_app(db=path)
        assert path.read_bytes() == before
    elif kind == "corrupt":
        path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    elif kind == "foreign":
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE things (x)")
        connection.close()
    elif kind == "empty":
        open_store(path, write=True).close()
    result = CliRunner().invoke(cli_app, ["serve", "--db", str(path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --db: ") and str(path) in lines[0]
    if kind == "settings":
        assert "column settings" in lines[0] and "it should hold a JSON object" in lines[0]


def test_standings_of_a_tournament_before_every_pair_met_are_defined_everywhere(tmp_path):
    """Three players, two games played, both won by "a" against "b" ("c" has none): the store, the CLI, the web
    page and the documented SQL all give standings (no singular matrix, no server error), with "c" at the mean
    and nothing in its columns."""
    path = tmp_path / "partial.db"
    players = [PlayerEntry(name, "agent", "random") for name in ("a", "b", "c")]
    with open_store(path, write=True) as store:
        event = store.event("tournament", "tournament", GAME, {"partial": True}, players)
        for task in range(2):
            store.add_game(event, task, ("a", "b")[:: 1 - 2 * task], task, (30, 10)[:: 1 - 2 * task], 20, "x", [],
                           [])  # fmt: skip
        rows = {row.player: row for row in store.standings(event)}
    assert (rows["a"].points, rows["b"].points, rows["c"].points, rows["c"].games) == (2, 0, 0, 0)
    assert rows["a"].elo > rows["c"].elo > rows["b"].elo
    assert rows["a"].elo_low < rows["a"].elo < rows["a"].elo_high
    assert rows["c"].elo_low < rows["c"].elo < rows["c"].elo_high and rows["c"].elo == pytest.approx(1500, abs=60)
    result = CliRunner().invoke(cli_app, ["tournament", "standings", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert [row["player"] for row in json.loads(result.output)] == ["a", "c", "b"]
    with TestClient(create_app(db=path)) as client:
        response = client.get("/api/sources/db/standings")
        assert response.status_code == 200, response.text
        assert [row["player"] for row in response.json()] == ["a", "c", "b"]
    query = (Path(__file__).parents[1] / "docs" / "tournament.md").read_text().split("```sql\n")[1].split("```")[0]
    by_player = {row[0]: row[1:] for row in sqlite3.connect(path).execute(query)}
    assert by_player == {"a": (2.0, 2, 0, 0, 0), "b": (0.0, 0, 0, 2, 0), "c": (0.0, 0, 0, 0, 0)}


def write_games(db: Path, count: int, settings: dict | None = None) -> None:
    """A referee match of ``count`` games of a few plies each, from the initial position."""
    game = get_game(GAME)
    with open_store(db, write=True) as store:
        players = [PlayerEntry("a", "agent", "random"), PlayerEntry("b", "agent", "greedy")]
        event = store.event("referee", "match", GAME, settings or {"max_plies": MAX_PLIES}, players, resume=False)
        for task in range(count):
            state, moves = game.initial(max_plies=MAX_PLIES), []
            for ply in range(1, 5):
                action = state.legal_actions()[task % len(state.legal_actions())]
                moves.append(Move(ply, (ply - 1) % 2, game.format_move(action), 0.01))
                state = state.play(action)
            store.add_game(event, task, ("a", "b"), None, state.stores, 4, "stopped", [], moves)


def damage(db: Path, *statements: str) -> bytes:
    """Run ``statements`` on the file (a damaged or hand-edited store); its bytes after."""
    with sqlite3.connect(db) as connection:
        for statement in statements:
            connection.execute(statement)
    connection.close()
    return db.read_bytes()


def test_one_damaged_game_breaks_neither_the_list_nor_the_other_games(tmp_path):
    """Game 1's opening is not JSON, game 2 holds a move that is no move, game 3 a start seed that is no seed, game 4
    is whole: the sources and the games are listed (the bad ones greyed with the reason their rows give), the
    standings shown, game 4 replayed, and each bad game answers 503 naming it, the file and what is wrong; the file
    is left as it was."""
    path = tmp_path / "damaged.db"
    write_games(path, 4)
    before = damage(
        path,
        "UPDATE games SET opening = '{bad' WHERE task = 0",
        "UPDATE moves SET move = 'ZZ' WHERE ply = 2 AND game = (SELECT id FROM games WHERE task = 1)",
        "UPDATE games SET start_seed = 'abc' WHERE task = 2",
    )
    with TestClient(create_app(db=path), raise_server_exceptions=False) as client:
        response = client.get("/api/sources")
        assert response.status_code == 200, response.text
        assert sources_of(client)["db"]["games"] == 4 and "error" not in sources_of(client)["db"]
        response = client.get("/api/sources/db/games")
        assert response.status_code == 200, response.text
        rows = response.json()
        assert [row["key"] for row in rows] == ["1", "2", "3", "4"]
        assert [row["replayable"] for row in rows] == [False, True, False, True]
        assert [row["players"] for row in rows] == [["a", "b"]] * 4 and [row["plies"] for row in rows] == [4] * 4
        assert "error" not in rows[1] and "error" not in rows[3]
        assert rows[0]["error"].startswith("game 1 of referee 'match'") and str(path) in rows[0]["error"]
        assert "games row 1 (game 1 of event 1), column opening: '{bad' is not JSON" in rows[0]["error"]
        assert "it should hold a JSON list of the opening's moves" in rows[0]["error"]
        assert rows[2]["error"].startswith("game 3 of referee 'match'") and "start_seed" in rows[2]["error"]
        assert "seed must be an integer >= 0, got 'abc'" in rows[2]["error"]
        assert client.get("/api/sources/db/standings").status_code == 200
        assert len(client.get("/api/sources/db/games/4").json()["moves"]) == 4
        for key, says in [
            ("1", "column opening: '{bad' is not JSON"),
            ("2", "moves row of ply 2: 'ZZ' does not replay: malformed move 'ZZ'"),
            ("3", "seed must be an integer >= 0, got 'abc'"),
        ]:
            response = client.get(f"/api/sources/db/games/{key}")
            assert response.status_code == 503, (key, response.text)
            error = response.json()["error"]
            assert error.startswith(f"game {key} of referee 'match'") and str(path) in error and says in error, error
            assert "internal error" not in error
            response = client.post("/api/reviews", json={"source": "db", "key": key, "engine": "alphabeta:depth=1"})
            assert response.status_code == 503 and says in response.json()["error"], (key, response.text)
    assert path.read_bytes() == before


def test_a_game_naming_no_player_is_listed_with_the_reason_and_answers_503_as_the_standings_do(tmp_path):
    """Game 1's seat 1 names a players row that is gone, game 2's fault names no player of the game, game 3 is whole:
    all three listed (game 1 greyed naming the row; a fault is read when the game is opened), game 3 replayed, and
    games 1 and 2 and the standings (whose results cannot be told) answer 503 naming the row; the file unchanged."""
    path = tmp_path / "players.db"
    write_games(path, 3)
    with open_store(path, write=True) as store:
        store.add_game(
            1, 3, ("a", "b"), 1, (0, 0), 0, "illegal", [], [], FaultRecord("a", "illegal", 1, "Z", None, "x")
        )
    before = damage(path, "UPDATE games SET player1 = 99 WHERE task = 0", "UPDATE faults SET player = 98")
    missing = f"{path}: games row 1 (game 1 of event 1), column player1: 99 names no player of event 1"
    fault = f"{path}: faults row of games row 4 (game 4 of event 1), column player: 98 names neither of the game's"
    with TestClient(create_app(db=path), raise_server_exceptions=False) as client:
        assert sources_of(client)["db"]["games"] == 4
        rows = client.get("/api/sources/db/games").json()
        assert [(row["key"], row["replayable"]) for row in rows] == [("1", False), ("2", True), ("3", True),
                                                                      ("4", True)]  # fmt: skip
        assert rows[0]["players"] == ["a", "?"] and missing in rows[0]["error"]
        assert len(client.get("/api/sources/db/games/3").json()["moves"]) == 4
        for url, says in [("games/1", missing), ("games/4", fault), ("standings", missing)]:
            response = client.get(f"/api/sources/db/{url}")
            assert response.status_code == 503 and says in response.json()["error"], (url, response.text)
    assert path.read_bytes() == before


def test_event_settings_that_build_no_start_list_the_games_greyed_with_the_reason(tmp_path):
    """Settings that are a JSON object but whose rules are not: every game listed, none replayed, no 500."""
    path = tmp_path / "rules.db"
    write_games(path, 2, {"max_plies": MAX_PLIES, "rules": "x"})
    with TestClient(create_app(db=path), raise_server_exceptions=False) as client:
        rows = client.get("/api/sources/db/games").json()
        assert [(row["key"], row["replayable"]) for row in rows] == [("1", False), ("2", False)]
        assert all("the event's settings' rules are 'x'" in row["error"] for row in rows)
        response = client.get("/api/sources/db/games/1")
        assert response.status_code == 503 and "the event's settings' rules are 'x'" in response.json()["error"]
