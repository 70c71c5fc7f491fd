"""benchmarks/strength_openspiel.py in miniature: our alpha-beta against OpenSpiel's MCTS bot on Kalah (pinned to a
few simulations), its result file's game records replayed move for move, and the games split by how the opening
left our side (``by_start``), also derived again from the records by ``--summarise``, and by a deeper search's value of
each opening (``--deep-depth``)."""

from __future__ import annotations

import json

import pytest
from benchmark_scripts import load_benchmark

from agents import make
from awale_env.games.kalah import State


def test_a_small_match_keeps_replayable_games_and_splits_them_by_the_opening(tmp_path, monkeypatch):
    script = load_benchmark("strength_openspiel", monkeypatch)
    out = tmp_path / "kalah.json"
    script.main(["--game", "kalah", "--openspiel", "mancala", "--agent", "alphabeta:depth=2", "--simulations", "20",
                 "--games", "4", "--endgames", "3", "--out", str(out)])  # fmt: skip
    record = json.loads(out.read_text())
    figures, games = record["figures"]["alphabeta:depth=2"], record["game_records"]["alphabeta:depth=2"]
    assert figures["games"] == len(games) == 4 and figures["endgames"]["positions"] == 3
    for game in games:
        state, searches = State.initial(), list(game["searches"])
        for action in game["moves"]:
            if state.to_move == game["seat"] and state.ply >= len(game["opening"]):
                search = searches.pop(0)
                assert search["ply"] == state.ply and search["move"] == action
                assert search["depth"] >= 1 or len(state.legal_actions()) == 1
            state = state.play(action)
        assert state.is_terminal and list(state.stores) == game["stores"] and state.returns()[game["seat"]] == game[
            "result"]  # fmt: skip
        assert game["moves"][: len(game["opening"])] == game["opening"] and searches == []
    split = figures["by_start"]
    assert split["behind"]["games"] + split["level_or_ahead"]["games"] == 4
    del record["figures"]["alphabeta:depth=2"]["by_start"]
    out.write_text(json.dumps(record))
    script.main(["--summarise", str(out)])
    assert json.loads(out.read_text())["figures"]["alphabeta:depth=2"]["by_start"] == split
    script.main(["--summarise", str(out), "--deep-depth", "4"])
    record = json.loads(out.read_text())
    deep, values = record["figures"]["alphabeta:depth=2"]["by_deep_value"], record["opening_values"]["values"]
    assert sum(deep[part]["games"] for part in ("behind", "balanced", "ahead")) == 4 and deep["depth"] == 4
    agent = make("alphabeta:depth=4", seed=0)
    for game in games:  # each opening's value is the search's from the player to move, in seeds
        state = State.initial()
        for action in game["opening"]:
            state = state.play(action)
        agent.reset(0)
        agent.act(state)
        value = values[",".join(map(str, game["opening"]))]
        assert value == {"to_move": state.to_move, "seeds": agent.last_search["value"] / 10, "proven": False}


def test_deep_depth_goes_with_summarise(monkeypatch, capsys):
    script = load_benchmark("strength_openspiel", monkeypatch)
    with pytest.raises(SystemExit) as stop:
        script.main(["--deep-depth", "4", "--game", "kalah", "--agent", "alphabeta:depth=2"])
    assert stop.value.code == 2 and "--deep-depth goes with --summarise" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["not json", '{"game_records": 3}', '{"figures": {}}'])
def test_summarise_refuses_a_file_not_a_result_file_and_leaves_it_as_it_was(tmp_path, monkeypatch, capsys, text):
    script = load_benchmark("strength_openspiel", monkeypatch)
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(SystemExit) as stop:
        script.main(["--summarise", str(path)])
    assert stop.value.code == 2
    assert "not a readable result file" in capsys.readouterr().err
    assert path.read_text() == text
