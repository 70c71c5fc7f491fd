"""Every worked example of docs/rules.md (AWALE16) as a test."""

from __future__ import annotations

import re

import pytest

from awale_env import State


def position(holes: dict[int, str], stores=(0, 0), to_move=0) -> State:
    """A State from the rules' notation: ``{14: "2B2R"}`` means hole 14 holds 2 blue and 2 red."""
    red, blue = [0] * 16, [0] * 16
    for hole, content in holes.items():
        for count, colour in re.findall(r"(\d+)([RB])", content):
            (red if colour == "R" else blue)[hole - 1] += int(count)
    return State.from_position(red, blue, stores, to_move)


def holes_of(state: State) -> dict[int, tuple[int, int]]:
    """Non-empty holes as ``{hole: (red, blue)}``."""
    return {h + 1: (r, b) for h, (r, b) in enumerate(zip(state.red, state.blue)) if r or b}


def test_example_1_blue_skips_own_holes_and_chain_crosses_owners():
    before = position({1: "2R", 16: "2R", 15: "2B", 14: "2B2R", 13: "2R2B"}, to_move=1)
    after = before.play("14B")
    assert after.last_capture == 10
    assert holes_of(after) == {13: (2, 2)}
    assert after.stores == (0, 10)


def test_example_2_blue_chain_of_five():
    before = position({1: "1R", 2: "2R", 3: "1B", 4: "2B", 5: "1R", 16: "3B1R", 15: "2R", 14: "4B"}, to_move=1)
    after = before.play("16B")
    assert after.last_capture == 10
    assert holes_of(after) == {16: (1, 0), 15: (2, 0), 14: (0, 4)}


def test_example_3_red_chain_wraps_through_the_origin():
    before = position({1: "1R", 2: "2R", 3: "1B", 4: "2B", 5: "1R", 16: "3B1R", 15: "2R", 14: "4B"}, to_move=1)
    after = before.play("16R")
    assert after.last_capture == 7
    assert holes_of(after) == {2: (2, 0), 3: (0, 1), 4: (0, 2), 5: (1, 0), 14: (0, 4)}


def test_example_4_red_laps_skip_the_origin():
    before = position({1: "17R", 2: "1R"}, stores=(23, 23), to_move=0)
    after = before.play("1R")
    assert after.last_capture == 5
    assert after.stores == (28, 23)
    assert holes_of(after) == {h: (1, 0) for h in range(4, 17)}
    assert after.seeds_on_board == 13
    assert not after.is_terminal and after.to_move == 1


def test_example_5_blue_laps_only_the_opponents_holes():
    before = position({1: "1R", 2: "1R", 3: "9B", 4: "1R"}, stores=(26, 26), to_move=0)
    after = before.play("3B")
    assert after.last_capture == 3
    assert after.stores == (29, 26)
    expected = {1: (1, 0), 2: (1, 1)} | {h: (0, 1) for h in range(6, 17, 2)}
    assert holes_of(after) == expected
    assert after.seeds_on_board == 9
    assert not after.is_terminal


def test_example_6_starving_sweep():
    before = position({1: "4R", 3: "4R", 15: "1R", 16: "2B"}, stores=(28, 25), to_move=0)
    after = before.play("15R")
    assert after.stores == (39, 25)
    assert after.last_capture == 3 + 8
    assert after.seeds_on_board == 0
    assert after.is_terminal and after.winner == 0 and after.end_reason == "score"
    assert after.returns() == (1.0, -1.0)


def test_example_7_fewer_than_eight_seeds_count_for_nobody():
    before = position({1: "4R", 4: "2R", 15: "1R", 16: "2B"}, stores=(29, 26), to_move=0)
    after = before.play("15R")
    assert after.last_capture == 3
    assert after.stores == (32, 26)
    assert after.seeds_on_board == 6 and holes_of(after) == {1: (4, 0), 4: (2, 0)}  # left on the board, nobody's
    assert after.is_terminal and after.end_reason == "few_seeds" and after.winner == 0
    assert after.returns() == (1.0, -1.0)


def test_example_8_starving_comes_before_few_seeds():
    before = position({1: "4R", 3: "3R", 15: "1R", 16: "2B"}, stores=(29, 25), to_move=0)
    after = before.play("15R")
    assert after.stores == (39, 25)
    assert after.last_capture == 3 + 7 and after.seeds_on_board == 0  # the 7 left are swept, not left for nobody
    assert after.is_terminal and after.end_reason == "score" and after.winner == 0


def test_rule_8_a_captured_hole_is_left_empty_so_the_chain_never_goes_round_twice():
    """Every hole holds 2 or 3 once ``1R`` is sown: the chain runs from hole 2 back through the origin, hole 1, and
    round the board to hole 3, then stops at hole 2, which it emptied: each hole is captured once."""
    holes = {1: "1R2B", 2: "2R"} | {h: "2R" for h in range(3, 17)}
    before = position(holes, stores=(0, 31), to_move=0)
    after = before.play("1R")
    assert after.last_capture == 3 + 2 + 14 * 2 == 33
    assert holes_of(after) == {} and after.stores == (33, 31)
    assert after.is_terminal and after.end_reason == "score" and after.winner == 0


def test_rule_11_thirty_three_captured_ends_the_game_with_seeds_on_the_board():
    """Player 1 (31) captures 2 and reaches 33 with 11 seeds left, player 2 not starved: over, the 11 are nobody's."""
    before = position({1: "1R", 2: "1B", 3: "5R", 4: "6R"}, stores=(31, 20), to_move=0)
    after = before.play("1R")
    assert after.last_capture == 2 and after.stores == (33, 20)
    assert holes_of(after) == {3: (5, 0), 4: (6, 0)}
    assert after.is_terminal and after.end_reason == "score" and after.winner == 0 and after.returns() == (1.0, -1.0)


def test_rule_11_thirty_two_each_is_a_draw():
    """Player 1 (24) captures hole 16 (3), starves player 2 and sweeps the 5 left (rule 10): 32-32, a draw."""
    before = position({1: "5R", 15: "1R", 16: "2B"}, stores=(24, 32), to_move=0)
    after = before.play("15R")
    assert after.last_capture == 3 + 5 and after.stores == (32, 32) and after.seeds_on_board == 0
    assert after.is_terminal and after.end_reason == "draw" and after.winner is None
    assert after.returns() == (0.0, 0.0)


@pytest.mark.parametrize("move", ["1R", "1B", "2R", "16B"])
def test_original_state_is_never_changed(move):
    before = position({1: "2R2B", 2: "2R2B", 16: "2R2B", 15: "2R"}, stores=(20, 20), to_move=0)
    snapshot = before.to_dict()
    try:
        before.play(move)
    except ValueError:
        pass
    assert before.to_dict() == snapshot
