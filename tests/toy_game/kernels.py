"""The toy game's rules, compiled: one position at a time (numba; ``NUMBA_DISABLE_JIT=1`` runs the same code as
Python).

Six pits in a ring, ``0 1 2`` player 0's row and ``3 4 5`` player 1's, two seeds in each at the start; stores
outside the ring. A move takes every seed of one of the mover's pits and sows them one by one in the following pits
(skipping the emptied pit). If the last seed makes an opponent's pit hold 2 or 3, those seeds are captured, and so
are those of the pits before it on the opponent's row that hold 2 or 3 too. The game ends when the player to move
has no seed (the other player takes what is left), when a store holds more than half the seeds, or at the ply limit;
the higher store wins.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from awale_env.kernels.rng import random_below

ROW = 3
NUM_PITS = 2 * ROW
NUM_ACTIONS = ROW  # the mover's pits, left to right
SEEDS_PER_PIT = 2
TOTAL_SEEDS = NUM_PITS * SEEDS_PER_PIT
OBS_SIZE = NUM_PITS + 3  # own row, other row, both stores, the fraction of the ply limit played
SEED_DTYPE = np.int8
STORE_DTYPE = np.int16
NO_LIMIT = 0
ONGOING, NO_MOVE, MAJORITY, PLY_LIMIT = 0, 1, 2, 3
END_REASONS = (None, "no_move", "majority", "ply_limit")


def initial_board() -> np.ndarray:
    return np.full(NUM_PITS, SEEDS_PER_PIT, dtype=SEED_DTYPE)


@njit(cache=True, error_model="numpy")
def legal_bits(board, player):
    """The mover's non-empty pits, as bits of their actions."""
    bits = 0
    for a in range(ROW):
        if board[ROW * player + a] > 0:
            bits |= 1 << a
    return bits


@njit(cache=True, error_model="numpy")
def sow(board, stores, player, action):
    """Play a legal action in place; return the seeds it captured (added to ``stores[player]``)."""
    origin = ROW * player + action
    seeds = board[origin]
    board[origin] = 0
    pit = origin
    while seeds > 0:
        pit = (pit + 1) % NUM_PITS
        if pit != origin:
            board[pit] += 1
            seeds -= 1
    captured = 0
    while pit // ROW != player and (board[pit] == 2 or board[pit] == 3):
        captured += board[pit]
        board[pit] = 0
        pit = (pit - 1) % NUM_PITS
    stores[player] += captured
    return captured


@njit(cache=True, error_model="numpy")
def status(board, stores, to_move, ply, max_plies):
    """The status of a position, ``to_move`` to play; a game that ended for lack of moves is settled in place (the
    player who moved last takes the seeds left, all on its row)."""
    left = 0
    for a in range(ROW):
        left += board[ROW * to_move + a]
    if left == 0:
        for pit in range(NUM_PITS):
            stores[1 - to_move] += board[pit]
            board[pit] = 0
        return NO_MOVE
    if 2 * stores[0] > TOTAL_SEEDS or 2 * stores[1] > TOTAL_SEEDS:
        return MAJORITY
    if max_plies != NO_LIMIT and ply >= max_plies:
        return PLY_LIMIT
    return ONGOING


@njit(cache=True, error_model="numpy")
def observe(board, stores, ply, max_plies, player, out):
    """``player``'s view into ``out`` (float32[OBS_SIZE]): its row, the other row (seeds / total seeds), its store,
    the other store (same scale), and the fraction of the ply limit played (0 without a limit)."""
    for a in range(ROW):
        out[a] = board[ROW * player + a] / TOTAL_SEEDS
        out[ROW + a] = board[ROW * (1 - player) + a] / TOTAL_SEEDS
    out[NUM_PITS] = stores[player] / TOTAL_SEEDS
    out[NUM_PITS + 1] = stores[1 - player] / TOTAL_SEEDS
    out[NUM_PITS + 2] = 0.0 if max_plies == NO_LIMIT else ply / max_plies


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
def random_playout(board, stores, player, ply, max_plies, rng):
    """Play random legal moves in place from a live position to the end; return the final status and ply."""
    code = ONGOING
    while code == ONGOING:
        sow(board, stores, player, random_action(board, player, rng))
        player = 1 - player
        ply += 1
        code = status(board, stores, player, ply, max_plies)
    return code, ply


@njit(cache=True, error_model="numpy")
def random_playouts(board, stores, player, ply, max_plies, count, rng):
    """The total plies of ``count`` random games from a live position (the arrays are left unchanged)."""
    total = 0
    for _ in range(count):
        code, end = random_playout(board.copy(), stores.copy(), player, ply, max_plies, rng)
        total += end - ply
    return total
