"""The analysis board's API (docs/web.md): evaluations that agree with the agents run directly, replays from the
page's games, a records file, an upload or a position, reviews computed in the worker under the queue's limits, the
one-line 4xx errors, and the plug-in point of a source with standings.

The agents think in spawned worker processes, so each client (module-scoped) pays one worker start-up.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from agents import make
from agents.alphabeta import AlphaBetaAgent
from agents.analysis import THRESHOLDS, analyse, classify
from awale_apps.cli import app as cli_app
from awale_apps.web import create_app
from awale_apps.web.replays import MAX_PLAYER_NAME_CHARS, RecordsFile, Replay, parse_records
from awale_env import GameRecord
from awale_env.games import get_game


def random_game(name: str, plies: int, seed: int) -> tuple[list[int], list]:
    """The moves and States of a game of uniformly random moves (at most ``plies`` plies)."""
    rng = np.random.default_rng(seed)
    state = get_game(name).initial(max_plies=plies, seed=0)
    moves, states = [], [state]
    while not state.is_terminal:
        legal = state.legal_actions()
        moves.append(int(legal[rng.integers(len(legal))]))
        state = state.play(moves[-1])
        states.append(state)
    return moves, states


def record_line(name: str, plies: int, seed: int, **extra) -> str:
    moves, states = random_game(name, plies, seed)
    options = {"first_player": states[0].to_move} if "first_player" in get_game(name).rule_options else {}
    return json.dumps(json.loads(GameRecord(moves, plies, name, options).to_json()) | extra)


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    lines = [
        record_line("awale16", 30, 1, players=["alice", "bob"], seconds=[0.5] * 30,
                    fault={"player": 1, "kind": "timeout", "detail": "answered after 3.2 s"}),
        record_line("oware", 24, 2),
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def client(records):
    with TestClient(create_app(max_games=8, max_think_seconds=2.0, records=[records])) as c:
        yield c


def error_of(response, status: int) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert isinstance(error, str) and "\n" not in error
    return error


@pytest.mark.parametrize("name", ["awale16", "oware", "hawalis"])
def test_the_evaluation_is_the_agents_own_search(client, name):
    """alpha-beta at a fixed depth: the API's value, best move and line are those of the agent built from the same
    spec and run directly on the same position."""
    _, states = random_game(name, 200, 3)
    for state in states[5:40:11]:
        if state.is_terminal:
            continue
        response = client.post("/api/analysis", json={"state": state.to_dict(), "engine": "alphabeta:depth=5"})
        assert response.status_code == 200, response.text
        answer = response.json()
        agent = make("alphabeta:depth=5", seed=0)
        expected = analyse(agent, state)
        assert agent.search(state) == expected.best  # the same agent searching again agrees with itself
        assert (answer["best"], answer["value"], answer["line"]) == (expected.best, expected.value, expected.line)
        assert answer["score"] == pytest.approx(expected.score) and answer["depth"] == 5
        kind = get_game(name)
        assert answer["best_move"] == kind.format_move(expected.best) == answer["line_moves"][0]
        assert answer["line_moves"] == [kind.format_move(a) for a in expected.line] and len(expected.line) >= 2


def test_alphazero_reports_its_value_and_move_probabilities(client):
    _, states = random_game("awale16", 200, 4)
    state = states[10]
    answer = client.post("/api/analysis", json={"state": state.to_dict(), "engine": "alphazero:pretrained"}).json()
    agent = make("alphazero:pretrained", seed=0)
    counts = agent.policy(state)
    assert answer["value"] == pytest.approx(agent.last_value, abs=1e-6)
    assert answer["score"] == pytest.approx((1 + agent.last_value) / 2, abs=1e-6)
    shares = {get_game("awale16").format_move(a): counts[a] / counts.sum() for a in np.flatnonzero(counts)}
    assert answer["move_probabilities"] == pytest.approx(shares)
    assert answer["best"] == int(np.argmax(counts)) and answer["line"][0] == answer["best"]
    assert set(answer["move_probabilities"]) <= set(state.legal_moves())
    # No network is shipped for Oware: refused in one line.
    _, oware = random_game("oware", 50, 1)
    error = error_of(client.post("/api/analysis", json={"state": oware[3].to_dict(), "engine": "alphazero"}), 400)
    assert "cannot analyse" in error and "oware" in error


def test_a_proven_result_is_reported_as_plies_to_the_end():
    """One ply from the limit, the player to move ahead on stores wins: win_in 1 and an expected score of 1."""
    _, states = random_game("awale16", 400, 5)
    state = next(s for s in states if s.stores[s.to_move] > s.stores[1 - s.to_move] and not s.is_terminal)
    data = state.to_dict() | {"max_plies": state.ply + 1}
    limited = get_game("awale16").state_type.from_dict(data)
    result = analyse(AlphaBetaAgent(depth=4), limited)
    assert (result.win_in, result.score) == (1, 1.0)


@pytest.mark.parametrize(
    "body, message",
    [
        ({"state": {"game": "chess"}}, "'game' must name one of"),
        ({"state": {"game": "oware"}}, "bad state: State dict lacks"),
        ({"state": "awale16"}, "state: Input should be a valid dictionary"),
        ({"engine": "greedy"}, "greedy reports no evaluation; the analysis engines are alphabeta, alphazero"),
        ({"engine": "alphabeta:time=50"}, "time=50 is over this server's limit of 2 seconds per move"),
        ({"engine": "alphabeta:table_bits=24"}, "table_bits=24 is over this server's limit"),
        ({"engine": "alphazero:path=/etc/passwd"}, "path= is refused here"),
        ({"engine": "alphabeta:depth=x"}, "cannot analyse"),
        ({"plies": 100}, "plies: Input should be less than or equal to 40"),
        ({"colour": "red"}, "unknown field 'colour'"),
    ],
)
def test_bad_analysis_requests_get_one_line_400(client, body, message):
    request = {"state": get_game("awale16").initial().to_dict(), **body}
    assert message in error_of(client.post("/api/analysis", json=request), 400)


def test_a_finished_position_is_not_analysed(client):
    _, states = random_game("awale16", 10, 1)
    assert "game is over" in error_of(client.post("/api/analysis", json={"state": states[-1].to_dict()}), 400)


def test_the_records_file_is_a_source_of_replays(client, records):
    sources = {source["name"]: source for source in client.get("/api/sources").json()}
    assert sources["records"] == {"name": "records", "title": "records of games.jsonl", "games": 2, "standings": False}
    rows = client.get("/api/sources/records/games").json()
    assert [(row["key"], row["game"], row["players"]) for row in rows] == [
        ("1", "awale16", ["alice", "bob"]), ("2", "oware", ["South", "North"])]  # fmt: skip
    replay = client.get("/api/sources/records/games/1").json()
    record, _ = parse_records(records.read_text())[0]
    states = record.replay()
    assert [p["state"] for p in replay["positions"]] == [s.to_dict() for s in states]
    assert [m["move"] for m in replay["moves"]] == [get_game("awale16").format_move(a) for a in record.moves]
    assert all(m["seconds"] == 0.5 for m in replay["moves"]) and replay["fault"]["kind"] == "timeout"
    assert replay["positions"][3]["legal_moves"] == states[3].legal_moves()
    assert GameRecord.from_text(replay["record"]).moves == record.moves
    assert "no game '9'" in error_of(client.get("/api/sources/records/games/9"), 404)
    assert "unknown source of games 'db'" in error_of(client.get("/api/sources/db/games"), 404)
    assert "has no standings" in error_of(client.get("/api/sources/records/standings"), 404)


def test_the_pages_games_are_replayed_with_the_agents_seconds(client):
    game = client.post("/api/games", json={"opponent": "random", "max_plies": 6, "seed": 2}).json()
    while game["status"] != "over":
        game = client.post(f"/api/games/{game['id']}/moves", json={"move": game["legal_moves"][0]}).json()
    rows = client.get("/api/sources/page/games").json()
    assert rows[0]["key"] == game["id"] and rows[0]["plies"] == 6 and rows[0]["players"][1] == "random"
    replay = client.get(f"/api/sources/page/games/{game['id']}").json()
    assert [m["move"] for m in replay["moves"]] == [m["move"] for m in game["moves"]]
    assert [m["seconds"] for m in replay["moves"]] == [m["seconds"] for m in game["moves"]]
    assert replay["positions"][-1]["state"] == game["state"] and replay["record"] == game["record"]


def test_uploads_and_positions(client):
    line = record_line("hawalis", 40, 3)
    replay = client.post("/api/replays", json={"record": line}).json()
    assert replay["game"] == "hawalis" and len(replay["moves"]) == len(json.loads(line)["moves"])
    big = "# a long comment\n" * 400 + GameRecord(random_game("awale16", 1000, 8)[0], 1000).to_text()
    assert len(big) > 4096 and client.post("/api/replays", json={"record": big}).status_code == 200
    assert "ply 2: illegal move 1R" in error_of(
        client.post("/api/replays", json={"record": "awale16 max_plies=9\n1R 1R"}), 400
    )
    assert "expected one game, got 2" in error_of(client.post("/api/replays", json={"record": line + "\n" + line}), 400)

    _, states = random_game("oware", 100, 6)
    start = states[7]
    line = client.post(
        "/api/positions",
        json={"state": start.to_dict(), "moves": [get_game("oware").format_move(start.legal_actions()[0])]},
    ).json()
    assert line["positions"][0]["state"] == start.to_dict()
    assert line["positions"][1]["state"] == start.play(start.legal_actions()[0]).to_dict() and line["record"] is None
    initial = client.post("/api/positions", json={"game": "oware", "rules": {"preset": "openspiel"}}).json()
    assert initial["positions"][0]["state"]["to_move"] == 0 and initial["moves"] == []
    assert "give either 'state'" in error_of(client.post("/api/positions", json={}), 400)
    assert "move 1 ('9')" in error_of(client.post("/api/positions", json={"game": "oware", "moves": ["9"]}), 400)
    assert "bad rules for oware" in error_of(
        client.post("/api/positions", json={"game": "oware", "rules": {"x": 1}}), 400
    )


BAD_EXTRAS = [
    ({"players": 5}, "'players' must be a list of the two players' names (player 0's first), got 5"),
    ({"players": ["alice"]}, "'players' must be a list of the two players' names (player 0's first), got ['alice']"),
    ({"players": ["a", "b" * 81]}, "'players': player 1's name must be at most 80 characters, got 81 ('bbbb"),
    ({"seconds": ["x"]}, "'seconds' of ply 1 must be a number of seconds >= 0 or null, got 'x'"),
    ({"seconds": [0.5, -5]}, "'seconds' of ply 2 must be a number of seconds >= 0 or null, got -5"),
    ({"seconds": 3}, "'seconds' must be a list of at most one time per move (PLIES), got 3"),
    ({"seconds": "many"}, "'seconds' must be a list of at most one time per move (PLIES), got 'many'"),
    ({"fault": {"player": 7}}, "'fault' must be an object with 'player' (0 or 1) and 'kind', got {'player': 7}"),
    ({"fault": {"player": 7, "kind": "timeout"}}, "'fault' field 'player' must be 0 or 1, got 7"),
    ({"fault": {"player": 1, "kind": ["x"]}}, "'fault' field 'kind' must be a string, got ['x']"),
    ({"fault": {"player": 0, "kind": "crash", "x": 1}}, "unknown field 'x' of 'fault': it may have player, kind"),
    ({"fault": "timeout"}, "'fault' must be an object with 'player' (0 or 1) and 'kind', got 'timeout'"),
]


@pytest.mark.parametrize(("extra", "said"), BAD_EXTRAS)
def test_a_json_records_bad_players_seconds_or_fault_get_400_naming_the_field(client, extra, said):
    """A JSON record's extra fields are checked as its moves are: a bad one is refused naming it and what is allowed,
    never dropped or echoed back unchecked."""
    record = json.loads(record_line("awale16", 40, 4))
    said = said.replace("PLIES", str(len(record["moves"])))
    assert said in error_of(client.post("/api/replays", json={"record": json.dumps(record | extra)}), 400)


def test_a_json_records_good_players_seconds_and_fault_are_replayed_and_too_many_seconds_refused(client, tmp_path):
    record = json.loads(record_line("awale16", 40, 4))
    plies = len(record["moves"])
    extra = {"players": ["ann", "bo"], "seconds": [0.25, None, 2], "fault": {"player": 1, "kind": "timeout"}}
    replay = client.post("/api/replays", json={"record": json.dumps(record | extra)}).json()
    assert replay["players"] == ["ann", "bo"] and replay["fault"] == {"player": 1, "kind": "timeout"}
    assert [m["seconds"] for m in replay["moves"]] == [0.25, None, 2] + [None] * (plies - 3)
    nulls = {"players": None, "seconds": None, "fault": None}  # null: not given
    assert client.post("/api/replays", json={"record": json.dumps(record | nulls)}).json()["fault"] is None
    too_many = json.dumps(record | {"seconds": [0.1] * (plies + 1)})
    said = f"'seconds' must be a list of at most one time per move ({plies}), got {plies + 1} times"
    assert said in error_of(client.post("/api/replays", json={"record": too_many}), 400)
    longest = ["a" * MAX_PLAYER_NAME_CHARS, "b"]  # kept whole, as a records file's name in its title
    replay = client.post("/api/replays", json={"record": json.dumps(record | {"players": longest})}).json()
    assert replay["players"] == longest
    named = tmp_path / f"{'r' * 150}.jsonl"
    named.write_text(json.dumps(record) + "\n")
    assert RecordsFile(named).load("1").title == f"{named.name} #1"
    bad = tmp_path / "bad.jsonl"  # a records file's line: one line naming the record and the field
    bad.write_text(json.dumps(record) + "\n" + json.dumps(record | {"fault": {"player": 7, "kind": "x"}}) + "\n")
    result = CliRunner().invoke(cli_app, ["serve", "--records", str(bad)])
    assert result.exit_code != 0 and "record 2: 'fault' field 'player' must be 0 or 1, got 7" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output


def wait_review(client, review_id: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        review = client.get(f"/api/reviews/{review_id}").json()
        if review["status"] != "running" or time.monotonic() > deadline:
            return review
        time.sleep(0.1)


@pytest.mark.parametrize("key", ["1", "2"])
def test_a_review_evaluates_every_move_as_the_agent_does(client, key):
    """Each position's best move is the depth-4 agent's; each move's loss is the drop of the mover's expected score
    and its class follows the thresholds."""
    started = client.post("/api/reviews", json={"source": "records", "key": key, "engine": "alphabeta:depth=4"})
    assert started.status_code == 202, started.text
    assert started.json()["done"] >= 1 and started.json()["status"] == "running"
    review = wait_review(client, started.json()["id"])
    assert review["status"] == "done" and review["done"] == review["total"], review
    replay = client.get(f"/api/sources/records/games/{key}").json()
    kind = get_game(replay["game"])
    states = [kind.state_type.from_dict(p["state"]) for p in replay["positions"]]
    assert len(review["graph"]) == len(states) and len(review["moves"]) == len(states) - 1
    agent = make("alphabeta:depth=4", seed=0)
    scores = []
    for state in states:
        if state.is_terminal:
            scores.append(None)
            continue
        agent.reset(0)
        scores.append(analyse(agent, state))
    for i, move in enumerate(review["moves"]):
        before, after = states[i], states[i + 1]
        best = scores[i]
        assert move["best_move"] == kind.format_move(best.best)
        played = (
            (0.5 if after.winner is None else float(after.winner == before.to_move))
            if after.is_terminal
            else (scores[i + 1].score if after.to_move == before.to_move else 1 - scores[i + 1].score)
        )
        loss = 0.0 if kind.parse_move(move["move"]) == best.best or move["move"] == move["best_move"] else max(
            0.0, best.score - played)  # fmt: skip
        assert move["loss"] == pytest.approx(loss, abs=1e-3) and move["class"] == classify(move["loss"])
    graph = review["graph"]
    assert graph[0] == pytest.approx(scores[0].score if states[0].to_move == 0 else 1 - scores[0].score)
    classes = [m["class"] for m in review["moves"] if m["class"]]
    assert classes and set(classes) <= {name for name, _ in THRESHOLDS}  # random moves: mistakes


def test_reviews_of_an_upload_and_of_a_line_and_bad_requests(client):
    record = record_line("awale16", 12, 9)
    review = wait_review(
        client, client.post("/api/reviews", json={"record": record, "engine": "alphabeta:depth=3"}).json()["id"]
    )
    assert review["status"] == "done" and len(review["moves"]) == 12
    _, states = random_game("oware", 100, 2)
    body = {"state": states[20].to_dict(), "moves": [], "engine": "alphabeta:depth=3"}
    assert client.post("/api/reviews", json=body).json()["moves"] == []
    assert "give one of" in error_of(client.post("/api/reviews", json={"record": record, "source": "page"}), 400)
    assert "give one of" in error_of(client.post("/api/reviews", json={"source": "page"}), 400)
    assert "reports no evaluation" in error_of(
        client.post("/api/reviews", json={"record": record, "engine": "mcts"}), 400
    )
    assert "unknown review id" in error_of(client.get("/api/reviews/nope"), 404)
    assert client.delete(f"/api/reviews/{review['id']}").status_code == 204
    assert client.get(f"/api/reviews/{review['id']}").status_code == 404


def test_a_review_holds_a_place_in_the_queue_and_a_newer_analysis_supersedes_an_older_one(records):
    """With one place per client, a running review leaves none for an analysis (429 at once); it can be stopped.
    Then three analyses on one board: the one waiting behind the running one is dropped (409) when a newer comes."""
    app = create_app(max_think_seconds=1.0, max_queue=4, max_client_queue=1, records=[records])
    with TestClient(app) as client:
        state = get_game("awale16").initial().to_dict()
        assert client.post("/api/analysis", json={"state": state, "engine": "alphabeta:depth=2"}).status_code == 200
        started = client.post("/api/reviews", json={"source": "records", "key": "1", "engine": "alphabeta:time=1"})
        assert started.status_code == 202
        error = error_of(client.post("/api/analysis", json={"state": state}), 429)
        assert "this server's limit per client is 1" in error
        assert app.state.server.queued.total() == 1  # at once, not after the review, which still holds its place
        assert client.delete(f"/api/reviews/{started.json()['id']}").status_code == 204
        deadline = time.monotonic() + 10
        while app.state.server.queued.total() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert app.state.server.queued.total() == 0  # the cancelled review gave its place back

        answers: dict[str, int] = {}

        def ask(name: str) -> None:
            body = {"state": state, "engine": "alphabeta:time=1", "channel": "board"}
            answers[name] = client.post("/api/analysis", json=body).status_code

        first = threading.Thread(target=ask, args=("first",))
        first.start()
        while not app.state.server.queued.total() and time.monotonic() < deadline + 10:
            time.sleep(0.01)
        second = threading.Thread(target=ask, args=("second",))
        second.start()
        time.sleep(0.2)
        third = threading.Thread(target=ask, args=("third",))
        third.start()
        for thread in (first, second, third):
            thread.join(timeout=60)
        assert answers == {"first": 200, "second": 409, "third": 200}


def test_a_source_with_standings_is_served(records):
    """The plug-in point of a tournament database: a source with a ``standings()`` function."""

    class Tournament:
        name, title = "db", "a tournament"

        def summaries(self):
            return [{"key": "1", "game": "awale16", "players": ["a", "b"], "plies": 3, "result": 0, "title": "g"}]

        def load(self, key):
            return Replay(get_game("awale16").initial(), [0, 3, 4], ["a", "b"], "g")

        def standings(self):
            return [{"agent": "a", "points": 1.0}, {"agent": "b", "points": 0.0}]

    app = create_app(records=[records])
    app.state.board.library.sources["db"] = Tournament()
    with TestClient(app) as client:
        assert client.get("/api/sources/db/standings").json()[0] == {"agent": "a", "points": 1.0}
        assert next(s for s in client.get("/api/sources").json() if s["name"] == "db")["standings"] is True
        assert len(client.get("/api/sources/db/games/1").json()["positions"]) == 4


def test_serve_refuses_a_bad_records_file_in_one_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("awale16 max_plies=400\n1R 1R\n")
    result = CliRunner().invoke(cli_app, ["serve", "--records", str(bad)])
    assert result.exit_code != 0 and "ply 2: illegal move 1R" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("x" * 200_000 + "\n", "bad record header 'xxxx"),
        ("awale16 max_plies=" + "9" * 200_000 + "\n", "bad max_plies '9999"),
        ('{"game": "awale16", "moves": ["' + "Z" * 200_000 + '"]}\n', "ply 1: malformed move 'ZZZZ"),
    ],
)
def test_a_records_error_quotes_an_excerpt_of_a_huge_line(tmp_path, text, said):
    bad = tmp_path / "bad.txt"
    bad.write_text(text)
    result = CliRunner().invoke(cli_app, ["serve", "--records", str(bad)])
    assert result.exit_code != 0 and said in result.output and "(200000 characters)" in result.output
    assert len(result.output.strip().splitlines()) == 1 and len(result.output) < 800
