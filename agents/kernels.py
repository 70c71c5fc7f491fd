"""The compiled search agents' view of every game: a handful of numba kernels that dispatch on a game number to the
game's own core (:mod:`awale_env.core.awale16`, :mod:`~awale_env.core.oware`, :mod:`~awale_env.core.hawalis`), so
that alpha-beta and MCTS are written once for all games and nothing here re-implements a rule.

A position in the searches is the same few arrays for every game: ``board`` (``int8``, the game core's layout),
``stores`` (``int16[2]``: seeds captured, or Hawalis's ``captured``, grown by each move's captures), the player to
move, the ply and the ply limit (``NO_LIMIT`` = 0 for none). Each game's extra state goes alongside: ``flags`` (Oware's
``rules.code``, Hawalis's endless-move mode, 0 for the two-colour game), ``scratch`` (Hawalis's work space) and, for
Oware's repetition rule, a key set (:func:`awale_env.core.oware.key_set_new`) or the root's sorted keys.

The game number is an argument rather than a compile-time constant: numba caches functions that take jitted
functions as arguments or capture them in closures only within one process, and the dispatch costs one well-predicted
comparison per call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from awale_env.core import awale16 as a16
from awale_env.core import hawalis as hw
from awale_env.core import oware as ow
from awale_env.games import game_of

AWALE16, OWARE, HAWALIS = 0, 1, 2
NO_LIMIT = 0
ONGOING = 0  # every core's status code of a live game
DRAW = -1  # what :func:`winner` returns when nobody wins
ENDLESS = -1  # what :func:`move` returns for a Hawalis move that never ends (the board is left unchanged)


@dataclass(frozen=True)
class GameKernels:
    """Sizes the searches allocate by: actions, board slots, most legal moves at once, most seeds in one slot and
    in one store (for Zobrist keys)."""

    code: int
    num_actions: int
    board_size: int
    max_moves: int
    max_count: int
    max_store: int


KERNELS = {
    "awale16": GameKernels(AWALE16, a16.NUM_ACTIONS, a16.NUM_ACTIONS, a16.NUM_HOLES, a16.TOTAL_SEEDS, a16.TOTAL_SEEDS),
    "oware": GameKernels(OWARE, ow.NUM_ACTIONS, ow.NUM_PITS, ow.NUM_ACTIONS, ow.TOTAL_SEEDS, ow.TOTAL_SEEDS),
    "hawalis": GameKernels(
        HAWALIS, hw.NUM_ACTIONS, hw.BOARD_SIZE, hw.NUM_ACTIONS, hw.SEEDS_PER_SIDE, hw.SEEDS_PER_SIDE
    ),
}


@dataclass(frozen=True)
class Root:
    """A State as the compiled searches take it (fresh arrays, the State is not touched)."""

    kernels: GameKernels
    board: np.ndarray
    stores: np.ndarray
    player: int
    ply: int
    max_plies: int
    flags: int
    keys: np.ndarray  # Oware: the repetition set's keys, sorted; empty for the other games


def root_of(state: object) -> Root:
    """The search position of any game's State (ValueError for an object that is no game's State)."""
    name = game_of(state).name
    max_plies = NO_LIMIT if state.max_plies is None else int(state.max_plies)
    board = np.array(state.seeds if name == "awale16" else state.pits, dtype=np.int8)
    flags, keys = 0, np.zeros(0, dtype=np.int64)
    if name == "oware":
        flags, keys = state.rules.code, state.repetition_keys
    elif name == "hawalis":
        flags = state.rules.endless_code
    stores = np.array(state.stores, dtype=np.int16)
    return Root(KERNELS[name], board, stores, state.to_move, state.ply, max_plies, flags, keys)


def new_scratch() -> np.ndarray:
    """Work space of :func:`move`, :func:`legal` and :func:`status` (Hawalis simulates moves in it)."""
    return hw.new_scratch()


@njit(cache=True, error_model="numpy", inline="always")
def legal(game, board, player, flags, scratch):
    """The legal actions of ``player`` in a live position, as a bit mask (bit ``a`` for action ``a``)."""
    if game == AWALE16:
        return a16.legal_bits(board, player)
    if game == OWARE:
        return ow.legal_bits(board, player, flags)
    return hw.legal_bits(board, player, flags, scratch)


@njit(cache=True, error_model="numpy")
def moves(game, board, player, flags, scratch, out):
    """Write the legal actions of ``player`` in a live position into ``out`` in increasing order; return how many.
    The two-colour game scans its own holes only (a player's actions are half of them)."""
    n = 0
    if game == AWALE16:
        for a in range(2 * player, a16.NUM_ACTIONS, 4):
            out[n] = a
            n += board[a] > 0
            out[n] = a + 1
            n += board[a + 1] > 0
        return n
    bits = legal(game, board, player, flags, scratch)
    a = 0
    while bits >> a:
        out[n] = a
        n += (bits >> a) & 1
        a += 1
    return n


@njit(cache=True, error_model="numpy", inline="always")
def move(game, board, stores, player, action, flags, scratch):
    """Play a legal action in place; return the seeds it captured (added to ``stores[player]``), or ``ENDLESS`` for
    a Hawalis move that never ends (nothing changed: the game is over, see :func:`status`)."""
    if game == AWALE16:
        return a16.apply_action(board, stores, player, action)
    if game == OWARE:
        return ow.apply_action(board, stores, player, action, flags)
    moved = hw.apply_move(board, player, action, scratch)
    if moved == hw.ENDLESS:
        return ENDLESS
    captured = moved & 0xFF
    stores[player] += captured
    return captured


@njit(cache=True, error_model="numpy", inline="always")
def status(game, board, stores, to_move, ply, max_plies, gained, repeated, flags, scratch):
    """The status code (``ONGOING`` = 0) of the position a move gaining ``gained`` led to, ``to_move`` to play.

    ``repeated``: Oware's rule 9 (the caller keeps the repetition set). A finished Oware game is settled in place
    (seeds collected as its rules say), so that :func:`winner` reads the final stores.
    """
    if game == AWALE16:
        return a16.end_status(a16.board_total(board), int(stores[0]), int(stores[1]), ply, max_plies)
    if game == OWARE:
        code = ow.end_status(board, stores, to_move, ply, max_plies, repeated, flags) & ((1 << ow.STATUS_BITS) - 1)
        if code != ONGOING:
            ow.settle(board, stores, code, flags)
        return code
    if gained == ENDLESS:
        return hw.ENDLESS_MOVE
    return hw.end_status(board, to_move, ply, max_plies, flags, scratch) & 7


@njit(cache=True, error_model="numpy", inline="always")
def _higher_store(stores):
    if stores[0] > stores[1]:
        return 0
    if stores[1] > stores[0]:
        return 1
    return DRAW


@njit(cache=True, error_model="numpy", inline="always")
def winner(game, board, stores, code, to_move):
    """0 or 1 for the winner of a finished game (status ``code``, ``to_move`` to play), ``DRAW`` for none: the
    higher store (Oware's settled), Hawalis's own rules."""
    if game == HAWALIS:
        return hw.winner(board, code, to_move)
    return _higher_store(stores)


@njit(cache=True, error_model="numpy")
def playout(game, board, stores, player, ply, max_plies, flags, keys, rng):
    """Play uniformly random legal moves in place from a live position to the end with the game's compiled
    ``random_playout``; return the winner (``DRAW`` for none). ``keys``: Oware's repetition set, consumed."""
    if game == AWALE16:
        a16.random_playout(board, stores, player, ply, max_plies, rng)
    elif game == OWARE:
        ow.random_playout(board, stores, player, ply, max_plies, flags, keys, rng)
    else:
        _, won, _ = hw.random_playout(board, player, ply, max_plies, flags, rng)
        return won
    return _higher_store(stores)


@njit(cache=True, error_model="numpy", inline="always")
def position_key(game, board, player):
    """Oware's exact key of (board, player to move) for the repetition rule; 0 for the other games (no such rule)."""
    if game == OWARE:
        return ow.position_key(board, player)
    return 0
