"""Kalah's endgame table: the exact result of every position with at most ``K`` seeds left in the pits, so that
alpha-beta scores such a position exactly instead of guessing (Kalah programs have always solved their endgames
this way: the seeds in a store never come back into play, so what is left to win depends on the pits alone).

An entry is the seeds the player to move gains over the other from the pits' seeds on, under perfect play of both
(the final store difference less today's), for the board seen from the mover's side: its row first. A position is
indexed by the combinatorial number system (stars and bars: the 12 pit counts as 11 bars among ``k + 11`` places),
the positions of fewer seeds first. Every move either puts a seed into a store (or captures), leaving fewer seeds in
the pits, or only moves the mover's seeds nearer its store: so the table is built by increasing seeds and, among
positions of as many seeds, by increasing distance of the seeds from their stores; no retrograde loop is needed.

The table knows nothing of a ply limit: :func:`build` also gives the longest game from each number of seeds, and the
table is only exact where that many plies are left before the limit (:func:`usable`). The tables of
:data:`TABLE_SEEDS` seeds ship with the package (``python -m awale_env.games.kalah.endgame`` builds them), so that no
program builds them in its first move, nor without numba (``NUMBA_DISABLE_JIT=1``) in plain Python.
"""

from __future__ import annotations

import argparse
import zipfile
from pathlib import Path

import numpy as np
from numba import njit

from awale_env.games.kalah import kernels as core
from awale_env.kernels.search import UNSOLVED

#: The seeds in the pits of the positions the searches' table holds (2.7M entries of a byte).
TABLE_SEEDS = 12
MAX_TABLE_SEEDS = 20


def _binomials(rows: int, columns: int) -> np.ndarray:
    table = np.zeros((rows, columns), dtype=np.int64)
    for n in range(rows):
        table[n, 0] = 1
        for r in range(1, min(n, columns - 1) + 1):
            table[n, r] = table[n - 1, r - 1] + (table[n - 1, r] if r < n else 0)
    return table


#: C(n, r) for the ranks: n up to the seeds plus 12, r up to 12.
BINOMIALS = _binomials(MAX_TABLE_SEEDS + core.NUM_PITS + 1, core.NUM_PITS + 1)


def table_size(seeds: int) -> int:
    """The entries of a table of positions with at most ``seeds`` seeds in the pits."""
    return int(BINOMIALS[seeds + core.NUM_PITS, core.NUM_PITS])


@njit(cache=True, error_model="numpy")
def index_of(board, first):
    """The table index of ``board`` seen from the player whose row starts at pit ``first`` (0 or 6), and its seeds."""
    index = 0
    seeds = 0
    for i in range(core.NUM_PITS - 1):
        seeds += int(board[(first + i) % core.NUM_PITS])
        index += BINOMIALS[seeds + i, i + 1]
    seeds += int(board[(first + core.NUM_PITS - 1) % core.NUM_PITS])
    return index + BINOMIALS[seeds + core.NUM_PITS - 1, core.NUM_PITS], seeds


@njit(cache=True, error_model="numpy")
def lookup(table, board, player):
    """What ``player`` to move gains over the other from the pits of ``board`` on under perfect play, or
    :data:`UNSOLVED` for a board of more seeds than ``table`` holds."""
    seeds = 0
    for pit in range(core.NUM_PITS):  # most boards a search meets hold more: stop counting as soon as one does
        seeds += int(board[pit])
        if seeds > MAX_TABLE_SEEDS:
            return UNSOLVED
    if BINOMIALS[seeds + core.NUM_PITS, core.NUM_PITS] > table.size:
        return UNSOLVED
    index, _ = index_of(board, core.ROW * player)
    return int(table[index])


@njit(cache=True, error_model="numpy")
def _unrank(seeds, rank, board):
    """The board of ``seeds`` seeds whose rank among them is ``rank`` (the inverse of :func:`index_of`)."""
    upper = seeds + core.NUM_PITS - 1  # every bar is below this place
    for i in range(core.NUM_PITS - 2, -1, -1):
        place = upper - 1
        while BINOMIALS[place, i + 1] > rank:
            place -= 1
        rank -= BINOMIALS[place, i + 1]
        board[i + 1] = upper - place - 1
        upper = place
    board[0] = upper


@njit(cache=True, error_model="numpy")
def _distance(board):
    """How far the seeds are from their owners' stores, in places: every move that puts no seed into a store
    lowers it."""
    total = 0
    for k in range(core.ROW):
        total += (core.ROW - k) * (int(board[k]) + int(board[core.ROW + k]))
    return total


@njit(cache=True, error_model="numpy")
def _solve(board, code, values, lengths, child, stores):
    """The entry of ``board`` (mover's row first) from its children's, and the longest game from it."""
    best, longest = -(1 << 10), 0
    for a in range(core.ROW):
        if board[a] == 0:
            continue
        child[:] = board
        stores[:] = 0
        again = core.next_player(board, 0, a) == 0
        gained = core.sow(child, stores, 0, a, code)
        own, other = core.row_total(child, 0), core.row_total(child, 1)
        length = 1
        if own == 0 or other == 0:
            value = gained + own - other
        else:
            index, _ = index_of(child, 0 if again else core.ROW)
            value = gained + values[index] if again else gained - values[index]
            length += lengths[index]
        best = max(best, value)
        longest = max(longest, length)
    return best, longest


@njit(cache=True, error_model="numpy")
def build(max_seeds, code):
    """The table of every position with at most ``max_seeds`` seeds in the pits under the rule flags ``code``, and
    per number of seeds the longest game from a position of as many or fewer (int16[max_seeds + 1])."""
    pits = core.NUM_PITS
    values = np.zeros(BINOMIALS[max_seeds + pits, pits], dtype=np.int8)
    lengths = np.zeros(values.size, dtype=np.int16)
    longest = np.zeros(max_seeds + 1, dtype=np.int16)
    board, child = np.zeros(pits, dtype=core.PIT_DTYPE), np.zeros(pits, dtype=core.PIT_DTYPE)
    stores = np.zeros(2, dtype=core.STORE_DTYPE)
    for seeds in range(max_seeds + 1):
        count, offset = BINOMIALS[seeds + pits - 1, pits - 1], BINOMIALS[seeds + pits - 1, pits]
        # The positions of this many seeds by increasing distance (a counting sort): a child of as many is nearer.
        starts = np.zeros(core.ROW * seeds + 2, dtype=np.int64)
        for rank in range(count):
            _unrank(seeds, rank, board)
            starts[_distance(board) + 1] += 1
        for d in range(1, starts.size):
            starts[d] += starts[d - 1]
        order = np.empty(count, dtype=np.int32)
        for rank in range(count):
            _unrank(seeds, rank, board)
            d = _distance(board)
            order[starts[d]] = rank
            starts[d] += 1
        most = longest[seeds - 1] if seeds > 0 else 0
        for j in range(count):
            rank = order[j]
            _unrank(seeds, rank, board)
            if core.row_total(board, 0) == 0 or core.row_total(board, 1) == 0:  # over: each row to its owner
                values[offset + rank] = core.row_total(board, 0) - core.row_total(board, 1)
                continue
            value, length = _solve(board, code, values, lengths, child, stores)
            values[offset + rank], lengths[offset + rank] = value, length
            most = max(most, length)
        longest[seeds] = most
    return values, longest


_TABLES: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def table_file(capture_bit: int) -> Path:
    """The shipped table of the rules whose capture flag is ``capture_bit``, beside this module."""
    return Path(__file__).with_name(f"endgame_{TABLE_SEEDS}_{capture_bit}.npz")


def table(code: int) -> tuple[np.ndarray, np.ndarray]:
    """The table of the rule flags ``code`` (only the capture rule matters: the pits' seeds at the start do not) and
    its longest games (:func:`build`), of :data:`TABLE_SEEDS` seeds: read from the file shipped with the package (a
    plain array file, checked: a damaged one is not used) or else built (a few seconds), once per process."""
    capture = int(code) & core.CAPTURE_EMPTY_OPPOSITE_BIT
    if capture not in _TABLES:
        _TABLES[capture] = read(table_file(capture), TABLE_SEEDS) or build(TABLE_SEEDS, capture)
    return _TABLES[capture]


def read(path: Path, seeds: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The table in ``path`` if it is one of ``seeds`` seeds, else None."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            values, longest = stored["values"], stored["longest"]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    good = (values.dtype == np.int8 and values.shape == (table_size(seeds),) and longest.dtype == np.int16
            and longest.shape == (seeds + 1,) and int(np.abs(values).max()) <= seeds)  # fmt: skip
    return (values, longest) if good else None


def usable(code: int, ply: int, max_plies: int, plies: int) -> np.ndarray:
    """The table for a search of ``plies`` plies from ``ply`` under the ply limit ``max_plies`` (0: none), if it is
    exact there (no game from a position it holds can reach the limit), else an empty array."""
    values, longest = table(code)
    if max_plies != core.NO_LIMIT and ply + plies + int(longest[-1]) >= max_plies:
        return np.zeros(0, dtype=np.int8)
    return values


def main(argv: list[str] | None = None) -> None:
    """Build the tables shipped with the package (``python -m awale_env.games.kalah.endgame``); ``--help`` says so
    and builds nothing."""
    argparse.ArgumentParser(
        prog="python -m awale_env.games.kalah.endgame",
        description=f"Build Kalah's endgame tables of {TABLE_SEEDS} seeds (with and without capture_empty_opposite) "
        "into the package, replacing the shipped ones.",
    ).parse_args(argv)
    for capture in (0, core.CAPTURE_EMPTY_OPPOSITE_BIT):
        values, longest = build(TABLE_SEEDS, capture)
        np.savez_compressed(table_file(capture), values=values, longest=longest)
        print(f"{table_file(capture)}: {values.size:,} positions, longest games {longest.tolist()}")


if __name__ == "__main__":
    main()
