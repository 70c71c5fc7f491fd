"""Classic Oware (docs/rules_oware.md): every worked example, a naive reference, properties of random play, the
pure-Python fallback, the State API contract, and the move-by-move check against OpenSpiel's ``oware``.
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import numpy as np
import pytest
from nojit import run_python

from awale_env.errors import IllegalMoveError
from awale_env.games.oware import NUM_ACTIONS, Rules, State, key_position
from awale_env.games.oware import kernels as core
from awale_env.kernels.rng import make_rng

ROOT = Path(__file__).resolve().parents[3]

BOTH = ["texts", "openspiel"]


def legal_bits(state: State) -> int:
    return sum(1 << a for a in state.legal_actions())


def pos(board, stores=(0, 0), to_move=0, preset="texts", **kwargs) -> State:
    return State.from_position(board, stores, to_move, preset=preset, **kwargs)


# --- worked examples O1-O8 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", BOTH)
def test_o1_first_move(preset):
    after = State.initial(preset, first_player=0).play(2)
    assert after.board == (4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4)
    assert after.stores == (0, 0) and after.last_capture == 0 and after.to_move == 1


@pytest.mark.parametrize("preset", BOTH)
def test_o2_capture_chain_stops_at_own_row(preset):
    before = pos([0, 0, 8, 0, 0, 1, 1, 1, 1, 1, 2, 3], (10, 20), preset=preset)
    assert before.legal_actions() == [2, 5]
    after = before.play(2)
    assert after.board == (0, 0, 0, 1, 1, 2, 0, 0, 0, 0, 0, 3)
    assert after.stores == (21, 20) and after.last_capture == 11
    assert after.to_move == 1 and after.legal_actions() == [5] and not after.is_terminal


def test_o2b_texts_plays_on_past_a_majority():
    after = pos([0, 0, 8, 0, 0, 1, 1, 1, 1, 1, 2, 3], (15, 15)).play(2)
    assert after.stores == (26, 15) and not after.is_terminal


def test_o2b_openspiel_stops_at_a_majority():
    after = pos([0, 0, 8, 0, 0, 1, 1, 1, 1, 1, 2, 3], (15, 15), preset="openspiel").play(2)
    assert after.is_terminal and after.end_reason == "majority"
    assert after.stores == (30, 18) and after.board == (0,) * 12
    assert after.winner == 0 and after.returns() == (1.0, -1.0)


@pytest.mark.parametrize("preset", BOTH)
def test_o3_laps_skip_the_starting_pit(preset):
    after = pos([17, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1], (13, 13), preset=preset).play(0)
    assert after.board == (0, 2, 2, 2, 2, 2, 0, 2, 2, 2, 2, 2)
    assert after.stores == (15, 13)


def test_o4_texts_forbids_the_grand_slam():
    before = pos([1, 1, 1, 1, 1, 0, 0, 0, 8, 0, 0, 1], (17, 17), to_move=1)
    assert before.legal_actions() == [5]
    with pytest.raises(IllegalMoveError, match="grand slam"):
        before.play(2)


def test_o4_openspiel_grand_slam_captures_nothing():
    before = pos([1, 1, 1, 1, 1, 0, 0, 0, 8, 0, 0, 1], (17, 17), to_move=1, preset="openspiel")
    assert before.legal_actions() == [2, 5]
    after = before.play(2)
    assert after.board == (2, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 2)
    assert after.stores == (17, 17) and after.last_capture == 0


@pytest.mark.parametrize("preset", BOTH)
def test_o4_single_capture(preset):
    after = pos([1, 1, 1, 1, 1, 0, 0, 0, 8, 0, 0, 1], (17, 17), to_move=1, preset=preset).play(5)
    assert after.board == (0, 1, 1, 1, 1, 0, 0, 0, 8, 0, 0, 0)
    assert after.stores == (17, 19)


@pytest.mark.parametrize("preset", BOTH)
def test_o5_must_feed(preset):
    before = pos([1, 0, 0, 0, 0, 1] + [0] * 6, (23, 23), preset=preset)
    assert before.legal_actions() == [5]
    with pytest.raises(IllegalMoveError, match="cannot reach"):
        before.play(0)
    after = before.play(5)
    assert after.board == (1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0)
    assert after.stores == (23, 23) and not after.is_terminal


@pytest.mark.parametrize("preset", BOTH)
def test_o6_cannot_feed_ends_the_game(preset):
    state = pos([1, 1, 0, 0, 0, 0] + [0] * 6, (23, 23), preset=preset)
    assert state.is_terminal and state.end_reason == "no_move" and state.legal_actions() == []
    assert state.stores == (25, 23) and state.winner == 0 and state.returns() == (1.0, -1.0)


def test_o7_texts_only_move_is_a_grand_slam():
    state = pos([0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0], (23, 23))
    assert state.is_terminal and state.end_reason == "no_move"
    assert state.stores == (24, 24) and state.winner is None and state.returns() == (0.0, 0.0)


def test_o7_openspiel_grand_slam_then_cannot_feed():
    before = pos([0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0], (23, 23), preset="openspiel")
    assert before.legal_actions() == [5]
    after = before.play(5)
    assert after.is_terminal and after.end_reason == "no_move"
    assert after.stores == (23, 25) and after.winner == 1 and after.returns() == (-1.0, 1.0)


@pytest.mark.parametrize(("preset", "stores"), [("texts", (23, 23)), ("openspiel", (24, 24))])
def test_o8_repetition(preset, stores):
    state = pos([1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], (23, 23), preset=preset)
    for move in (0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5):
        assert not state.is_terminal
        state = state.play(move)
    assert state.is_terminal and state.end_reason == "repetition" and state.ply == 12
    assert state.stores == stores and state.winner is None and state.returns() == (0.0, 0.0)


# --- a naive reference written straight from the spec ----------------------------------------------------------


class Naive:
    """The rules one seed at a time, with the repetition set keyed by (pits, player, stores) as rule 9 says."""

    def __init__(self, board, stores, to_move, rules: Rules, max_plies=1000):
        self.board, self.stores, self.to_move, self.ply = list(board), list(stores), to_move, 0
        self.rules, self.max_plies = rules, max_plies
        self.seen = {self.key()}
        self.reason = None
        self.end_checks(repeated=False)

    def key(self):
        return tuple(self.board), self.to_move, tuple(self.stores)

    def sown(self, a):
        """(board after sowing, pits captured, grand slam?) for action ``a`` of the player to move."""
        b, p = list(self.board), self.to_move
        house = 6 * p + a
        n, pit = b[house], house
        b[house] = 0
        while n:
            pit = (pit + 1) % 12
            if pit != house:
                b[pit] += 1
                n -= 1
        opponent = range(6 * (1 - p), 6 * (1 - p) + 6)
        chain = []
        while pit in opponent and b[pit] in (2, 3):
            chain.append(pit)
            pit -= 1
        grand = bool(chain) and all(b[k] == 0 for k in opponent if k not in chain)
        return b, chain, grand

    def legal(self):
        if self.reason is not None:
            return []
        p = self.to_move
        opponent = range(6 * (1 - p), 6 * (1 - p) + 6)
        starving = sum(self.board[k] for k in opponent) == 0
        moves = []
        for a in range(6):
            if self.board[6 * p + a] == 0:
                continue
            b, _, grand = self.sown(a)
            if starving and sum(b[k] for k in opponent) == 0:
                continue
            if grand and self.rules.grand_slam == "forbidden":
                continue
            moves.append(a)
        return moves

    def play(self, a):
        b, chain, grand = self.sown(a)
        if grand and self.rules.grand_slam == "no_capture":
            chain = []
        self.stores[self.to_move] += sum(b[k] for k in chain)
        for k in chain:
            b[k] = 0
        self.board, self.to_move, self.ply = b, 1 - self.to_move, self.ply + 1
        if chain:
            self.seen = set()
        repeated = self.key() in self.seen
        self.seen.add(self.key())
        self.end_checks(repeated)

    def end_checks(self, repeated):
        s0, s1 = self.stores
        if repeated:
            self.settle("repetition", self.rules.on_repetition)
        elif self.rules.stop_at_majority and (max(s0, s1) >= 25 or s0 == s1 == 24):
            self.settle("majority", "own_side")
        elif not self.legal():
            self.settle("no_move", self.rules.on_no_move)
        elif self.ply >= self.max_plies:
            self.settle("ply_limit", self.rules.on_repetition)

    def settle(self, reason, disposal):
        if disposal == "own_side":
            self.stores[0] += sum(self.board[:6])
            self.stores[1] += sum(self.board[6:])
        self.board = [0] * 12
        self.reason = reason


RULE_VARIANTS = [
    Rules.preset("texts"),
    Rules.preset("openspiel"),
    Rules.preset("texts", stop_at_majority=True, on_no_move="discard"),
    Rules.preset("openspiel", on_repetition="discard", grand_slam="forbidden"),
]


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=lambda r: f"{r.name}-{r.code}")
@pytest.mark.parametrize("max_plies", [1000, 60])
def test_random_games_match_the_naive_reference(rules, max_plies):
    rng = random.Random(rules.code * 1000 + max_plies)
    for _ in range(40):
        state = State.initial(rules, max_plies=max_plies, first_player=rng.randrange(2))
        naive = Naive(state.board, state.stores, state.to_move, rules, max_plies)
        while True:
            assert state.legal_actions() == naive.legal()
            assert (state.board, state.stores) == (tuple(naive.board), tuple(naive.stores))
            assert state.to_move == naive.to_move
            assert state.end_reason == naive.reason
            if state.is_terminal:
                break
            action = rng.choice(state.legal_actions())
            state, _ = state.play(action), naive.play(action)


def test_studies_with_big_pits_match_the_naive_reference():
    """Positions no random game reaches: pits of 11-30 seeds (several laps), starving opponents, grand slams."""
    rng = random.Random(7)
    for i in range(300):
        board = [0] * 12
        for _ in range(rng.randrange(1, 48)):
            board[rng.choice([rng.randrange(12), rng.randrange(6), 5, 11])] += 1
        rules = RULE_VARIANTS[i % len(RULE_VARIANTS)]
        state = pos(board, (0, 48 - sum(board)), rng.randrange(2), preset=rules)
        naive = Naive(board, (0, 48 - sum(board)), state.to_move, rules)
        for _ in range(30):
            assert state.legal_actions() == naive.legal() and state.end_reason == naive.reason
            assert (state.board, state.stores) == (tuple(naive.board), tuple(naive.stores))
            if state.is_terminal:
                break
            action = rng.choice(state.legal_actions())
            state, _ = state.play(action), naive.play(action)


# --- properties of random play ---------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", BOTH)
def test_random_games_keep_the_invariants(preset):
    rng, out = random.Random(preset), np.empty(6, dtype=bool)
    for _ in range(60):
        state = State.initial(preset, seed=rng.randrange(1 << 30))
        while not state.is_terminal:
            assert sum(state.board) + sum(state.stores) == 48  # every seed is on the board or in a store
            mask = state.legal_mask()
            assert mask.dtype == bool and mask.shape == (6,)
            assert np.flatnonzero(mask).tolist() == state.legal_actions() != []
            assert all(state.is_legal(a) == mask[a] for a in range(6))
            core.legal_mask(state.pits, state.to_move, state.rules.code, out)
            assert np.array_equal(out, mask)
            mover, before = state.to_move, state.stores
            state = state.play(rng.choice(state.legal_actions()))
            assert state.stores[1 - mover] == before[1 - mover] or state.is_terminal
        assert state.ply <= 1000 and state.board == (0,) * 12 and not state.legal_mask().any()
        total = sum(state.stores)
        if state.end_reason in ("repetition", "ply_limit") and preset == "texts":
            assert total <= 48  # the seeds left count for nobody
        else:
            assert total == 48
        assert state.winner == (None if state.stores[0] == state.stores[1] else int(state.stores[1] > state.stores[0]))
        assert sum(state.returns()) == 0


@pytest.mark.parametrize("preset", BOTH)
def test_compiled_playout_equals_the_state_api(preset):
    """The whole-game kernel (repetition set included) plays exactly the games the State API plays."""
    for seed in range(30):
        max_plies = 1000 if seed % 3 else 40
        start = State.initial(preset, max_plies=max_plies, first_player=seed % 2)
        pits, stores = start.pits.copy(), np.array(start.stores, dtype=core.STORE_DTYPE)
        keys, rng = core.key_set_from(start.repetition_keys), make_rng(seed)
        status, ply = core.random_playout(pits, stores, start.to_move, 0, max_plies, start.rules.code, keys, rng)
        rng, state = make_rng(seed), start
        while not state.is_terminal:
            state = state.play(int(core.random_action(legal_bits(state), rng)))
        assert (core.END_REASONS[status], ply, tuple(stores.tolist())) == (state.end_reason, state.ply, state.stores)
        assert not pits.any()


def test_random_playouts_count_plies():
    pits, stores = core.initial_pits(), np.zeros(2, dtype=core.STORE_DTYPE)
    plies = core.random_playouts(pits, stores, 0, 0, 1000, Rules.preset("openspiel").code, 50, make_rng(3))
    assert 50 * 20 < plies < 50 * 1000
    assert pits.tolist() == [4] * 12 and stores.tolist() == [0, 0]  # the start position is left alone


# --- repetition keys and the key set ---------------------------------------------------------------------------


def test_position_keys_are_exact_and_invertible():
    rng = random.Random(1)
    seen = {}
    for _ in range(3000):
        board = [0] * 12
        for _ in range(rng.randrange(49)):
            board[rng.randrange(12)] += 1
        player = rng.randrange(2)
        key = int(core.position_key(np.array(board, dtype=core.PIT_DTYPE), player))
        assert 0 <= key < 1 << 42
        assert key_position(key) == (tuple(board), player)
        assert seen.setdefault(key, (tuple(board), player)) == (tuple(board), player)
    full = np.array([48] + [0] * 11, dtype=core.PIT_DTYPE)
    assert key_position(int(core.position_key(full, 1))) == ((48,) + (0,) * 11, 1)


def test_key_set_grows_clears_and_detects_repeats():
    keys = core.key_set_new(16)
    for k in range(100):
        keys, added = core.key_set_add(keys, 7 * k)
        assert added
    assert core.key_set_size(keys) == 100 and keys.shape[0] > 1 + 2 * 16
    assert not core.key_set_add(keys, 7 * 42)[1]
    core.key_set_clear(keys)
    assert core.key_set_size(keys) == 0 and core.key_set_add(keys, 7 * 42)[1]
    copy = core.key_set_from(np.array([5, 9, 11], dtype=core.KEY_DTYPE))
    assert core.key_set_size(copy) == 3 and not core.key_set_add(copy, 9)[1]


# --- the State API contract ------------------------------------------------------------------------------------


def test_initial_state_and_presets():
    s = State.initial()
    assert s.board == (4,) * 12 and s.stores == (0, 0) and s.ply == 0 and s.max_plies == 1000
    assert s.rules == Rules() and s.rules.name == "texts" and s.rules.first_player == "random"
    assert not s.is_terminal and s.winner is None and s.end_reason is None and s.returns() == (0.0, 0.0)
    assert s.legal_actions() == [0, 1, 2, 3, 4, 5] and NUM_ACTIONS == 6
    o = State.initial("openspiel")
    assert o.to_move == 0 and o.rules.name == "openspiel"
    assert (o.rules.grand_slam, o.rules.on_repetition, o.rules.stop_at_majority) == ("no_capture", "own_side", True)
    firsts = {State.initial(seed=seed).to_move for seed in range(20)}
    assert firsts == {0, 1} and State.initial(seed=5) == State.initial(seed=5)
    assert State.initial(first_player=1).to_move == 1 and State.initial(max_plies=None).max_plies is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"board": [4] * 11}, "board must hold 12"),
        ({"board": "444444444444"}, "sequence of 12"),
        ({"board": [-1] + [4] * 11}, "must not be negative"),
        ({"board": [1.5] + [4] * 11}, "must be an integer"),
        ({"board": [True] + [4] * 11}, "must be an integer"),
        ({"board": [4] * 12, "stores": (1, 0)}, "49 seeds"),
        ({"board": [4] * 12, "stores": (0,)}, "stores must hold 2"),
        ({"board": [4] * 12, "to_move": 2}, "to_move"),
        ({"board": [4] * 12, "ply": -1}, "ply"),
        ({"board": [4] * 12, "max_plies": 0}, "max_plies"),
        ({"board": [4] * 12, "preset": "abapa"}, "preset must be"),
        ({"board": [4] * 12, "grand_slam": "allowed"}, "grand_slam must be"),
        ({"board": [4] * 12, "on_repetition": "mover"}, "on_repetition must be"),
        ({"board": [4] * 12, "on_no_move": None}, "on_no_move must be"),
        ({"board": [4] * 12, "stop_at_majority": 1}, "stop_at_majority"),
        ({"board": [4] * 12, "first_player": 2}, "first_player"),
        ({"board": [4] * 12, "must_feed": False}, "unknown rule flag"),
    ],
)
def test_from_position_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        State.from_position(**kwargs)


def test_flags_override_a_preset():
    board, stores = [0, 0, 8, 0, 0, 1, 1, 1, 1, 1, 2, 3], (15, 15)
    assert pos(board, stores, stop_at_majority=True).play(2).end_reason == "majority"
    texts_like = pos(board, stores, preset="openspiel", stop_at_majority=False, grand_slam="forbidden")
    assert texts_like.rules.name == "custom" and not texts_like.play(2).is_terminal
    discard = pos([1, 1, 0, 0, 0, 0] + [0] * 6, (23, 23), on_no_move="discard")
    assert discard.end_reason == "no_move" and discard.stores == (23, 23)


@pytest.mark.parametrize(("preset", "stores"), [("texts", (10, 10)), ("openspiel", (13, 11))])
def test_ply_limit_ends_like_a_repetition(preset, stores):
    state = pos([1, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0], (10, 10), preset=preset, max_plies=3)
    state = state.play(0).play(0).play(1)
    assert state.is_terminal and state.end_reason == "ply_limit" and state.stores == stores
    assert pos([4] * 12, ply=5, max_plies=5).end_reason == "ply_limit"


@pytest.mark.parametrize(
    ("move", "message"),
    [
        (6, "malformed move 6"),
        (-1, "malformed"),
        ("6", "malformed"),
        ("1.", "malformed"),
        ("1R", "malformed"),
        ("", "malformed"),
        (True, "malformed"),
        (1.0, "malformed"),
        (None, "malformed"),
        (0, r"illegal move 0 for player 0: pit 0 is empty; legal moves: 1 5"),
        ("3", "pit 3 is empty"),
    ],
)
def test_bad_moves_raise_and_leave_the_state_unchanged(move, message):
    state = pos([0, 3, 0, 0, 0, 1, 1, 1, 1, 1, 2, 3], (20, 15))
    snapshot, board = state.to_dict(), state.pits.copy()
    with pytest.raises(IllegalMoveError, match=message):
        state.play(move)
    assert isinstance(IllegalMoveError(""), ValueError)
    assert state.to_dict() == snapshot and np.array_equal(state.pits, board)
    assert state.play("1") == state.play(1) == state.play(np.int64(1))


def test_moves_after_the_end_are_refused():
    over = pos([1, 1, 0, 0, 0, 0] + [0] * 6, (23, 23))
    with pytest.raises(IllegalMoveError, match=r"game is over \(no_move\)"):
        over.play(0)


def test_pits_are_read_only_and_states_immutable():
    state = State.initial(first_player=0)
    with pytest.raises(ValueError):
        state.pits[0] = 9
    state.play(0)
    assert state.board == (4,) * 12 and state.clone() is state
    with pytest.raises(TypeError):
        State()


def test_equality_hash_and_the_repetition_set():
    a = State.initial("openspiel").play(0).play(0)
    b = State.initial("openspiel").play(0).play(0)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != State.initial("texts", first_player=0).play(0).play(0)  # other rules
    same_board = pos(a.board, a.stores, a.to_move, ply=a.ply, preset="openspiel")
    assert same_board.board == a.board and same_board != a  # a shorter history: a different game state
    assert len(a.repetition_keys) == 3 and len(same_board.repetition_keys) == 1


@pytest.mark.parametrize("preset", BOTH)
def test_dict_round_trip(preset):
    rng = random.Random(4)
    state = State.initial(preset, seed=3)
    while not state.is_terminal:
        data = json.loads(json.dumps(state.to_dict()))
        back = State.from_dict(data)
        assert back == state and back.last_capture == state.last_capture and back.to_dict() == state.to_dict()
        state = state.play(rng.choice(state.legal_actions()))
    assert State.from_dict(json.loads(json.dumps(state.to_dict()))) == state


def test_dict_round_trip_of_every_end_reason():
    repeated = pos([1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], (23, 23))
    for move in (0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5):
        repeated = repeated.play(move)
    ends = [
        repeated,
        pos([0, 0, 8, 0, 0, 1, 1, 1, 1, 1, 2, 3], (15, 15), preset="openspiel").play(2),
        pos([1, 1, 0, 0, 0, 0] + [0] * 6, (23, 23)),
        pos([4] * 12, max_plies=1, first_player=0).play(0),
    ]
    assert [s.end_reason for s in ends] == ["repetition", "majority", "no_move", "ply_limit"]
    for state in ends:
        assert State.from_dict(state.to_dict()) == state


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"game": "awale16"}, "not 'oware'"),
        ({"stores": [1, 0, 0]}, "stores must hold 2"),
        ({"rules": {"grand_slam": "maybe"}}, "grand_slam"),
        ({"rules": "texts"}, "dict of rule flags"),
        ({"end_reason": "score"}, "end_reason"),
        ({"end_reason": "repetition"}, "empty board"),
        ({"since_capture": [[[4] * 12, 1]]}, "include the position itself"),
        ({"since_capture": [[[4] * 11 + [3], 0]]}, "a capture in between"),
        ({"since_capture": [[[4] * 12]]}, r"\[board, to_move\] pair"),
        ({"since_capture": "all"}, "must be a list"),
        ({"last_capture": 99}, "last_capture"),
    ],
)
def test_from_dict_rejects_bad_dicts(change, message):
    data = State.initial(first_player=0).to_dict() | change
    with pytest.raises(ValueError, match=message):
        State.from_dict(data)
    with pytest.raises(ValueError, match="lacks board"):
        State.from_dict({"stores": [0, 0], "to_move": 0, "ply": 0})


def test_observation_is_agent_relative():
    state = pos([1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 8], (9, 3), to_move=1)
    mine, theirs = state.observation_tensor(1), state.observation_tensor(0)
    assert mine.dtype == np.float32 and mine.shape == (core.OBS_SIZE,) == (15,)
    assert np.allclose(mine[:12] * core.SEED_SCALE, [7, 0, 0, 0, 0, 8, 1, 2, 3, 4, 5, 6])
    assert np.allclose(theirs[:12] * core.SEED_SCALE, state.board)
    assert np.allclose(mine[12:14] * 48, [3, 9]) and np.allclose(theirs[12:14] * 48, [9, 3])
    assert np.array_equal(state.observation_tensor(), mine)
    assert mine[14] == 0.0 and pos([4] * 12, ply=250).observation_tensor(0)[14] == pytest.approx(0.25)
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        state.observation_tensor(2)


def test_board_diagram():
    text = str(pos([0, 0, 8, 0, 0, 1, 1, 1, 1, 1, 2, 3], (10, 20)))
    lines = text.splitlines()
    assert lines[1].split() == ["seeds", "3", "2", "1", "1", "1", "1"]
    assert lines[2].split() == ["seeds", "0", "0", "8", "0", "0", "1"]
    assert "player 0 10 | player 1 20" in lines[4] and "legal [2, 5]" in lines[4] and "rules texts" in lines[4]
    assert "game over (no_move): player 0 wins" in str(pos([1, 1, 0, 0, 0, 0] + [0] * 6, (23, 23)))
    assert "oware.State(board=[0, 0, 8" in repr(pos([0, 0, 8, 0, 0, 1, 1, 1, 1, 1, 2, 3], (10, 20)))


def test_the_usage_example_of_the_rules_doc_runs(capsys):
    text = (ROOT / "docs" / "rules_oware.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) == 1
    exec(compile(blocks[0], "docs/rules_oware.md", "exec"), {})
    assert "player 1" in capsys.readouterr().out


# --- the pure-Python fallback ----------------------------------------------------------------------------------


def fingerprint() -> dict:
    """What the kernels compute on a few playouts, games and keys: JSON-safe, compared across JIT on and off."""
    rng = make_rng(2024)
    playouts = []
    for rules in (Rules.preset("texts"), Rules.preset("openspiel")):
        for max_plies in (1000, 37):
            for _ in range(4):
                pits, stores = core.initial_pits(), np.zeros(2, dtype=core.STORE_DTYPE)
                keys = core.key_set_from(np.array([core.position_key(pits, 0)], dtype=core.KEY_DTYPE))
                status, ply = core.random_playout(pits, stores, 0, 0, max_plies, rules.code, keys, rng)
                playouts.append([int(status), int(ply), stores.tolist()])
    games = []
    for seed, preset in enumerate(BOTH * 2):
        game_rng, state = make_rng(seed), State.initial(preset, seed=seed)
        moves, observations = [], []
        while not state.is_terminal:
            moves.append(int(core.random_action(legal_bits(state), game_rng)))
            state = state.play(moves[-1])
            observations.append(state.observation_tensor(0).tolist())
        games.append([moves, state.to_dict(), observations[-3:]])
    studies, mask = [], np.empty(6, dtype=bool)
    for board in (
        [0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0],
        [1, 1, 1, 1, 1, 0, 0, 0, 8, 0, 0, 1],
        [0, 0, 0, 0, 0, 13] + [0] * 6,
    ):
        for rules in (Rules.preset("texts"), Rules.preset("openspiel")):
            for player in (0, 1):
                core.legal_mask(np.array(board, dtype=core.PIT_DTYPE), player, rules.code, mask)
                studies.append(mask.tolist())
    plies = core.random_playouts(core.initial_pits(), np.zeros(2, core.STORE_DTYPE), 1, 0, 1000, 11, 5, rng)
    return {"playouts": playouts, "games": games, "studies": studies, "plies": int(plies), "rng": int(rng[0])}


def test_pure_python_fallback_is_identical():
    script = "import json, test_oware as t; print(json.dumps(t.fingerprint()))"
    assert run_python(script) == json.loads(json.dumps(fingerprint()))


# --- the independent check: OpenSpiel's oware -------------------------------------------------------------------


def _pyspiel():
    try:
        import pyspiel
    except ImportError as error:
        if os.environ.get("CI"):
            raise  # CI installs the dev extra, so the check must run there
        pytest.skip(f"pyspiel cannot be imported ({error}); `pip install open-spiel` (dev extra) runs this check")
    return pyspiel


def test_openspiel_preset_matches_pyspiel_move_for_move():
    """1,000 random games through both engines: legal actions, board, stores, terminal flag, returns and player to
    move compared at every ply (``observation_string(0)`` is ``"<to_move> | <s0> <s1> | h0 ... h11"``)."""
    game = _pyspiel().load_game("oware")
    rng = random.Random(20261122)
    plies = 0
    for _ in range(1000):
        theirs, ours = game.new_initial_state(), State.initial("openspiel")
        while True:
            to_move, stores, board = theirs.observation_string(0).split("|")
            terminal = theirs.is_terminal()
            assert terminal == ours.is_terminal
            assert tuple(map(int, board.split())) == ours.board and tuple(map(int, stores.split())) == ours.stores
            assert theirs.legal_actions() == ours.legal_actions()
            assert tuple(theirs.returns()) == ours.returns()
            if terminal:
                break
            assert int(to_move) == ours.to_move == theirs.current_player()
            action = rng.choice(ours.legal_actions())
            theirs.apply_action(action)
            ours = ours.play(action)
            plies += 1
    assert plies > 50_000
