"""The toy game with another turn (tests/toy_turns/): its rule, its State and search kernels keeping the contract of
every game, and the compiled searches following the mover (tests/toy_turns_search.py, run by
tests/test_toy_searches.py in a fresh process)."""

from __future__ import annotations

import pytest
from conftest import SHARED_KERNEL_CHECKS

from awale_env.testing import CHECKS, check_game


def test_a_last_seed_in_an_empty_own_pit_gives_another_turn(toy_turns):
    from toy_turns import State

    start = toy_turns.initial()
    assert start.play("A").to_move == 1  # the last seed lands in pit 2, which held 2
    again = State.from_position([1, 0, 2, 3, 3, 3], to_move=0).play("A")  # one seed into pit 1, empty and own
    assert again.board == (0, 1, 2, 3, 3, 3) and again.to_move == 0 and again.ply == 1
    assert State.from_position([0, 2, 1, 3, 3, 3], to_move=0).play("C").to_move == 1  # other row
    over = State.from_position([1, 0, 0, 0, 0, 1], (5, 5), to_move=0).play("A")  # into pit 1: player 0 again
    assert over.to_move == 0 and not over.is_terminal and over.legal_actions() == [1]
    assert toy_turns.state_type.from_dict(again.to_dict()) == again


@pytest.mark.parametrize("check", [c for c in CHECKS if c not in SHARED_KERNEL_CHECKS])  # the rest: its search file
def test_the_toy_game_with_another_turn_keeps_the_contract(toy_turns, check):
    check_game(toy_turns, checks=[check])
