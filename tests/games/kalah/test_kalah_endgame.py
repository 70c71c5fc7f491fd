"""Kalah's endgame table (awale_env/games/kalah/endgame.py): every entry checked against a brute-force solver over
the State API on small positions, the shipped tables against a fresh build, the ply limit, damaged files, and
alpha-beta reading it: exact below the root (as the reference minimax does), the widest margin at a root it holds."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from reference_minimax import minimax

from agents import make
from agents.alphabeta import AlphaBetaAgent
from awale_env.games.kalah import State
from awale_env.games.kalah import endgame as eg
from awale_env.games.kalah import kernels as core
from awale_env.kernels import dispatch as kn

CAPTURES = (0, core.CAPTURE_EMPTY_OPPOSITE_BIT)


@functools.cache
def final_margin(state: State) -> int:
    """The final store difference for the player to move under perfect play of both: brute force, memoised."""
    me, best = state.to_move, None
    for action in state.legal_actions():
        child = state.play(action)
        if child.is_terminal:
            value = child.stores[me] - child.stores[1 - me]
        else:
            value = final_margin(child) if child.to_move == me else -final_margin(child)
        best = value if best is None else max(best, value)
    return best


def positions(count: int, low: int, high: int, seed: int, capture: bool = False) -> list[State]:
    """Live positions of ``low``..``high`` seeds in the pits (the rest of the 48 in the stores), either to move."""
    rng = np.random.default_rng(seed)
    found: list[State] = []
    while len(found) < count:
        board = np.bincount(rng.integers(0, 12, size=int(rng.integers(low, high + 1))), minlength=12)
        mine = int(rng.integers(0, 48 - board.sum() + 1))
        state = State.from_position(board.tolist(), (mine, 48 - int(board.sum()) - mine), int(rng.integers(2)),
                                    capture_empty_opposite=capture)  # fmt: skip
        if not state.is_terminal:
            found.append(state)
    return found


def held(state: State) -> int:
    """What the table alpha-beta uses gives ``state`` (its player to move's gain from the pits on)."""
    root = kn.root_of(state)
    table = root.kernels.endgame(root, 62)
    path = np.zeros(62, dtype=np.int64)
    return int(kn.solved(root.env(kn.new_scratch(), path, path), table, root.board, root.player))


def test_the_index_numbers_every_board_of_few_seeds_once_and_unranks_back():
    board = np.zeros(12, dtype=np.int8)
    for seeds in range(6):
        offset = eg.table_size(seeds - 1) if seeds else 0
        for rank in range(eg.table_size(seeds) - offset):
            eg._unrank(seeds, rank, board)
            assert board.sum() == seeds and board.min() >= 0
            assert eg.index_of(board, 0) == (offset + rank, seeds)
            mirrored = np.concatenate([board[6:], board[:6]])
            assert eg.index_of(mirrored, 6) == (offset + rank, seeds)


@pytest.mark.parametrize("capture", [False, True])
def test_every_entry_of_small_positions_is_the_brute_force_result(capture):
    for state in positions(60, 2, 8, seed=int(capture), capture=capture):
        me = state.to_move
        assert held(state) == final_margin(state) - (state.stores[me] - state.stores[1 - me]), state


@pytest.mark.parametrize("capture", CAPTURES)
def test_the_shipped_tables_are_those_a_build_gives(capture):
    """The shipped file holds the table of :data:`TABLE_SEEDS` seeds: its positions of up to 9 seeds (its first
    entries) and longest games are those of a fresh build, and the file is the one the searches read."""
    shipped, longest = eg.read(eg.table_file(capture), eg.TABLE_SEEDS)
    values, built_longest = eg.build(9, capture)
    assert np.array_equal(shipped[: values.size], values)
    assert np.array_equal(longest[:10], built_longest)
    assert eg.table(capture)[0] is eg.table(capture | 6)[0]  # the seeds per pit at the start do not matter


def test_the_longest_games_are_those_of_the_rules():
    """``longest[k]``: no game from a position of at most ``k`` seeds in the pits lasts more plies (the bound that
    keeps the table exact under a ply limit), and one lasts that long."""

    @functools.cache
    def longest(state: State) -> int:
        return max(1 + (0 if c.is_terminal else longest(c)) for c in map(state.play, state.legal_actions()))

    _, bound = eg.table(0)
    board = np.zeros(12, dtype=np.int8)
    most = 0
    for seeds in range(1, 5):
        for rank in range(eg.table_size(seeds) - eg.table_size(seeds - 1)):
            eg._unrank(seeds, rank, board)
            state = State.from_position(board.tolist(), (0, 48 - seeds))
            most = max(most, 0 if state.is_terminal else longest(state))
        assert most == bound[seeds], seeds


def test_the_table_is_only_used_where_no_game_can_reach_the_ply_limit():
    _, longest = eg.table(0)
    assert eg.usable(4, 0, 0, 62).size == eg.table_size(eg.TABLE_SEEDS)  # no limit
    assert eg.usable(4, 100, 1000, 62).size == eg.table_size(eg.TABLE_SEEDS)
    assert eg.usable(4, 1000 - 62 - int(longest[-1]), 1000, 62).size == 0
    state = State.from_position([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2], (20, 25), max_plies=60)
    assert held(state) == kn.UNSOLVED  # a near limit: the search plays it out instead
    agent = AlphaBetaAgent(depth=8, seed=0)
    agent.search(state)
    assert agent.last_search["depth"] > 0


def test_a_damaged_or_foreign_table_file_is_not_used(tmp_path):
    values, longest = eg.build(4, 0)
    good = tmp_path / "good.npz"
    np.savez_compressed(good, values=values, longest=longest)
    assert eg.read(good, 4) is not None
    assert eg.read(good, 5) is None  # another table's size
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[:200])
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a table")
    wrong = tmp_path / "wrong.npz"
    np.savez_compressed(wrong, values=values.astype(np.int16), longest=longest)
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, values=np.array([object()] * 3), longest=longest)
    for path in (truncated, garbage, wrong, pickled, tmp_path / "missing.npz"):
        assert eg.read(path, 4) is None, path


def test_alphabeta_scores_the_positions_of_the_table_exactly_below_its_root():
    """Positions of 13-18 seeds: a few plies down, some children are in the table. Alpha-beta's value is the reference
    minimax's, which scores a position the table holds as its outcome, and with the table outcomes are proven
    sooner than without it."""
    agent = make("alphabeta:depth=3,eval=score,table_bits=14", seed=0)
    without = make("alphabeta:depth=3,eval=score,table_bits=14,endgame=false", seed=0)
    proven = 0
    for state in positions(30, 13, 18, seed=5):
        if held(state) != kn.UNSOLVED:
            continue
        agent.reset()
        without.reset()
        agent.search(state)
        without.search(state)
        assert agent.last_search["value"] == minimax(state, 3), state
        proven += abs(agent.last_search["value"]) > 9000 and abs(without.last_search["value"]) < 9000
    assert proven >= 3, proven


@pytest.mark.parametrize("capture", [False, True])
def test_at_a_root_the_table_holds_alphabeta_plays_the_widest_margin(capture):
    agent = AlphaBetaAgent(time=0.05, seed=0)
    for state in positions(40, 2, 12, seed=7, capture=capture):
        if len(state.legal_actions()) < 2:
            continue
        me, best = state.to_move, final_margin(state) if sum(state.pits) <= 9 else None
        move = agent.act(state)
        child = state.play(move)
        margin = child.stores[me] - child.stores[1 - me]
        if not child.is_terminal:
            margin += held(child) * (1 if child.to_move == me else -1)
        assert margin == held(state) + state.stores[me] - state.stores[1 - me], state
        if best is not None:
            assert margin == best, state
        assert agent.last_search["depth"] == 1 and np.sign(agent.last_search["value"]) == np.sign(margin)


def test_the_endgame_option_is_checked():
    assert make("alphabeta:endgame=false").name == "alphabeta:endgame=False"
    with pytest.raises(ValueError, match="endgame must be True or False"):
        AlphaBetaAgent(endgame=1)


def test_the_builders_help_and_a_bad_option_build_nothing(monkeypatch, capsys):
    """``python -m awale_env.games.kalah.endgame --help`` says what it does; neither it nor a bad option rebuilds the
    shipped tables (a build takes CPU-seconds and rewrites package files)."""
    monkeypatch.setattr(eg, "build", lambda *_: pytest.fail("the tables were rebuilt"))
    for argv, code in ((["--help"], 0), (["--bogus"], 2)):
        with pytest.raises(SystemExit) as exit_info:
            eg.main(argv)
        assert exit_info.value.code == code
    assert "endgame tables" in capsys.readouterr().out
