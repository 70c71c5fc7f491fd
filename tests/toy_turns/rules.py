"""The toy game's one rule more, compiled: a move whose last seed lands in an empty pit of the mover's own row gives
it another turn."""

from __future__ import annotations

from numba import njit
from toy_game import kernels


@njit(cache=True, error_model="numpy")
def mover_after(board, player, action):
    """Who moves after ``player`` plays ``action`` on ``board`` (before the move): ``player`` again if the last seed
    lands in an empty pit of its own row (it then holds 1: the sowing, which skips the emptied pit, made no lap),
    else the other player."""
    origin = kernels.ROW * player + action
    seeds = board[origin]
    last = (origin + seeds) % kernels.NUM_PITS
    again = seeds < kernels.NUM_PITS and last // kernels.ROW == player and board[last] == 0
    return player if again else 1 - player


@njit(cache=True, error_model="numpy")
def random_playout(board, stores, player, ply, max_plies, rng):
    """Play random legal moves in place from a live position to the end, each mover as the rules say; return the
    final status and ply."""
    code = kernels.ONGOING
    while code == kernels.ONGOING:
        action = kernels.random_action(board, player, rng)
        after = mover_after(board, player, action)
        kernels.sow(board, stores, player, action)
        player = after
        ply += 1
        code = kernels.status(board, stores, player, ply, max_plies)
    return code, ply


@njit(cache=True, error_model="numpy")
def random_playouts(board, stores, player, ply, max_plies, count, rng):
    """The total plies of ``count`` random games from a live position (the arrays are left unchanged)."""
    total = 0
    for _ in range(count):
        _, end = random_playout(board.copy(), stores.copy(), player, ply, max_plies, rng)
        total += end - ply
    return total
