"""Hostile game records (issue 17): ``GameRecord.from_text`` of random text, of text and JSON records with edited
headers and moves, and the cases that once escaped as ValueError, OverflowError, RecursionError or TypeError. Callers
catch RecordError: nothing else may come out, and a record that loads replays and round-trips."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fuzzing import NUMBER_LIKE, edited, json_values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from awale_env.errors import RecordError
from awale_env.games import Game
from awale_env.record import GameRecord

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def loads_or_refuses(text: str) -> GameRecord | None:
    """``from_text(text)``: a record that replays and reads back equal from both its formats, or None after a
    RecordError."""
    try:
        record = GameRecord.from_text(text)
    except RecordError as error:
        assert str(error), "an error message names what is wrong"
        return None
    states = record.replay()
    assert len(states) == len(record.moves) + 1
    assert GameRecord.from_text(record.to_text()) == record == GameRecord.from_text(record.to_json())
    return record


def move_texts(game: Game) -> list[str]:
    return [game.format_move(action) for action in range(game.num_actions)]


def game_record(game: Game, plies: int = 30) -> GameRecord:
    """The record of the first ``plies`` moves of a seeded random game of ``game`` (default rules, from its seed-0
    start, as records replay)."""
    rng, moves, state = np.random.default_rng(3), [], game.initial(seed=0)
    while not state.is_terminal and len(moves) < plies:
        moves.append(int(rng.choice(state.legal_actions())))
        state = state.play(moves[-1])
    return GameRecord(moves, game.default_max_plies, game=game.name)


@FUZZ
@given(text=st.text())
def test_any_text_loads_or_raises_record_error(text):
    loads_or_refuses(text)


@FUZZ
@given(data=st.data())
def test_text_records_with_hostile_headers_and_moves(registry_game, data):
    name = data.draw(st.sampled_from((registry_game.name, registry_game.name.upper(), "", "chess")))
    limit = data.draw(st.sampled_from(NUMBER_LIKE) | st.integers().map(str) | st.text(max_size=6))
    moves = data.draw(st.lists(st.sampled_from(move_texts(registry_game)) | st.text(max_size=4), max_size=12))
    comment = data.draw(st.sampled_from(("", "# a comment\n", "\n\n")))
    loads_or_refuses(f"{comment}{name} max_plies={limit}\n{' '.join(moves)}\n")


@FUZZ
@given(data=st.data())
def test_json_records_with_edited_fields(registry_game, data):
    record = json.loads(game_record(registry_game).to_json())
    loads_or_refuses(json.dumps(data.draw(edited(record, json_values))))


@pytest.mark.parametrize(
    "text",
    [
        "{name} max_plies=²",  # a Unicode digit that str.isdigit accepts and int() refuses
        "{name} max_plies=" + "9" * 5000,  # more digits than int() reads
        "{name} max_plies=" + str(2**63),  # beyond the kernels' ply counters
        '{{"game": "{name}", "max_plies": ' + "9" * 5000 + ', "moves": []}}',
        '{{"game": "{name}", "max_plies": 400, "moves": [' + "9" * 5000 + "]}}",
        '{{"game": "{name}", "moves": ' + "[" * 100_000 + "]" * 100_000 + "}}",  # nested 100,000 deep
        "[" * 100_000,
        '{{"game": ["{name}"], "moves": []}}',  # an unhashable game name
        '{{"game": {{}}, "moves": []}}',
        '{{"game": "{name}", "max_plies": 18446744073709551616, "moves": []}}',
        '{{"game": "{name}", "max_plies": 1e400, "moves": []}}',
        '{{"game": "{name}", "max_plies": true, "moves": [[[]]]}}',
        '{{"game": "{name}", "moves": [{{"a": 1}}, null, 1.5, true]}}',
        "{name} max_plies=none\n" + "9" * 5000,
    ],
)
def test_records_that_once_escaped_raise_record_error(registry_game, text):
    with pytest.raises(RecordError):
        GameRecord.from_text(text.format(name=registry_game.name))


def test_unreadable_record_files_raise_record_error(tmp_path):
    (tmp_path / "latin1.txt").write_bytes("awale16 max_plies=400\n# é\n".encode("latin-1"))
    for path in (tmp_path / "latin1.txt", tmp_path / "missing.txt", tmp_path):
        with pytest.raises(RecordError, match="cannot read game record"):
            GameRecord.load(path)
