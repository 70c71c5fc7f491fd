"""Hawalis: every worked example of docs/rules_hawalis.md, a naive reference, properties of random games, the State
API, the pure-Python fallback and the pictures.

Run as a script, this file prints the fingerprint of what the kernels compute (see
test_pure_python_fallback_is_identical).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from nojit import run_python

from awale_env.errors import IllegalMoveError
from awale_env.games import hawalis
from awale_env.games.hawalis import Rules, State
from awale_env.games.hawalis import kernels as core
from awale_env.kernels.rng import make_rng

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = json.loads((Path(__file__).parent / "data" / "hawalis_examples.json").read_text())
BY_ID = {e["id"]: e for e in EXAMPLES}
ALL_ENDLESS = [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 3, 1, 0, 1]  # the only move, pit 10, never ends
LONG_CYCLE = ([2, 1, 2, 5, 2, 3, 2, 3, 2, 1, 3, 1, 0, 1], 10)  # pit 10 sows round a cycle of 1,498 laps


def before(example: dict, **flags) -> State:
    return State.from_position(example["south_before"], example["north_before"], example["to_move"], **flags)


# --- a naive reference: the rules' text, step by step, every key of rule 8 kept in a set --------------------------


def reference_legal(own: list[int]) -> list[int]:
    """Rule 5."""
    if any(v >= 2 for v in own):
        return [k for k in range(14) if own[k] >= 2]
    return [k for k in range(14) if own[k] == 1 and own[(k + 1) % 14] == 0]


def reference_move(own: list[int], opp: list[int], k: int):
    """Rules 6-8: ``(own after, opponent after, captured, last pit, laps)``, or None for an endless move."""
    own, opp = list(own), list(opp)
    hand, own[k], pos, laps = own[k], 0, k, 1
    seen = {(tuple(own), pos)}
    while True:
        for _ in range(hand):
            pos = (pos + 1) % 14
            own[pos] += 1
        if own[pos] == 1:
            break
        hand, own[pos] = own[pos], 0
        laps += 1
        key = (tuple(own), pos)
        if key in seen:
            return None
        seen.add(key)
    captured = 0
    if pos >= 7 and opp[20 - pos]:
        captured = opp[20 - pos] + opp[pos - 7]
        opp[20 - pos] = opp[pos - 7] = 0
    return own, opp, captured, pos, laps


def sides(state: State, player: int) -> tuple[list[int], list[int]]:
    """(player's pits, the opponent's pits) in local indexing."""
    board = list(state.board)
    own, other = board[14 * player : 14 * player + 14], board[14 * (1 - player) : 14 * (2 - player)]
    return own, other


def random_game(seed: int, **flags) -> list[State]:
    rng = np.random.default_rng(seed)
    state = State.initial(**flags)
    states = [state]
    while not state.is_terminal:
        state = state.play(int(rng.choice(state.legal_actions())))
        states.append(state)
    return states


# --- worked examples -----------------------------------------------------------------------------------------------


def test_examples_are_the_rules_copies():
    shared = ROOT.parent / "shared" / "rules" / "hawalis_examples.json"
    docs = json.loads((ROOT / "docs" / "hawalis_examples.json").read_text())
    assert docs == EXAMPLES and len(EXAMPLES) == 14
    if shared.exists():  # not in CI
        assert json.loads(shared.read_text()) == EXAMPLES


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_worked_example(example):
    state = before(example)
    mover = example["to_move"]
    assert state.to_move == mover
    assert state.legal_actions() == example["legal_moves"]
    assert state.legal_mask().tolist() == [k in example["legal_moves"] for k in range(14)]
    if example["move"] is None:
        after = state
    else:
        after = state.play(example["move"])
        assert list(after.board) == example["south_after"] + example["north_after"]
        assert after.last_capture == example["captured_by_mover"]
        assert after.captured[mover] - state.captured[mover] == example["captured_by_mover"]
        assert after.captured[1 - mover] == state.captured[1 - mover]
        assert after.last_pit == example["last_pit"] and after.laps == example["laps"]
        assert after.to_move == 1 - mover and after.ply == 1
    assert after.is_terminal == example["terminal"]
    assert after.end_reason == example["end_reason"]
    assert after.winner == example["winner"]
    expected = (0.0, 0.0) if example["winner"] is None else ((1.0, -1.0) if example["winner"] == 0 else (-1.0, 1.0))
    assert after.returns() == expected
    if after.is_terminal:
        assert after.legal_actions() == [] and not after.legal_mask().any()


def test_every_opening_ends_in_its_own_pit_and_inner_openings_capture_four():
    for k in range(14):
        after = State.initial().play(k)
        assert after.last_pit == k and after.laps == 5
        assert after.last_capture == (4 if k >= 7 else 0)


def test_endless_move_illegal_flag_removes_it():
    state = before(BY_ID["H9a"], endless_move="illegal")
    assert state.legal_actions() == [13]
    with pytest.raises(IllegalMoveError, match="endless"):
        state.play(7)
    assert state.play(13).board == before(BY_ID["H9b"]).play(13).board


def test_all_moves_endless():
    loses = State.from_position(ALL_ENDLESS, [2] * 14)
    assert loses.legal_actions() == [10]
    after = loses.play(10)
    assert after.end_reason == "endless_move" and after.winner == 1 and after.board == loses.board
    assert after.last_pit is None and after.laps is None and after.ply == 1 and after.to_move == 1
    illegal = State.from_position(ALL_ENDLESS, [2] * 14, endless_move="illegal")
    assert illegal.is_terminal and illegal.end_reason == "no_legal_move" and illegal.winner == 1


def test_long_cycles_are_found_exactly():
    side, k = LONG_CYCLE
    assert reference_move(side, [2] * 14, k) is None
    assert core.is_endless(np.array(side + [2] * 14, dtype=np.int8), 0, k, core.new_scratch())
    assert State.from_position(side, [2] * 14).play(k).end_reason == "endless_move"


# --- the reference over random games ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_kernels_match_the_naive_reference_on_every_move_of_random_games(seed):
    for state in random_game(seed, endless_move="illegal"):
        if state.end_reason in ("opponent_empty", "ply_limit"):
            continue
        own, other = sides(state, state.to_move)
        south, north = (own, other) if state.to_move == 0 else (other, own)
        loses = State.from_position(south, north, state.to_move, max_plies=None)
        finite = []
        for k in reference_legal(own):
            expected = reference_move(own, other, k)
            after = loses.play(k)
            if expected is None:
                assert after.end_reason == "endless_move" and after.board == loses.board
                continue
            finite.append(k)
            own_after, other_after, captured, last, laps = expected
            assert sides(after, state.to_move) == (own_after, other_after)
            assert (after.last_capture, after.last_pit, after.laps) == (captured, last, laps)
        assert state.legal_actions() == finite


@pytest.mark.parametrize("endless_move", ["loses", "illegal"])
def test_random_games_keep_every_rule(endless_move):
    reasons = set()
    for seed in range(40):
        states = random_game(seed, endless_move=endless_move, max_plies=150)
        for before_, after in zip(states, states[1:]):
            mover = before_.to_move
            assert after.ply == before_.ply + 1 and after.to_move == 1 - mover
            # rule 12's invariant, with the captures counted move by move
            assert after.captured == (28 - sum(after.board[14:]), 28 - sum(after.board[:14]))
            assert after.captured[mover] == before_.captured[mover] + after.last_capture
            # the mover's seeds stay on the mover's side
            assert sum(sides(after, mover)[0]) == sum(sides(before_, mover)[0])
            assert all(v >= 0 for v in after.board)
            if after.end_reason != "endless_move":
                assert after.laps >= 1 and 0 <= after.last_pit < 14
                assert sides(after, mover)[0][after.last_pit] == 1  # rule 6: the sowing ends in an empty pit
        end = states[-1]
        reasons.add(end.end_reason)
        assert end.is_terminal and end.legal_actions() == []
        assert sum(end.returns()) == 0 and (end.winner is None) == (end.returns() == (0.0, 0.0))
        if end.end_reason == "opponent_empty":
            assert sum(sides(end, end.to_move)[0]) == 0 and end.winner == 1 - end.to_move
        if end.end_reason == "ply_limit":
            south, north = sum(end.board[:14]), sum(end.board[14:])
            assert end.ply == 150 and end.winner == (None if south == north else int(north > south))
    assert reasons <= {"opponent_empty", "endless_move", "ply_limit", "no_legal_move"}
    assert "opponent_empty" in reasons


def test_mirrored_position_gives_the_mirrored_game():
    """The rules do not depend on the seat (example H12): swapping the sides and the player changes nothing."""
    for state in random_game(3)[:-1]:
        own, other = sides(state, state.to_move)
        south_view = State.from_position(own, other, 0, state.ply)
        north_view = State.from_position(other, own, 1, state.ply)
        assert south_view.legal_actions() == north_view.legal_actions() == state.legal_actions()
        assert np.array_equal(south_view.observation_tensor(0), north_view.observation_tensor(1))
        for k in state.legal_actions():
            a, b = south_view.play(k), north_view.play(k)
            assert a.board[:14] == b.board[14:] and a.board[14:] == b.board[:14]
            assert (a.last_pit, a.laps, a.last_capture, a.end_reason) == (
                b.last_pit,
                b.laps,
                b.last_capture,
                b.end_reason,
            )
            assert a.winner == (None if b.winner is None else 1 - b.winner)


def test_compiled_playouts_end_as_the_state_api_says():
    rng = make_rng(99)
    for endless_move in (core.ENDLESS_LOSES, core.ENDLESS_ILLEGAL):
        for max_plies in (1000, 60):
            for _ in range(30):
                pits = core.initial_pits()
                status, winner, ply = core.random_playout(pits, 0, 0, max_plies, endless_move, rng)
                assert core.END_REASONS[status] is not None and 1 <= ply <= max_plies
                to_move = ply % 2
                if status == core.ENDLESS_MOVE:
                    assert endless_move == core.ENDLESS_LOSES and winner == to_move
                    continue
                state = State.from_position(
                    pits[:14].tolist(),
                    pits[14:].tolist(),
                    to_move,
                    int(ply),
                    endless_move=core.ENDLESS_MODES[endless_move],
                    max_plies=max_plies,
                )
                assert state.end_reason == core.END_REASONS[status]
                assert state.winner == (None if winner == core.NO_WINNER else winner)
    plies = core.random_playouts(core.initial_pits(), 0, 0, 1000, core.ENDLESS_LOSES, 20, rng)
    assert 20 <= plies <= 20 * 1000


def test_ply_limit_decides_by_seeds_on_each_side():
    south, north = [0] * 14, [0] * 14
    south[0], south[1], north[0], north[5] = 3, 2, 2, 1
    last = State.from_position(south, north, 0, ply=9, max_plies=10).play(0)
    assert last.end_reason == "ply_limit" and last.winner == 0 and last.returns() == (1.0, -1.0)
    draw = State.from_position([2] + [0] * 13, [2] + [0] * 13, 0, ply=9, max_plies=10).play(0)
    assert draw.end_reason == "ply_limit" and draw.winner is None and draw.returns() == (0.0, 0.0)
    assert State.from_position([2] + [0] * 13, [2] + [0] * 13, 0, ply=10, max_plies=10).is_terminal
    assert not State.from_position([2] + [0] * 13, [2] + [0] * 13, 0, ply=10_000, max_plies=None).is_terminal


# --- the State API -------------------------------------------------------------------------------------------------


def test_initial_state_and_flags():
    state = State.initial()
    assert state.board == (2,) * 28 and state.captured == state.stores == (0, 0)
    assert state.to_move == 0 and state.ply == 0 and state.max_plies == 1000 and not state.is_terminal
    assert state.winner is None and state.end_reason is None and state.last_pit is None and state.laps is None
    assert state.rules == Rules() and State.initial(first_player=1).to_move == 1
    firsts = {State.initial(first_player="random", seed=s).to_move for s in range(16)}
    assert firsts == {0, 1}
    assert State.initial(first_player="random", seed=5) == State.initial(first_player="random", seed=5)
    assert hawalis.NUM_ACTIONS == 14


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"first_player": 2}, "first_player"),
        ({"first_player": True}, "first_player"),
        ({"first_player": 1.0}, "first_player"),
        ({"endless_move": "draw"}, "endless_move"),
        ({"max_plies": 0}, "max_plies"),
        ({"max_plies": "10"}, "max_plies"),
    ],
)
def test_bad_flags_are_refused(flags, message):
    with pytest.raises(ValueError, match=message):
        State.initial(**flags)


@pytest.mark.parametrize(
    ("south", "north", "kwargs", "message"),
    [
        ([2] * 13, [2] * 14, {}, "14 pit counts"),
        ([2] * 14, [2] * 15, {}, "14 pit counts"),
        ([2] * 13 + [-1], [2] * 14, {}, "negative"),
        ([2] * 13 + [1.5], [2] * 14, {}, "integer"),
        ([2] * 13 + [True], [2] * 14, {}, "integer"),
        ([3] * 14, [2] * 14, {}, "at most"),
        ([2] * 14, [0] * 14, {}, "North has no seed"),
        ([0] * 14, [2] * 14, {"to_move": 1}, "South has no seed"),
        ([2] * 14, [2] * 14, {"to_move": 2}, "to_move"),
        ([2] * 14, [2] * 14, {"ply": -1}, "ply"),
    ],
)
def test_bad_positions_are_refused(south, north, kwargs, message):
    with pytest.raises(ValueError, match=message):
        State.from_position(south, north, **kwargs)


def test_bad_moves_raise_and_leave_the_state_unchanged():
    state = before(BY_ID["H3"])
    snapshot, board = state.to_dict(), state.pits.copy()
    for move, message in [
        (0, r"illegal move 0 for South \(player 0\): pit 0 is empty; legal moves: 4 5 6 7 10"),
        (1, "single seed while a pit holds 2 or more"),
        (14, "out of range"),
        (-1, "out of range"),
        (7.0, "pit index"),
        (True, "pit index"),
        (None, "pit index"),
    ]:
        with pytest.raises(IllegalMoveError, match=message):
            state.play(move)
        assert state.to_dict() == snapshot and np.array_equal(state.pits, board)
    with pytest.raises(ValueError):  # IllegalMoveError is a ValueError
        state.play(0)
    single = before(BY_ID["H7"])
    with pytest.raises(IllegalMoveError, match="next pit 10 is occupied"):
        single.play(9)
    over = before(BY_ID["H9a"]).play(7)
    with pytest.raises(IllegalMoveError, match="game is over"):
        over.play(0)
    assert state.play(np.int64(7)) == state.play(7) == state.play("7")  # move strings are the pit index in digits
    with pytest.raises(ValueError, match="read-only"):
        state.pits[0] = 5


def test_round_trip_equality_and_hash():
    states = [s for seed in range(3) for s in random_game(seed, max_plies=80)]
    states.append(before(BY_ID["H9a"]).play(7))
    for state in states:
        data = json.loads(json.dumps(state.to_dict()))
        again = State.from_dict(data)
        assert again == state and hash(again) == hash(state) and again.to_dict() == state.to_dict()
    live = before(BY_ID["H9a"])
    ended = live.play(7)
    assert ended != State.from_position(ended.board[:14], ended.board[14:], 1, 1)  # same board, game over
    assert State.initial() != State.initial(endless_move="illegal") and State.initial() != "a state"
    assert len({State.initial(), State.initial(), State.initial().play(0)}) == 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"game": "oware"}, "oware"),
        ({"captured": [5, 0]}, "captured"),
        ({"end_reason": "ply_limit"}, "end_reason"),
        ({"last_pit": 14}, "last_pit"),
        ({"laps": None}, "both"),
        ({"last_capture": 29}, "last_capture"),
        ({"endless_move": "sometimes"}, "endless_move"),
    ],
)
def test_from_dict_validates(change, message):
    data = State.initial().play(10).to_dict() | change
    with pytest.raises(ValueError, match=message):
        State.from_dict(data)
    with pytest.raises(ValueError, match="lacks"):
        State.from_dict({"south": [2] * 14})


def test_observation_is_agent_relative():
    state = before(BY_ID["H4"], max_plies=200).play(7)  # North to move
    south, north = state.board[:14], state.board[14:]
    obs0, obs1 = state.observation_tensor(0), state.observation_tensor(1)
    assert obs0.dtype == np.float32 and obs0.shape == (hawalis.OBS_SIZE,) == (29,)
    assert np.allclose(obs0[:14] * 16, south) and np.allclose(obs0[14:28] * 16, north)
    assert np.allclose(obs1[:14] * 16, north) and np.allclose(obs1[14:28] * 16, south)
    assert obs0[28] == obs1[28] == np.float32(1 / 200)
    assert np.array_equal(state.observation_tensor(), obs1)
    with pytest.raises(ValueError, match="player"):
        state.observation_tensor(2)


def test_grid_follows_rule_3():
    for k in range(14):  # rule 3's table, cell by cell
        assert hawalis.grid_position(0, k) == ((0, k) if k <= 6 else (1, 13 - k))
        assert hawalis.grid_position(1, k) == ((3, 6 - k) if k <= 6 else (2, k - 7))
    cells = {hawalis.grid_position(p, k) for p in (0, 1) for k in range(14)}
    assert cells == {(r, c) for r in range(4) for c in range(7)}
    for p in (0, 1):
        for k in range(7, 14):
            row, col = hawalis.grid_position(p, k)
            facing = hawalis.grid_position(1 - p, 20 - k)
            behind = hawalis.grid_position(1 - p, k - 7)
            assert facing[1] == behind[1] == col and {row, facing[0]} == {1, 2} and behind[0] in (0, 3)
        # sowing goes counter-clockwise for both players: along the outer row, then back along the inner one
        assert [hawalis.grid_position(p, k)[1] for k in range(14)] == (
            list(range(7)) + list(range(6, -1, -1)) if p == 0 else list(range(6, -1, -1)) + list(range(7))
        )


def test_text_board_draws_the_grid():
    state = before(BY_ID["H4"]).play(7)
    lines = str(state).splitlines()
    assert lines[0].split() == [str(c) for c in range(7)]
    assert lines[1].split("|")[1].split() == [str(v) for v in state.board[14:21][::-1]]  # North outer, k 6..0
    assert lines[2].split("|")[1].split() == [str(v) for v in state.board[21:28]]  # North inner, k 7..13
    assert lines[4].split("|")[1].split() == ["2", "2", "2", "[1]", "2", "2", "0"]  # South inner, k 13..7
    assert lines[5].split("|")[1].split() == [str(v) for v in state.board[:7]]  # South outer, k 0..6
    assert lines[-1] == "captured: South 4 | North 3 | ply 1 of 1000 | North (1) to move"
    assert "game over (endless_move): North wins" in str(before(BY_ID["H9a"]).play(7))
    assert "no limit" in str(State.initial(max_plies=None)) and "hawalis.State(south=" in repr(state)


def test_rgb_rendering():
    first, moved = State.initial(), State.initial().play(10)
    image = hawalis.render_rgb(first)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert hawalis.render_rgb(moved).shape == image.shape

    def count(img, colour):
        return int(np.all(img == colour, axis=2).sum())

    ring = (250, 215, 40)
    assert count(image, ring) == 0 < count(hawalis.render_rgb(moved), ring)  # the last pit is ringed
    assert first._repr_png_().startswith(b"\x89PNG")


def test_docs_usage_runs(capsys):
    text = (ROOT / "docs" / "rules_hawalis.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/rules_hawalis.md", "exec"), {})
    assert "S inner" in capsys.readouterr().out


# --- the pure-Python fallback ---------------------------------------------------------------------------------------


def fingerprint() -> dict:
    """What the kernels compute on examples, random playouts (both endless flags, a short limit) and State games."""
    scratch = core.new_scratch()
    examples = []
    for e in EXAMPLES:
        pits = np.array(e["south_before"] + e["north_before"], dtype=core.SEED_DTYPE)
        row = [int(core.legal_bits(pits, e["to_move"], mode, scratch)) for mode in (0, 1)]
        if e["move"] is not None:
            row.append(int(core.step(pits, e["to_move"], e["move"], 0, 1000, 0, scratch)))
        examples.append(row + pits.tolist())
    side, k = LONG_CYCLE
    examples.append(bool(core.is_endless(np.array(side + [2] * 14, dtype=np.int8), 0, k, scratch)))
    rng = make_rng(2024)
    playouts = []
    for mode in (core.ENDLESS_LOSES, core.ENDLESS_ILLEGAL):
        for max_plies in (1000, 25):
            for _ in range(6):
                pits = core.initial_pits()
                status, winner, ply = core.random_playout(pits, 0, 0, max_plies, mode, rng)
                playouts.append([int(status), int(winner), int(ply), pits.tolist()])
    h9a = BY_ID["H9a"]
    for south in (h9a["south_before"], ALL_ENDLESS):  # endless moves drawn: lost, or struck off
        for mode in (core.ENDLESS_LOSES, core.ENDLESS_ILLEGAL):
            for _ in range(4):
                pits = np.array(south + h9a["north_before"], dtype=core.SEED_DTYPE)
                status, winner, ply = core.random_playout(pits, 0, 0, 300, mode, rng)
                playouts.append([int(status), int(winner), int(ply), pits.tolist()])
    games = []
    for seed in range(3):
        game_rng, candidates = make_rng(seed), np.empty(14, dtype=np.int64)
        state, moves = State.initial(endless_move="illegal", max_plies=300), []
        while not state.is_terminal:
            moves.append(int(core.random_legal_action(state.pits, state.to_move, 1, game_rng, scratch, candidates)))
            state = state.play(moves[-1])
        games.append([moves, state.to_dict(), state.observation_tensor(0).tolist()])
    plies = int(core.random_playouts(core.initial_pits(), 0, 0, 200, 0, 5, rng))
    return {"examples": examples, "playouts": playouts, "games": games, "plies": plies, "rng": int(rng[0])}


def test_pure_python_fallback_is_identical():
    script = "import json, test_hawalis as t; print(json.dumps(t.fingerprint()))"
    assert run_python(script) == json.loads(json.dumps(fingerprint()))
