"""Kernels of a board of two rows of pits, each player's row half the board: pits ``0 .. n/2 - 1`` are player 0's,
the rest player 1's (OpenSpiel's layout, which the sowing games of six pits a row keep). Compiled with numba;
``NUMBA_DISABLE_JIT=1`` runs the same code as Python."""

from __future__ import annotations

from numba import njit


@njit(cache=True, error_model="numpy")
def row_total(pits, player):
    """Seeds in ``player``'s row."""
    row = pits.shape[0] // 2
    total = 0
    for k in range(row * player, row * player + row):
        total += int(pits[k])
    return total
