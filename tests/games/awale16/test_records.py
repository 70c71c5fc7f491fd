"""Game records: save, load, replay with validation."""

from __future__ import annotations

import numpy as np
import pytest

from awale_env import GameRecord, RecordError, State


def a_game(seed: int = 3, max_plies: int | None = 400) -> GameRecord:
    rng = np.random.default_rng(seed)
    state, moves = State.initial(max_plies), []
    while not state.is_terminal:
        moves.append(int(rng.choice(state.legal_actions())))
        state = state.play(moves[-1])
    return GameRecord(moves, max_plies)


@pytest.mark.parametrize("name", ["game.txt", "game.json"])
@pytest.mark.parametrize("max_plies", [400, None, 30])
def test_save_load_replay(tmp_path, name, max_plies):
    record = a_game(max_plies=max_plies)
    record.save(tmp_path / name)
    loaded = GameRecord.load(tmp_path / name)
    assert loaded == record
    assert loaded.final_state().is_terminal


def test_text_format():
    record = GameRecord([0, 27 - 24], 400)
    assert record.to_text() == "awale16 max_plies=400\n1R 2B\n"
    assert GameRecord.from_text("# a comment\nawale16 max_plies=none\n1r\n2b 3R\n").moves == [0, 3, 4]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty game record"),
        ("chess max_plies=400\n1R", "bad record header"),
        ("awale16 max_plies=-3\n1R", "bad max_plies"),
        ("awale16 max_plies=0\n1R", "bad record header"),
        ("awale16 max_plies=400\n1R 2B 3X", "ply 3: malformed move '3X'"),
        ("awale16 max_plies=400\n1R 1R", "ply 2: illegal move 1R for player 1"),
        ('{"game": "awale16", "moves": ["1R", "17R"]}', "ply 2: malformed move '17R'"),
        ('{"game": "awale16", "moves": ', "not valid JSON"),
        ('{"game": "awale16"}', "'moves' list"),
        ("awale16 max_plies=2\n1R 2R 3R", "ply 3: cannot play 3R: the game is over"),
    ],
)
def test_corrupt_records_name_the_problem(text, message):
    with pytest.raises(RecordError, match=message):
        GameRecord.from_text(text)


def test_unreadable_file(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        GameRecord.load(tmp_path / "missing.txt")
    (tmp_path / "binary.txt").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError):
        GameRecord.load(tmp_path / "binary.txt")
