"""Kalah as the compiled searches see it (:class:`awale_env.kernels.search.SearchKernels`): each kernel calls the
game's own core (:mod:`awale_env.games.kalah.kernels`). ``next_player`` gives the mover another turn when its last
seed lands in its store; the searches and the vector env's stepper follow it. ``decided`` names the winner as soon as
a store holds more than half the seeds. ``endgame`` and ``solved``: the exact result of a position with few seeds
left in the pits (:mod:`awale_env.games.kalah.endgame`). No repetition rule: the shared defaults serve the rest.

``features`` (alpha-beta's weighted evaluation) reads Kalah's own facts into the shared slots: the seeds on each
side (they go to their row's owner at the end), as *vulnerable* the most seeds the other player could capture with
one move now, the legal moves, whether a row is starving (at most two seeds), and the moves that give another
turn."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from awale_env.games.kalah import kernels as core
from awale_env.games.kalah.endgame import lookup, usable
from awale_env.kernels.search import STARVING_SEEDS, Root, SearchKernels, bit_count, higher_store

#: The env of the searches: its class names the game in compiled code; the rule flags (``Rules.code``).
KalahEnv = namedtuple("KalahEnv", ("flags",))


def root(state: Any) -> Root:
    return Root.of(SEARCH, state, state.pits, state.rules.code)


def endgame(root: Root, plies: int) -> np.ndarray:
    return usable(root.flags, root.ply, root.max_plies, plies)


def random_playouts(state: Any, count: int, rng: np.ndarray) -> int:
    stores = np.array(state.stores, dtype=core.STORE_DTYPE)
    return core.random_playouts(state.pits.copy(), stores, state.to_move, state.ply, state.max_plies or 0,
                                state.rules.code, count, rng)  # fmt: skip


@njit(cache=True, error_model="numpy")
def legal(env, board, player):
    return core.legal_bits(board, player)


@njit(cache=True, error_model="numpy")
def move(env, board, stores, player, action):
    return core.sow(board, stores, player, action, env.flags)


@njit(cache=True, error_model="numpy")
def next_player(env, board, player, action):
    return core.next_player(board, player, action)


@njit(cache=True, error_model="numpy")
def status(env, board, stores, to_move, ply, max_plies, gained, repeated):
    return core.status(board, stores, ply, max_plies)


@njit(cache=True, error_model="numpy")
def decided(env, board, stores):
    return core.decided(board, stores)


@njit(cache=True, error_model="numpy")
def solved(env, table, board, player):
    return lookup(table, board, player)


@njit(cache=True, error_model="numpy")
def playout(env, board, stores, player, ply, max_plies, keys, rng):
    core.random_playout(board, stores, player, ply, max_plies, env.flags, rng)
    return higher_store(env, board, stores, 0, player)


@njit(cache=True, error_model="numpy")
def observe(env, board, stores, ply, max_plies, player, out):
    """The view of ``player``, the player to move (the searches evaluate leaves from the mover's side)."""
    core.observe(board, stores, ply, max_plies, player, player, core.total_seeds(env.flags), out)


@njit(cache=True, error_model="numpy")
def best_capture(board, player, code):
    """The most seeds one move of ``player`` captures on ``board`` (its last seed and the opposite pit's seeds, the
    seed the sowing itself dropped there included), 0 if no move captures; moves of a lap or more are left out."""
    best = 0
    for a in range(core.ROW):
        n = int(board[core.ROW * player + a])
        last = a + n
        if n == 0 or n >= core.PLACES or last % core.PLACES >= core.ROW:
            continue
        pit = core.ROW * player + last % core.PLACES
        opposite = core.NUM_PITS - 1 - pit
        # The landing pit gets the last seed only; the opposite pit got one too if the sowing went round to it.
        seeds = int(board[opposite]) + (last >= core.PLACES)
        if board[pit] == 0 and (seeds > 0 or code & core.CAPTURE_EMPTY_OPPOSITE_BIT):
            best = max(best, 1 + seeds)
    return best


@njit(cache=True, error_model="numpy")
def extra_turns(board, player):
    """The moves of ``player`` whose last seed lands in its own store."""
    count = 0
    for a in range(core.ROW):
        n = int(board[core.ROW * player + a])
        count += n > 0 and (a + n) % core.PLACES == core.STORE_PLACE
    return count


@njit(cache=True, error_model="numpy")
def features(env, board, stores, player, out):
    other = 1 - player
    own_seeds, other_seeds = core.row_total(board, player), core.row_total(board, other)
    out[0] = int(stores[player]) - int(stores[other])
    out[1], out[2] = own_seeds, other_seeds
    out[3], out[4] = best_capture(board, other, env.flags), best_capture(board, player, env.flags)
    out[5], out[6] = bit_count(core.legal_bits(board, player)), bit_count(core.legal_bits(board, other))
    out[7], out[8] = own_seeds <= STARVING_SEEDS, other_seeds <= STARVING_SEEDS
    out[9], out[10] = extra_turns(board, player), extra_turns(board, other)


#: Seeds in a pit past which its cell is the same (a pit's cells: 0, 1, ..., PIT_CAP or more seeds).
PIT_CAP = 10
#: The store difference (capped at plus or minus this) and the seeds left in the pits (by sixes, capped) of the
#: phase cell: how much a lead weighs changes as the seeds run out.
LEAD_CAP, LEFT_STEP, LEFT_BUCKETS = 12, 6, 8
PIT_CELLS = 2 * core.ROW * (PIT_CAP + 1)
TABLE_SIZE = PIT_CELLS + (2 * LEAD_CAP + 1) * LEFT_BUCKETS


@njit(cache=True, error_model="numpy")
def cells(env, board, stores, player, out):
    """The evaluation's table cells from ``player``'s side: each of its pits (in sowing order) and each of the other
    player's by its seeds, capped at :data:`PIT_CAP`; then the phase cell: the store difference by the seeds left."""
    left = 0
    for side in range(2):
        row = core.ROW * (player if side == 0 else 1 - player)
        for a in range(core.ROW):
            seeds = int(board[row + a])
            left += seeds
            out[side * core.ROW + a] = (side * core.ROW + a) * (PIT_CAP + 1) + min(seeds, PIT_CAP)
    lead = min(max(int(stores[player]) - int(stores[1 - player]), -LEAD_CAP), LEAD_CAP) + LEAD_CAP
    out[2 * core.ROW] = PIT_CELLS + lead * LEFT_BUCKETS + min(left // LEFT_STEP, LEFT_BUCKETS - 1)
    return 2 * core.ROW + 1


SEARCH = SearchKernels.of_module(
    globals(), env_type=KalahEnv, num_actions=core.NUM_ACTIONS, board_size=core.NUM_PITS,
    max_count=core.MAX_TOTAL_SEEDS, table_size=TABLE_SIZE, reduces_late_moves=True,
)  # fmt: skip
