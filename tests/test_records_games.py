"""Game records of every game and rule variant: the rule options travel in the record and the game replays under
them, in text and JSON; a bad option is a RecordError naming it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from awale_env import GameRecord, RecordError
from awale_env.games import Game


def random_record(game: Game, options: dict[str, Any], seed: int) -> GameRecord:
    state, moves = game.initial(seed=0, **options), []
    rng = np.random.default_rng(seed)
    while not state.is_terminal and len(moves) < 300:
        moves.append(int(rng.choice(state.legal_actions())))
        state = state.play(moves[-1])
    return GameRecord(moves, state.max_plies, game.name, dict(options))


@pytest.mark.parametrize("suffix", [".txt", ".json"])
def test_records_keep_rule_options(tmp_path, game_config, suffix):
    game, options = game_config
    record = random_record(game, options, seed=5)
    path = tmp_path / f"game{suffix}"
    record.save(path)
    loaded = GameRecord.load(path)
    assert loaded == record
    expected = game.initial(seed=0, **options)
    for action in record.moves:
        expected = expected.play(action)
    assert loaded.final_state() == expected


def test_options_in_the_header_are_read_as_json_or_bare_strings():
    text = "oware max_plies=none preset=openspiel first_player=1 grand_slam=no_capture\n"
    record = GameRecord.from_text(text)
    assert record.options == {"preset": "openspiel", "first_player": 1, "grand_slam": "no_capture"}
    assert record.final_state().to_move == 1
    assert GameRecord.from_text(record.to_text()) == record


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("oware max_plies=9 bogus=1\n", "unknown option"),
        ("oware max_plies=9 preset\n", "expected NAME=VALUE"),
        ("oware max_plies=9 preset=nonsense\n", "bad record header"),
        ('{"game": "oware", "options": [1], "moves": []}', "'options' must be an object"),
    ],
)
def test_bad_rule_options_name_the_problem(text, message):
    with pytest.raises(RecordError, match=message):
        GameRecord.from_text(text)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"max_plies": -1}, "bad record header: max_plies must be a positive integer"),
        ({"moves": [3, 99]}, "ply 2: move 99 is not an action of awale16 \\(0 to 31\\)"),
        ({"moves": [True]}, "ply 1: move True is not an action"),
        ({"game": 3}, "the game of a record is a game's name"),
        ({"game": "nope"}, "unknown game 'nope'"),
    ],
)
def test_a_record_built_in_python_is_checked_at_once(arguments, message):
    """Not at replay, long after: the header and the moves' range when the record is made."""
    with pytest.raises(RecordError, match=message):
        GameRecord(**arguments)
