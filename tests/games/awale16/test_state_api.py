"""The State API contract: construction, validation, errors, conversions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from awale_env import IllegalMoveError, State, format_move, parse_move

EMPTY = [0] * 16


def test_initial_position():
    s = State.initial()
    assert s.red == (2,) * 16 and s.blue == (2,) * 16 and s.stores == (0, 0)
    assert s.to_move == 0 and s.ply == 0 and s.max_plies == 400
    assert not s.is_terminal and s.winner is None and s.end_reason is None and s.returns() == (0.0, 0.0)
    assert s.legal_actions() == [a for a in range(32) if (a >> 1) % 2 == 0]
    mask = s.legal_mask()
    assert mask.dtype == bool and mask.shape == (32,)
    mask[:] = False  # the caller's copy
    assert s.legal_mask().sum() == 16


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"red": [1] * 15, "blue": [1] * 16}, "red must hold 16"),
        ({"red": [-1] + [2] * 15, "blue": [2] * 16}, "must not be negative"),
        ({"red": [1.5] + [2] * 15, "blue": [2] * 16}, "must be an integer"),
        ({"red": [2] * 16, "blue": [2] * 16, "stores": (1, 0)}, "65 seeds"),
        ({"red": [2] * 16, "blue": [2] * 16, "to_move": 2}, "to_move"),
        ({"red": [2] * 16, "blue": [2] * 16, "ply": -1}, "ply"),
        ({"red": [2] * 16, "blue": [2] * 16, "max_plies": 0}, "max_plies"),
        ({"red": [4] + [0] * 15, "blue": [4] + [0] * 15, "to_move": 1}, "has no seed"),
    ],
)
def test_from_position_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        State.from_position(**kwargs)


def test_from_position_applies_end_checks():
    few = State.from_position([1, 1, 1] + [0] * 13, EMPTY, stores=(30, 20))
    assert few.is_terminal and few.end_reason == "few_seeds" and few.winner == 0
    limit = State.from_position([2] * 16, [2] * 16, ply=10, max_plies=10)
    assert limit.is_terminal and limit.end_reason == "ply_limit" and limit.winner is None
    assert limit.returns() == (0.0, 0.0)
    unlimited = State.initial(max_plies=None)
    assert unlimited.max_plies is None and not unlimited.is_terminal


def test_play_accepts_indices_strings_and_numpy_integers():
    s = State.initial()
    assert s.play(0) == s.play("1R") == s.play("1r") == s.play(np.int64(0))
    assert s.play("15b") == s.play(29)


@pytest.mark.parametrize("move", ["17R", "3X", "0R", "", " 1R", "1RR", "R1", 32, -1, 2, "2R", True, 1.0, None])
def test_bad_moves_raise_and_change_nothing(move):
    s = State.initial()
    before = s.to_dict()
    with pytest.raises(IllegalMoveError) as info:
        s.play(move)
    assert isinstance(info.value, ValueError) and str(info.value)
    assert s.to_dict() == before
    if move == "2R":
        assert str(info.value).startswith(
            "illegal move 2R for player 0: hole 2 belongs to player 1; legal moves: 1R 1B 3R"
        )


def test_illegal_move_message_lists_legal_moves():
    s = State.from_position([1, 0, 3] + [0] * 13, [0, 1, 0, 4] + [0] * 12, stores=(20, 20))
    with pytest.raises(
        IllegalMoveError,
        match=r"illegal move 1B for player 0: hole 1 holds no blue seed; "
        r"legal moves: 1R 3R",
    ):
        s.play("1B")
    with pytest.raises(IllegalMoveError, match="hole 2 belongs to player 1"):
        s.play("2B")


def test_playing_a_finished_game_raises():
    over = State.from_position([1, 1, 1] + [0] * 13, EMPTY, stores=(30, 20))
    with pytest.raises(IllegalMoveError, match="game is over"):
        over.play("1R")


def test_notation_round_trip():
    assert [format_move(a) for a in (0, 1, 2, 27, 30, 31)] == ["1R", "1B", "2R", "14B", "16R", "16B"]
    assert all(parse_move(format_move(a)) == a for a in range(32))
    for bad in ("17R", "3X", "03R", "1 R", "1Rx"):
        with pytest.raises(IllegalMoveError, match="malformed move"):
            parse_move(bad)
    with pytest.raises(IllegalMoveError, match="out of range"):
        format_move(32)


def test_dict_round_trip_equality_and_hash():
    s = State.initial().play("1R").play("2B").play("3R")
    data = json.loads(json.dumps(s.to_dict()))
    back = State.from_dict(data)
    assert back == s and hash(back) == hash(s) and back.last_capture == s.last_capture
    assert len({s, back, State.initial()}) == 2
    with pytest.raises(ValueError, match="lacks"):
        State.from_dict({"red": [2] * 16})
    with pytest.raises(ValueError, match="oware"):
        State.from_dict(data | {"game": "oware"})


def test_state_is_immutable():
    s = State.initial()
    with pytest.raises(ValueError):
        s.seeds[0] = 5
    with pytest.raises(AttributeError):
        s.ply = 3
    with pytest.raises(TypeError):
        State()


def test_board_diagram_shows_rows_stores_and_turn():
    text = str(State.initial().play("1R"))
    lines = text.splitlines()
    assert "16" in lines[0] and "1*" in lines[3] and "0R2B" in lines[2]
    assert "player 1 (even holes) to move" in lines[-1] and "ply 1 of 400" in lines[-1]


def test_observation_is_the_viewers_rotation():
    s = State.initial().play("1R")
    obs0, obs1 = s.observation_tensor(0), s.observation_tensor(1)
    assert obs0.dtype == np.float32 and obs0.shape == (35,)
    assert obs0[0] == 0 and obs1[30] == 0  # hole 1 red, emptied, seen by both seats
    assert obs0[34] == pytest.approx(1 / 400)
