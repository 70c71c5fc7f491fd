"""The web app of ``awale serve`` through FastAPI's test client: every game's page data against its States, games of
every kind (awale16, Oware, Hawalis), moves, undo, errors, limits (the queue of thinks, the workers' memory),
eviction, the API reference served offline.

The agents think in spawned worker processes, so each client (module-scoped) pays one worker start-up.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from agents import AgentSpecError, make
from awale_apps.cli import app as cli_app
from awale_apps.web import create_app, thinker
from awale_apps.web.live import end_explanation, move_details, web_games
from awale_apps.web.opponents import AgentUnavailable, Thinkers, check_spec
from awale_apps.web.server import MAX_BODY_BYTES
from awale_apps.web.thinker import search_bytes
from awale_env import GameRecord, State
from awale_env.games import DEFAULT_GAME, get_game

PPO_CHECKPOINT = Path(__file__).resolve().parent.parent / "agents" / "ppo" / "pretrained" / "ppo_awale16.zip"


def cell_moves(cell: dict) -> list[str]:
    """The moves a cell of a page's board offers: clicking the pit, or its buttons."""
    return [button["move"] for button in cell["buttons"]] if "buttons" in cell else [cell["move"]]


@pytest.mark.parametrize("name", sorted(web_games()))
def test_the_page_data_draws_every_seed_and_offers_every_legal_move(name):
    """A random game checked against the page data: each seat's view draws every seed on the board once, each
    player's cells offer each of their moves once (the same in both views) and every legal move, and the texts
    cover every end."""
    game = get_game(name)
    page = game.page()
    assert json.loads(json.dumps(page)) == page and len(page["players"]) == 2 and len(page["views"]) == 2
    for choice in page["rule_choices"]:
        game.initial(**choice["rules"])
    assert {reason for reason in game.end_reasons if reason is not None} <= set(page["end_reasons"])
    views = [[cell for row in view for cell in row] for view in page["views"]]
    offered = [
        [sorted(move for cell in cells if cell["owner"] == player for move in cell_moves(cell)) for player in (0, 1)]
        for cells in views
    ]
    assert offered[0] == offered[1] and all(len(set(moves)) == len(moves) for moves in offered[0])
    rng = random.Random(0)
    state = game.initial(seed=0)
    while True:
        data = state.to_dict()
        for cells in views:
            seeds = [tuple(reference) for cell in cells for reference in cell["seeds"]]
            assert len(set(seeds)) == len(seeds) and all(len(cell["seeds"]) == len(page["colours"]) for cell in cells)
            assert sum(data[field][index] for field, index in seeds) + sum(state.stores) == game.total_seeds
        if state.is_terminal or state.ply == 80:
            break
        mover = state.to_move
        assert {game.format_move(action) for action in state.legal_actions()} <= set(offered[0][mover])
        state = state.play(rng.choice(state.legal_actions()))
        ended = move_details(game, page, state)["ended"]
        assert ended is None or ended in offered[0][mover]


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(max_games=8, max_think_seconds=0.5, presets=[f"ppo:path={PPO_CHECKPOINT}"])) as c:
        yield c


def new_game(client: TestClient, **body) -> dict:
    response = client.post("/api/games", json={"opponent": "random", **body})
    assert response.status_code == 201, response.text
    return response.json()


def error_of(response, status: int) -> str:
    assert response.status_code == status, response.text
    return response.json()["error"]


def test_full_game_against_random_is_played_and_recorded(client):
    game = new_game(client, seed=5)
    assert game["status"] == "your_turn" and game["seat"] == 0 and game["moves"] == []
    assert game["state"] == State.initial().to_dict()
    assert game["legal_moves"] == State.initial().legal_moves()
    while game["status"] != "over":
        game = client.post(f"/api/games/{game['id']}/moves", json={"move": game["legal_moves"][-1]}).json()
        assert game["moves"][-1]["by"] == "opponent" or game["status"] == "over"
    final = GameRecord.from_text(game["record"]).final_state()  # the record replays to the position shown
    assert final.to_dict() == game["state"]
    assert [m["move"] for m in game["moves"]] == game["record"].split()[2:]
    assert [m["by"] for m in game["moves"][:4]] == ["you", "opponent", "you", "opponent"]
    result = game["result"]
    assert result["end_reason"] == final.end_reason and result["winner"] == final.winner
    assert result["outcome"] == {None: "draw", 0: "win", 1: "loss"}[final.winner]
    assert result["explanation"] and game["legal_moves"] == []
    assert client.get(f"/api/games/{game['id']}").json() == game
    message = error_of(client.post(f"/api/games/{game['id']}/moves", json={"move": "1R"}), 400)
    assert "the game is over" in message


def replay(record: str) -> list:
    """Every State of a game record of any game: a header ``game max_plies=N key=value ...``, then the moves."""
    header, _, moves = record.partition("\n")
    name, *fields = header.split()
    options = {}
    for field in fields:  # strings bare, other values in JSON
        key, _, value = field.partition("=")
        try:
            options[key] = json.loads(value)
        except ValueError:
            options[key] = value
    game = get_game(name)
    states = [game.initial(**options)]
    for move in moves.split():
        states.append(states[-1].play(game.parse_move(move)))
    return states


def position(state: dict) -> dict:
    """A ``State.to_dict()`` without the first-player rule: a record names the first player its rules drew."""
    rules = {key: value for key, value in state.get("rules", {}).items() if key != "first_player"}
    return {key: value for key, value in {**state, "rules": rules}.items() if key != "first_player"}


@pytest.mark.parametrize(
    ("name", "rules", "seat"),
    [
        ("oware", {}, 0),
        ("oware", {"preset": "openspiel"}, 1),
        ("hawalis", {}, 1),
        ("hawalis", {"endless_move": "illegal"}, "random"),
        ("kalah", {}, 1),
        ("kalah", {"seeds_per_pit": 3, "capture_empty_opposite": True}, 0),
    ],
)
def test_full_games_of_oware_hawalis_and_kalah_against_random(client, name, rules, seat):
    """Kalah's moves can give another turn: the opponent may open with several moves, or none follow the person's."""
    game = new_game(client, game=name, rules=rules, seat=seat, seed=7)
    kind = get_game(name)
    assert game["game"] == name and game["rules"] == rules and game["seat"] in (0, 1)
    assert game["state"]["max_plies"] == kind.default_max_plies
    assert [m["by"] for m in game["moves"]] == ["opponent"] * len(game["moves"])
    assert len(game["moves"]) <= 1 or name == "kalah"
    while game["status"] != "over":
        state = replay(game["record"])[-1]
        assert position(state.to_dict()) == position(game["state"]) and state.to_move == game["seat"]
        assert game["legal_moves"] == [kind.format_move(a) for a in state.legal_actions()]
        played = client.post(f"/api/games/{game['id']}/moves", json={"move": game["legal_moves"][-1]})
        assert played.status_code == 200, played.text
        game = played.json()
        assert game["moves"][-1]["by"] == "opponent" or game["status"] == "over" or name == "kalah"
    states = replay(game["record"])
    final = states[-1]
    assert position(final.to_dict()) == position(game["state"]) and len(states) == len(game["moves"]) + 1
    assert [m["captured"] for m in game["moves"]] == [s.last_capture for s in states[1:]]
    result = game["result"]
    assert result["end_reason"] == final.end_reason and result["winner"] == final.winner
    assert result["outcome"] == "draw" if final.winner is None else ("win" if final.winner == game["seat"] else "loss")
    assert result["explanation"] == end_explanation(final) and "{" not in result["explanation"]
    assert game["legal_moves"] == [] and client.get(f"/api/games/{game['id']}").json() == game
    assert "the game is over" in error_of(client.post(f"/api/games/{game['id']}/moves", json={"move": 0}), 400)


def test_oware_records_the_first_player_its_rules_drew(client):
    firsts = {new_game(client, game="oware", seed=seed)["record"].split()[2] for seed in range(8)}
    assert firsts == {"first_player=0", "first_player=1"}  # the texts rules draw the first player from the seed
    rules = {"preset": "texts", "first_player": 1, "stop_at_majority": True}
    game = new_game(client, game="oware", rules=rules, seat=1)
    assert game["record"] == "oware max_plies=1000 preset=texts first_player=1 stop_at_majority=true\n\n"
    assert game["state"]["to_move"] == 1 and game["status"] == "your_turn" and game["rules"]["first_player"] == 1
    assert game["state"]["rules"]["stop_at_majority"] is True


@pytest.mark.parametrize(
    ("name", "move", "expected"),
    [
        ("oware", "7", "malformed move '7': "),
        ("oware", "3R", "malformed move '3R'"),
        ("oware", 6, "malformed move 6: a move is an action 0-5"),
        ("hawalis", "14", "malformed move '14': "),
        ("hawalis", 14, "malformed move 14: a move is a pit index 0-13"),
        ("hawalis", "1R", "malformed move '1R'"),
    ],
)
def test_bad_moves_in_other_games_are_refused_and_leave_the_game_unchanged(client, name, move, expected):
    game = new_game(client, game=name, rules={"first_player": 0})
    message = error_of(client.post(f"/api/games/{game['id']}/moves", json={"move": move}), 400)
    assert expected in message
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_an_illegal_oware_move_is_explained_and_changes_nothing(client):
    game = new_game(client, game="oware", rules={"preset": "openspiel"}, seed=3)
    while len(game["legal_moves"]) == 6:  # play on until one of the person's pits is empty
        game = client.post(f"/api/games/{game['id']}/moves", json={"move": game["legal_moves"][0]}).json()
    empty = next(str(a) for a in range(6) if str(a) not in game["legal_moves"])
    message = error_of(client.post(f"/api/games/{game['id']}/moves", json={"move": empty}), 400)
    assert message.startswith(f"illegal move {empty} for player 0: ") and "legal moves: " in message
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_hawalis_moves_as_indices_and_undo(client):
    game = new_game(client, game="hawalis", opponent="greedy:seed=2")
    assert game["state"]["south"] == [2] * 14 and game["legal_moves"] == [str(k) for k in range(14)]
    played = client.post(f"/api/games/{game['id']}/moves", json={"move": 10}).json()
    assert [m["move"] for m in played["moves"]][:1] == ["10"] and played["moves"][0]["captured"] == 4
    assert played["state"]["captured"][0] == 4 and len(played["moves"]) == 2
    after = get_game("hawalis").initial().play(10)  # the page says where the sowing ended, after how many laps
    assert played["moves"][0]["note"] == f"ended in pit {after.last_pit} on lap {after.laps}"
    assert played["moves"][0]["ended"] == str(after.last_pit) and played["stores"] == played["state"]["captured"]
    undone = client.post(f"/api/games/{game['id']}/undo").json()
    assert undone["state"] == game["state"] and undone["moves"] == [] and not undone["can_undo"]


@pytest.mark.parametrize(("name", "seat"), [("oware", 0), ("hawalis", 1)])
def test_an_agent_that_does_not_play_the_game_is_refused(client, name, seat):
    """The worker tries the agent on the game's first position: the PPO policies shipped play awale16 only."""
    for spec in ("ppo:pretrained", f"ppo:path={PPO_CHECKPOINT}"):
        body = {"game": name, "opponent": spec, "seat": seat}
        message = error_of(client.post("/api/games", json=body), 400)
        assert message.startswith("bad opponent spec: ppo") and f"cannot play {name}: " in message


def test_agent_with_the_first_move_plays_before_the_answer(client):
    game = new_game(client, seat=1, seed=2)
    assert game["seat"] == 1 and len(game["moves"]) == 1
    first = game["moves"][0]
    assert first["by"] == "opponent" and first["player"] == 0 and first["seconds"] >= 0
    assert game["last_move"] == first and game["state"]["to_move"] == 1
    assert all(int(move[:-1]) % 2 == 0 for move in game["legal_moves"])
    assert not game["can_undo"]


def test_moves_as_action_indices_and_lower_case(client):
    game = new_game(client)
    game = client.post(f"/api/games/{game['id']}/moves", json={"move": 0}).json()
    assert game["moves"][0]["move"] == "1R"
    game = client.post(f"/api/games/{game['id']}/moves", json={"move": game["legal_moves"][0].lower()}).json()
    assert len(game["moves"]) == 4


@pytest.mark.parametrize(
    ("move", "expected"),
    [
        ("17R", "malformed move '17R': expected a hole number 1-16 followed by R or B"),
        ("3X", "malformed move '3X'"),
        ("2R", "illegal move 2R for player 0: hole 2 belongs to player 1; legal moves: 1R 1B"),
        (32, "action 32 out of range: actions are integers 0-31"),
        (
            True,
            "move: a move is a string of at most 8 characters as the game writes it (its page's example) or an "
            "action index (got True)",
        ),
        ("14BBBBBBB", "move: a move is a string of at most 8 characters"),
        (None, "move: a move is a string of at most 8 characters"),
    ],
)
def test_bad_moves_are_refused_and_leave_the_game_unchanged(client, move, expected):
    game = new_game(client)
    message = error_of(client.post(f"/api/games/{game['id']}/moves", json={"move": move}), 400)
    assert expected in message
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_malformed_bodies_are_refused(client):
    game = new_game(client)
    url = f"/api/games/{game['id']}/moves"
    bad_json = client.post(url, content=b'{"move": ', headers={"Content-Type": "application/json"})
    assert "not valid JSON" in error_of(bad_json, 400)
    assert "move: required" in error_of(client.post(url, json={}), 400)
    assert "unknown field 'player'" in error_of(client.post(url, json={"move": "1R", "player": 0}), 400)
    assert "JSON object" in error_of(client.post(url, content=b"1R"), 400)
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_undo_takes_back_the_move_and_the_reply(client):
    game = new_game(client, seed=1)
    assert error_of(client.post(f"/api/games/{game['id']}/undo"), 409).startswith("nothing to undo")
    after_one = client.post(f"/api/games/{game['id']}/moves", json={"move": "1R"}).json()
    after_two = client.post(f"/api/games/{game['id']}/moves", json={"move": after_one["legal_moves"][0]}).json()
    assert len(after_two["moves"]) == 4 and after_two["can_undo"]
    undone = client.post(f"/api/games/{game['id']}/undo").json()
    assert undone["moves"] == after_one["moves"] and undone["state"] == after_one["state"]
    assert undone["legal_moves"] == after_one["legal_moves"]
    undone = client.post(f"/api/games/{game['id']}/undo").json()
    assert undone["state"] == game["state"] and not undone["can_undo"]


def test_undo_keeps_the_agents_first_move(client):
    game = new_game(client, seat=1, seed=4)
    played = client.post(f"/api/games/{game['id']}/moves", json={"move": game["legal_moves"][0]}).json()
    assert len(played["moves"]) == 3
    undone = client.post(f"/api/games/{game['id']}/undo").json()
    assert undone["moves"] == game["moves"] and undone["state"] == game["state"]


@pytest.mark.parametrize(("method", "suffix"), [("get", ""), ("post", "/moves"), ("post", "/undo"), ("delete", "")])
def test_unknown_game_ids_get_404(client, method, suffix):
    kwargs = {"json": {"move": "1R"}} if suffix == "/moves" else {}
    message = error_of(getattr(client, method)(f"/api/games/no-such-game{suffix}", **kwargs), 404)
    assert message.startswith("unknown game id 'no-such-game'") and "POST /api/games" in message


def test_delete_drops_the_game(client):
    game = new_game(client)
    assert client.delete(f"/api/games/{game['id']}").status_code == 204
    error_of(client.get(f"/api/games/{game['id']}"), 404)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"opponent": "chess-engine"}, "bad opponent spec: unknown agent 'chess-engine'"),
        ({"opponent": "alphabeta:width=3"}, "agent 'alphabeta' has no parameter 'width'; its parameters: depth, time"),
        ({"opponent": "alphabeta:depth=0"}, "depth must be a positive int, got 0"),
        ({"opponent": "mcts:simulations=lots"}, "simulations must be int, got 'lots'"),
        ({"opponent": "alphabeta:time=30"}, "alphabeta: time=30 is over this server's limit of 0.5 seconds per move"),
        ({"opponent": "alphabeta:table_bits=28"}, "alphabeta: table_bits=28 is over this server's limit of 20"),
        ({"opponent": "alphazero:simulations=10000000"}, "simulations=10000000 is over this server's limit"),
        ({"opponent": "ppo:path=/etc/passwd"}, "ppo: path= is refused here (the page may not open files"),
        ({"opponent": ""}, "opponent: String should have at least 1 character"),
        ({"opponent": "x" * 201}, "opponent: String should have at most 200 characters"),
        ({"game": "chess"}, f"unknown game 'chess'; this server plays: {', '.join(web_games())}"),
        ({"rules": {"preset": "texts"}}, "bad rules for awale16: unknown option(s) 'preset' for the game 'awale16'"),
        ({"game": "oware", "rules": {"preset": "abapa"}}, "bad rules for oware: preset must be 'texts', 'openspiel'"),
        ({"game": "oware", "rules": {"stop_at_majority": "yes"}}, "stop_at_majority must be True or False, got 'yes'"),
        ({"game": "oware", "rules": {"first_player": 2}}, "first_player must be 0, 1 or 'random', got 2"),
        ({"game": "oware", "rules": {"preset": None}}, "rules: preset: a rule option is a string, an integer or true/"),
        ({"game": "hawalis", "rules": {"endless_move": "draws"}}, "endless_move must be 'loses' or 'illegal'"),
        (
            {"game": "hawalis", "rules": {"max_plies": 9}},
            "unknown option(s) 'max_plies' for the game 'hawalis'; its rule options are first_player, endless_move",
        ),
        ({"seat": 2}, "seat: must be 0 (player 0, the first of the game's players), 1 or 'random' (got 2)"),
        ({"seat": True}, "seat: must be 0"),
        ({"max_plies": 0}, "max_plies: Input should be greater than or equal to 1"),
        ({"max_plies": 5000}, "max_plies: Input should be less than or equal to 1000"),
        ({"seed": -1}, "seed: Input should be greater than or equal to 0"),
        ({"colour": "red"}, "unknown field 'colour'"),
    ],
)
def test_bad_new_game_requests_get_400(client, body, expected):
    assert expected in error_of(client.post("/api/games", json={"opponent": "random", **body}), 400)


def test_operator_presets_may_use_path_and_are_offered(client):
    spec = f"ppo:path={PPO_CHECKPOINT}"
    config = client.get("/api/config").json()
    assert config["presets"][0] == spec and "alphazero:pretrained" in config["presets"]
    games = {g["id"]: g for g in config["games"]}
    assert list(games) == list(web_games()) and config["default_game"] == DEFAULT_GAME
    assert {name: games[name]["title"] for name in ("awale16", "oware", "hawalis")} == {
        "awale16": "Two-colour Awale, 16 holes",
        "oware": "Oware, 2 × 6",
        "hawalis": "Hawalis, 4 × 7 relay sowing",
    }
    oware, hawalis = games["oware"], games["hawalis"]
    assert games["awale16"]["views"][0][0][0]["buttons"][1]["move"] == "16B"  # hole 16 at the top left
    for name, kind in web_games().items():
        served = {"id": name, "rule_options": list(kind.rule_options), "default_max_plies": kind.default_max_plies}
        assert games[name] == {**served, **kind.page()}
    assert [choice["rules"] for choice in oware["rule_choices"]] == [{"preset": "texts"}, {"preset": "openspiel"}]
    assert hawalis["players"] == ["South", "North"] and hawalis["default_max_plies"] == 1000
    assert config["limits"]["max_think_seconds"] == 0.5 and config["limits"]["max_games"] == 8
    assert config["agents"]["mcts"]["params"]["simulations"]["type"] == "int"
    game = new_game(client, opponent=spec, seat=1)
    assert game["opponent"] == spec and len(game["moves"]) == 1


def test_think_time_is_capped_for_depth_and_simulation_budgets(client):
    for spec in ("alphabeta:depth=40", "mcts:simulations=100000000"):
        game = new_game(client, opponent=spec, seat=1)
        assert game["opponent_name"] == spec
        assert game["moves"][0]["seconds"] < 2.0, spec  # the 0.5 s cap (alpha-beta budgets nodes from a measured rate)


def test_request_bodies_over_the_limit_get_413(client):
    game = new_game(client)
    body = b'{"move": "' + b" " * MAX_BODY_BYTES + b'"}'
    message = error_of(client.post(f"/api/games/{game['id']}/moves", content=body), 413)
    assert message == f"request body over the limit of {MAX_BODY_BYTES} bytes"

    def chunks():  # no Content-Length: the limit is counted as the body streams in
        for _ in range(10):
            yield b" " * 1000

    error_of(client.post(f"/api/games/{game['id']}/moves", content=chunks()), 413)
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_the_page_and_its_scripts_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert '<script src="/static/app.js">' in page.text and 'id="board"' in page.text
    assert "function render" in client.get("/static/app.js").text
    assert client.get("/static/style.css").status_code == 200
    assert "Not Found: GET /api/nothing" in error_of(client.get("/api/nothing"), 404)


def test_the_longest_idle_game_is_evicted():
    with TestClient(create_app(max_games=2)) as client:
        first, second = new_game(client), new_game(client)
        client.get(f"/api/games/{first['id']}")  # first is now the most recently used
        third = new_game(client)
        message = error_of(client.get(f"/api/games/{second['id']}"), 404)
        assert "this server keeps the 2 most recently used games" in message
        for game in (first, third):
            assert client.get(f"/api/games/{game['id']}").status_code == 200
        moved = client.post(f"/api/games/{first['id']}/moves", json={"move": "1R"})
        assert moved.status_code == 200 and len(moved.json()["moves"]) == 2


def test_check_spec_limits():
    assert check_spec(" alphabeta:depth=6 ", 5.0, trusted=False) == "alphabeta:depth=6"
    assert check_spec("mcts:time=5", 5.0, trusted=False) == "mcts:time=5"
    assert check_spec("ppo:path=x.zip", 5.0, trusted=True) == "ppo:path=x.zip"
    with pytest.raises(AgentSpecError, match="limit of 5 seconds per move"):
        check_spec("mcts:time=5.5", 5.0, trusted=False)
    with pytest.raises(AgentSpecError, match="limit of 64"):
        check_spec("alphazero:leaves=65", 5.0, trusted=True)
    with pytest.raises(AgentSpecError, match="path= is refused"):
        check_spec("alphazero:path=net.pt", 5.0, trusted=False)


def test_create_app_refuses_bad_settings():
    with pytest.raises(ValueError, match="max_games >= 1"):
        create_app(max_games=0)
    with pytest.raises(AgentSpecError, match="limit of 1 seconds per move"):
        create_app(max_think_seconds=1, presets=["alphabeta:time=3"])
    with pytest.raises(ValueError, match="max_client_queue <= max_queue and max_memory_mb > 0; got 3, 2, 512"):
        create_app(max_queue=2, max_client_queue=3)


def test_serve_command_checks_its_options():
    runner = CliRunner()
    assert "--max-think" in runner.invoke(cli_app, ["serve", "--help"]).output
    result = runner.invoke(cli_app, ["serve", "--max-games", "0"])
    assert result.exit_code == 2 and "--max-games >= 1" in result.output
    result = runner.invoke(cli_app, ["serve", "--preset", "nothing"])
    assert result.exit_code == 2 and "unknown agent 'nothing'" in result.output
    result = runner.invoke(cli_app, ["serve", "--max-memory", "0"])
    assert result.exit_code == 2 and "--max-memory > 0; got 2, 8, 0.0" in result.output
    for option in ("--max-think", "--max-memory"):  # refused before the server says where it listens
        for value in ("nan", "inf"):
            result = runner.invoke(cli_app, ["serve", option, value])
            assert result.exit_code == 2 and f"a finite {option} > 0" in result.output, result.output
            assert "open http" not in result.output


def test_reads_are_served_while_the_agent_thinks_and_see_the_game_before_the_move(client):
    """The search runs in a worker process, and a move is committed with its reply, all at once."""
    game = new_game(client, opponent="alphabeta:depth=40")  # thinks for the whole 0.5 s cap
    answer = {}
    mover = threading.Thread(
        target=lambda: answer.update(client.post(f"/api/games/{game['id']}/moves", json={"move": "1R"}).json())
    )
    mover.start()
    time.sleep(0.15)
    during = client.get(f"/api/games/{game['id']}").json()
    still_thinking = mover.is_alive()
    mover.join()
    assert still_thinking and during == game
    assert [m["move"] for m in answer["moves"]][:1] == ["1R"] and len(answer["moves"]) == 2


def test_a_loopback_server_answers_only_loopback_host_names():
    app = create_app(allowed_hosts=["127.0.0.1", "localhost"])
    assert TestClient(app, base_url="http://127.0.0.1:8000").get("/api/config").status_code == 200
    message = error_of(TestClient(app, base_url="http://rebound.example").get("/api/config"), 400)
    assert message == "this server answers requests addressed to 127.0.0.1, localhost, not 'rebound.example'"


def test_a_worker_that_does_not_answer_in_time_is_replaced():
    async def scenario() -> None:
        thinkers = Thinkers(1)
        try:
            with pytest.raises(AgentUnavailable, match="did not answer within 0.5 s; it was restarted"):
                await thinkers.run(0, 0.5, time.sleep, 3)
            assert await thinkers.run(0, 60, abs, -2) == 2  # a fresh process answers
        finally:
            thinkers.shutdown()

    asyncio.run(scenario())


def test_shutdown_kills_a_worker_still_busy_after_its_grace_time():
    """Ctrl-C must end the server even while a worker is stuck (or compiling on a loaded machine): a task that would
    run a minute is ended after the grace time, the replaced worker's too."""

    async def scenario() -> None:
        thinkers = Thinkers(2, shutdown_seconds=1.0)
        with pytest.raises(AgentUnavailable):
            await thinkers.run(0, 0.5, time.sleep, 60)  # worker 0 replaced, its old process still sleeping
        old = list(thinkers._retired)
        assert await thinkers.run(0, 60, abs, -2) == 2
        assert [process.is_alive() for process in old] == [True]
        busy = thinkers._submit(1, time.sleep, 60)
        while not busy.running():
            await asyncio.sleep(0.05)
        started = time.monotonic()
        thinkers.shutdown()
        assert time.monotonic() - started < 30
        assert busy.exception() is not None  # its process was killed
        assert not any(process.is_alive() for process in old)

    asyncio.run(scenario())


def as_clients(app):
    """``app`` seeing each request as sent from the address in its ``X-Test-Client`` header (the test client sends
    every request from one address)."""

    async def with_client(scope, receive, send):
        name = dict(scope.get("headers", [])).get(b"x-test-client")
        if scope["type"] == "http" and name:
            scope = {**scope, "client": (name.decode(), 50000)}
        await app(scope, receive, send)

    return with_client


def test_the_queue_of_thinks_is_bounded_per_client_and_in_all():
    """One worker, at most 3 requests waiting for an agent, 2 of one client: the next is refused at once (429 for the
    client, 503 for everyone once the queue is full) with Retry-After, and a second move in a game under way is 409."""
    app = create_app(max_think_seconds=1.0, max_queue=3, max_client_queue=2)
    with TestClient(as_clients(app)) as client:
        ids = {}
        for name, count in (("a", 3), ("b", 1), ("c", 1)):
            for k in range(count):
                body = {"opponent": "mcts:time=1", "seed": k}
                response = client.post("/api/games", json=body, headers={"X-Test-Client": name})
                assert response.status_code == 201, response.text
                ids.setdefault(name, []).append(response.json()["id"])
        queued = app.state.server.queued
        answers: dict[str, int] = {}

        def move(name: str, game_id: str) -> None:
            response = client.post(f"/api/games/{game_id}/moves", json={"move": "1R"}, headers={"X-Test-Client": name})
            answers[game_id] = response.status_code

        def refused(name: str, game_id: str, status: int) -> str:
            response = client.post(f"/api/games/{game_id}/moves", json={"move": "1R"}, headers={"X-Test-Client": name})
            assert queued.total() > 0  # at once, not after the queue: the moves ahead are still waiting or thinking
            assert response.status_code == status and int(response.headers["Retry-After"]) >= 1, response.text
            return response.json()["error"]

        threads = [threading.Thread(target=move, args=("a", game_id)) for game_id in ids["a"][:2]]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 10
        while queued["a"] < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "you have 2 (this server's limit per client is 2)" in refused("a", ids["a"][2], 429)
        assert "a move of this game is under way" in refused("a", ids["a"][0], 409)
        threads.append(threading.Thread(target=move, args=("b", ids["b"][0])))
        threads[-1].start()
        while queued.total() < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "3 requests are waiting for an agent (its limit is 3)" in refused("c", ids["c"][0], 503)
        for thread in threads:
            thread.join(timeout=60)
        assert answers == {game_id: 200 for game_id in [*ids["a"][:2], ids["b"][0]]}
        assert queued.total() == 0
        assert client.post(f"/api/games/{ids['c'][0]}/moves", json={"move": "1R"}).status_code == 200  # room again


def test_a_worker_keeps_its_agents_within_the_memory_limit():
    """Alpha-beta's table takes 15 MB: under a 20 MB limit the worker keeps one game's agent, and the others' are
    built again (with an empty table) at their next move."""
    assert search_bytes(make("alphabeta:depth=2")) > 15 * 2**20
    mcts = make("mcts:simulations=3000", seed=0)
    before = search_bytes(mcts)
    mcts.act(State.initial())
    assert search_bytes(mcts) > before  # the tree grew

    app = create_app(max_think_seconds=1.0, max_memory_mb=20)
    with TestClient(app) as client:
        games = [new_game(client, opponent="alphabeta:depth=2", seed=k) for k in range(3)]
        server = app.state.server

        def held() -> dict[str, int]:
            return asyncio.run(server.thinkers.run(0, 60, thinker.held_agents))

        assert list(held()) == [games[-1]["id"]]
        game = client.post(f"/api/games/{games[0]['id']}/moves", json={"move": "1R"}).json()
        assert len(game["moves"]) == 2  # its agent, dropped, was built again
        kept = held()
        assert list(kept) == [games[0]["id"]] and sum(kept.values()) <= 20 * 2**20


def test_the_api_reference_page_loads_nothing_from_another_host(client):
    page = client.get("/api/docs")
    assert page.status_code == 200 and "SwaggerUIBundle" in page.text
    assert "http://" not in page.text and "https://" not in page.text
    links = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert len(links) == 3 and all(link.startswith("/api/docs-assets/") for link in links)
    for link in links:
        assert client.get(link).status_code == 200
    assert 'validatorUrl": null' in page.text  # no badge fetched from the online validator
    assert client.get("/api/openapi.json").json()["paths"]["/api/games"]
    assert client.get("/redoc").status_code == 404
