"""Compiled rules of Kalah (6 x 4 by default, docs/rules_kalah.md), one position at a time (numba;
``NUMBA_DISABLE_JIT=1`` runs the same code as Python).

* ``board``: ``int8[12]``: pits 0..5 are player 0's, 6..11 player 1's, each row left to right as its owner sees it;
  pit ``i`` faces pit ``11 - i``. Action ``a`` of player ``p`` is pit ``6 * p + a``.
* ``stores``: ``int16[2]``, the seeds in each player's store (Kalah's stores are part of the sowing).
* ``code``: the rule flags packed in one small integer: the seeds per pit at the start (1..6, the low 3 bits) and
  :data:`CAPTURE_EMPTY_OPPOSITE_BIT`.

A mover's sowing runs through 13 places, its own six pits, its own store, then the opponent's six pits (the
opponent's store is skipped): place ``j`` of player ``p`` is pit ``6p + j`` for ``j < 6``, the store for ``j = 6``
and pit ``6(1 - p) + j - 7`` after it. Action ``a`` starts at place ``a``, so its last seed lands at place
``(a + n) % 13`` for ``n`` seeds: the store (place 6) gives another turn (:func:`next_player`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from awale_env.kernels.rng import random_below

ROW = 6
NUM_ACTIONS = ROW
NUM_PITS = 2 * ROW
PLACES = NUM_PITS + 1  # a mover's sowing cycle: its pits, its store, the opponent's pits
STORE_PLACE = ROW
DEFAULT_SEEDS_PER_PIT = 4
MAX_SEEDS_PER_PIT = 6
MAX_TOTAL_SEEDS = NUM_PITS * MAX_SEEDS_PER_PIT
SEEDS_BITS = 7  # code & SEEDS_BITS: the seeds per pit
CAPTURE_EMPTY_OPPOSITE_BIT = 8  # the last seed in an own empty pit is captured even when the opposite pit is empty
NO_LIMIT = 0
SEED_SCALE = 16.0  # as the other games: a pit rarely holds more than 16 seeds
OBS_SIZE = NUM_PITS + 4  # the viewer's row, the other row, both stores, the ply fraction, the viewer to move

ONGOING, EMPTY_ROW, PLY_LIMIT = 0, 1, 2
END_REASONS = (None, "empty_row", "ply_limit")

PIT_DTYPE = np.int8
STORE_DTYPE = np.int16


@njit(cache=True, error_model="numpy")
def total_seeds(code):
    """The seeds of a game with the rule flags ``code``: 12 pits of its seeds per pit."""
    return NUM_PITS * (code & SEEDS_BITS)


@njit(cache=True, error_model="numpy")
def initial_board(code):
    """The starting board: the seeds per pit in every pit."""
    return np.full(NUM_PITS, code & SEEDS_BITS, dtype=PIT_DTYPE)


@njit(cache=True, error_model="numpy")
def legal_bits(board, player):
    """The mover's non-empty pits, as bits of their actions."""
    bits = 0
    for a in range(ROW):
        if board[ROW * player + a] > 0:
            bits |= 1 << a
    return bits


@njit(cache=True, error_model="numpy")
def next_player(board, player, action):
    """Who moves after ``player`` plays ``action`` on ``board`` (before the move): ``player`` again if the last seed
    lands in its own store (rule 5), else the other player."""
    return player if (action + int(board[ROW * player + action])) % PLACES == STORE_PLACE else 1 - player


@njit(cache=True, error_model="numpy")
def sow(board, stores, player, action, code):
    """Play a legal action in place (rules 4-6); return the seeds it added to the mover's store (sown or
    captured)."""
    origin = ROW * player + action
    n = int(board[origin])
    board[origin] = 0
    before = int(stores[player])
    laps, rest = divmod(n, PLACES)
    other = ROW * (1 - player)
    if laps > 0:  # whole laps at once: every place gets one per lap
        for k in range(ROW):
            board[ROW * player + k] += laps
            board[other + k] += laps
        stores[player] += laps
    place = action
    for _ in range(rest):
        place = place + 1 if place < PLACES - 1 else 0
        if place < ROW:
            board[ROW * player + place] += 1
        elif place == STORE_PLACE:
            stores[player] += 1
        else:
            board[other + place - STORE_PLACE - 1] += 1
    last = (action + n) % PLACES
    if last < ROW:
        pit = ROW * player + last
        opposite = NUM_PITS - 1 - pit
        if board[pit] == 1 and (board[opposite] > 0 or code & CAPTURE_EMPTY_OPPOSITE_BIT):
            stores[player] += 1 + int(board[opposite])
            board[pit] = 0
            board[opposite] = 0
    return int(stores[player]) - before


@njit(cache=True, error_model="numpy")
def row_total(board, player):
    total = 0
    for k in range(ROW * player, ROW * player + ROW):
        total += int(board[k])
    return total


@njit(cache=True, error_model="numpy")
def status(board, stores, ply, max_plies):
    """The status of a position (rules 8-9); a finished game is settled in place: every seed left in a row goes to
    that row's owner's store."""
    code = ONGOING
    if row_total(board, 0) == 0 or row_total(board, 1) == 0:
        code = EMPTY_ROW
    elif max_plies != NO_LIMIT and ply >= max_plies:
        code = PLY_LIMIT
    if code != ONGOING:
        for player in range(2):
            stores[player] += row_total(board, player)
            for k in range(ROW * player, ROW * player + ROW):
                board[k] = 0
    return code


@njit(cache=True, error_model="numpy")
def decided(board, stores):
    """The player whose store holds more than half the seeds in play, who wins whatever is played (seeds never leave
    a store), or -1."""
    total = row_total(board, 0) + row_total(board, 1) + int(stores[0]) + int(stores[1])
    for player in range(2):
        if 2 * int(stores[player]) > total:
            return player
    return -1


@njit(cache=True, error_model="numpy")
def observe(board, stores, ply, max_plies, player, to_move, total, out):
    """``player``'s view into ``out`` (float32[OBS_SIZE]): its row and the other row (seeds / 16, each left to right
    as its owner sees it, so ``out[a]`` is the pit of the viewer's action ``a``), its store and the other store (/
    ``total`` seeds), the fraction of the ply limit played (0 without a limit), and 1 if the viewer is ``to_move``
    (a Kalah player may move several times in a row)."""
    for k in range(ROW):
        out[k] = board[ROW * player + k] / SEED_SCALE
        out[ROW + k] = board[ROW * (1 - player) + k] / SEED_SCALE
    out[NUM_PITS] = stores[player] / total
    out[NUM_PITS + 1] = stores[1 - player] / total
    out[NUM_PITS + 2] = 0.0 if max_plies == NO_LIMIT else min(ply / max_plies, 1.0)
    out[NUM_PITS + 3] = 1.0 if player == to_move else 0.0


@njit(cache=True, error_model="numpy")
def random_action(board, player, rng):
    """A uniformly random legal action of a live position."""
    bits = legal_bits(board, player)
    count = 0
    for a in range(ROW):
        count += (bits >> a) & 1
    k = random_below(rng, count)
    for a in range(ROW):
        if (bits >> a) & 1:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True, error_model="numpy")
def random_playout(board, stores, player, ply, max_plies, code, rng):
    """Play random legal moves in place from a live position to the end; return the final status and ply."""
    status_code = ONGOING
    while status_code == ONGOING:
        action = random_action(board, player, rng)
        after = next_player(board, player, action)
        sow(board, stores, player, action, code)
        player = after
        ply += 1
        status_code = status(board, stores, ply, max_plies)
    return status_code, ply


@njit(cache=True, error_model="numpy")
def random_playouts(board, stores, player, ply, max_plies, code, count, rng):
    """The total plies of ``count`` random games from a live position (the arrays are left unchanged)."""
    total = 0
    for _ in range(count):
        _, end = random_playout(board.copy(), stores.copy(), player, ply, max_plies, code, rng)
        total += end - ply
    return total
