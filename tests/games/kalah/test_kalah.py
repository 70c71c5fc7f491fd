"""Kalah's rules (docs/rules_kalah.md): the worked examples K1-K4, the rule flags, bad input, and the independent
check: random games replayed move for move through OpenSpiel's ``mancala``."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import numpy as np
import pytest

from awale_env.errors import IllegalMoveError
from awale_env.games import get_game
from awale_env.games.kalah import Rules, State

ROOT = Path(__file__).resolve().parents[3]


def position(board, stores, to_move, **flags):
    return State.from_position(board, stores, to_move, **flags)


def test_k1_a_last_seed_in_the_own_store_gives_another_turn():
    after = State.initial().play(2)
    assert after.board == (4, 4, 0, 5, 5, 5, 4, 4, 4, 4, 4, 4) and after.stores == (1, 0)
    assert after.to_move == 0 and after.ply == 1 and after.last_capture == 1 and not after.is_terminal


def test_k2_the_last_seed_in_an_own_empty_pit_captures_the_opposite_pit():
    before = position([1, 0, 0, 1, 2, 3, 0, 1, 0, 0, 1, 2], (11, 26), 1)
    assert before.legal_actions() == [1, 4, 5]
    after = before.play(1)
    assert after.board == (1, 0, 0, 0, 2, 3, 0, 0, 0, 0, 1, 2) and after.stores == (11, 28) and after.to_move == 0
    assert after.last_capture == 2


def test_k3_a_lap_of_13_seeds_captures_in_the_emptied_pit():
    before = position([0, 0, 0, 1, 1, 1, 2, 13, 2, 1, 0, 0], (9, 18), 1)
    after = before.play(1)
    assert after.board == (1, 1, 1, 2, 0, 2, 3, 0, 3, 2, 1, 1) and after.stores == (9, 22) and after.to_move == 0


def test_k4_an_empty_row_ends_the_game_and_the_seeds_left_count_for_their_owner():
    after = position([0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0], (15, 31), 0).play(5)
    assert after.is_terminal and after.end_reason == "empty_row" and after.stores == (16, 32)
    assert after.winner == 1 and after.returns() == (-1.0, 1.0) and after.board == (0,) * 12


def test_capture_empty_opposite_takes_the_last_seed_alone():
    both = position([0, 0, 1, 0, 3, 3, 2, 2, 2, 2, 0, 2], (13, 18), 0)  # pit 2's seed into pit 3, empty; pit 8 holds 2
    assert both.play(2).board[3] == both.play(2).board[8] == 0 and both.play(2).stores == (16, 18)
    lone = [0, 0, 1, 0, 3, 3, 2, 2, 0, 4, 0, 2]  # the same with pit 8 empty
    kept = position(lone, (13, 18), 0).play(2)
    assert kept.board[3] == 1 and kept.stores == (13, 18) and kept.to_move == 1
    taken = position(lone, (13, 18), 0, capture_empty_opposite=True).play(2)
    assert taken.board[3] == 0 and taken.stores == (14, 18) and taken.last_capture == 1


@pytest.mark.parametrize("seeds", range(1, 7))
def test_seeds_per_pit_sets_the_start(seeds):
    start = State.initial(seeds_per_pit=seeds)
    assert start.board == (seeds,) * 12 and start.total_seeds == 12 * seeds and start.rules.seeds_per_pit == seeds
    assert State.from_dict(start.play(0).to_dict()) == start.play(0)


def test_the_ply_limit_ends_the_game_counting_the_rows():
    end = State.initial(max_plies=1).play(0)  # 4 seeds into pits 1-4: player 1 to move, but the limit is reached
    assert end.end_reason == "ply_limit" and end.stores == (24, 24) and end.winner is None


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="seeds_per_pit must be an integer 1-6"):
        State.initial(seeds_per_pit=7)
    with pytest.raises(ValueError, match="capture_empty_opposite must be True or False"):
        Rules(capture_empty_opposite=1)
    with pytest.raises(ValueError, match="unknown rule flag\\(s\\) preset"):
        State.initial(preset="openspiel")
    with pytest.raises(ValueError, match="hold 49 seeds; the game has 48"):
        position([4] * 12, (1, 0), 0)
    start = State.initial()
    with pytest.raises(IllegalMoveError, match="malformed move 6"):
        start.play(6)
    with pytest.raises(IllegalMoveError, match="pit 2 is empty"):
        start.play(2).play(2)
    with pytest.raises(ValueError, match="end_reason 'empty_row' needs a known reason and an empty board"):
        State.from_dict({**start.to_dict(), "end_reason": "empty_row"})
    assert get_game("kalah").parse_move(" 3 ") == 3


def test_the_text_board_and_the_usage_example_of_the_rules_doc(capsys):
    lines = str(State.initial().play(2)).splitlines()
    assert lines[2].split() == ["store", "1", "0", "store", "0", "1"] and lines[3].split()[1:] == "4 4 0 5 5 5".split()
    assert "player 0 to move, legal [0, 1, 3, 4, 5]" in lines[5]
    text = (ROOT / "docs" / "rules_kalah.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) == 1
    exec(compile(blocks[0], "docs/rules_kalah.md", "exec"), {})
    assert "player 1" in capsys.readouterr().out


# --- the independent check: OpenSpiel's mancala ---------------------------------------------------------------------


def _pyspiel():
    try:
        import pyspiel
    except ImportError as error:
        if os.environ.get("CI"):
            raise  # CI installs the dev extra, so the check must run there
        pytest.skip(f"pyspiel cannot be imported ({error}); `pip install open-spiel` (dev extra) runs this check")
    return pyspiel


def _their_position(state) -> tuple[tuple[int, ...], tuple[int, int]]:
    """OpenSpiel's board (14 places: player 1's store, pits 0..5, player 0's store, pits 6..11) as ours."""
    board = [int(x) for x in state.observation_tensor(0)[:14]]
    return tuple(board[1:7] + board[8:14]), (board[7], board[0])


def test_random_games_match_openspiel_mancala_move_for_move():
    """1,000 random games through both engines: board, stores, player to move, legal actions, terminal flag and
    returns compared at every ply (OpenSpiel's actions are ours + 1 for player 0, + 8 for player 1). OpenSpiel
    leaves the seeds of the rows on its board at the end; ours counts them in the stores."""
    game = _pyspiel().load_game("mancala")
    rng = random.Random(20261127)
    plies = again = 0
    for _ in range(1000):
        theirs, ours = game.new_initial_state(), State.initial()
        while True:
            board, stores = _their_position(theirs)
            assert theirs.is_terminal() == ours.is_terminal
            assert tuple(theirs.returns()) == ours.returns()
            if ours.is_terminal:
                rows = sum(board[:6]), sum(board[6:])
                assert (stores[0] + rows[0], stores[1] + rows[1]) == ours.stores
                break
            assert board == ours.board and stores == ours.stores
            assert theirs.current_player() == ours.to_move
            shift = 1 if ours.to_move == 0 else 8
            assert [a - shift for a in theirs.legal_actions()] == ours.legal_actions()
            action = rng.choice(ours.legal_actions())
            theirs.apply_action(action + shift)
            mover = ours.to_move
            ours = ours.play(action)
            again += ours.to_move == mover and not ours.is_terminal
            plies += 1
    assert plies > 30_000 and again > 3_000


def test_the_compiled_playouts_follow_the_rules():
    """A compiled random game, replayed move by move through the State, ends the same way (the playout draws its
    moves from the same generator as :func:`kernels.random_action`)."""
    from awale_env.games.kalah import kernels
    from awale_env.kernels.rng import make_rng

    for seed in range(20):
        board, stores = np.full(12, 4, dtype=np.int8), np.zeros(2, dtype=np.int16)
        code, ply = kernels.random_playout(board, stores, 0, 0, 1000, 4, make_rng(seed))
        state, rng = State.initial(), make_rng(seed)
        while not state.is_terminal:
            state = state.play(int(kernels.random_action(state.pits.copy(), state.to_move, rng)))
        assert (state.stores, state.ply, state.end_reason) == ((int(stores[0]), int(stores[1])), ply,
                                                               kernels.END_REASONS[code])  # fmt: skip


def test_a_refereed_game_reports_who_played_each_move():
    """A refereed game (tournaments, the referee) records the seat of every move: a Kalah move can give another
    turn, so the seats do not simply alternate."""
    from agents import make
    from competition.refereed_game import AgentPlayer, RefereedGame

    game = get_game("kalah")
    players = [AgentPlayer(make("greedy", seed=seat), game) for seat in (0, 1)]
    refereed = RefereedGame(game, {}, None, lambda index, _: players[index], 1, 5.0, 0.0, opening=(2,))
    report = refereed.play()
    state, seats = game.initial(), []
    for move in ["2", *report.moves]:
        seats.append(state.to_move)  # JoueurA (seat 0) is player 0, who moves first
        state = state.play(game.parse_move(move))
    assert report.movers == seats and seats[:2] == [0, 0] and state.is_terminal
