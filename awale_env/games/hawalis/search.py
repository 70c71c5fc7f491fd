"""Hawalis as the compiled searches see it (:class:`awale_env.kernels.search.SearchKernels`): each kernel calls the
game's own core (:mod:`awale_env.games.hawalis.kernels`), so nothing here re-implements a rule.

The env holds the endless-move mode and the work space the core simulates moves in; ``stores`` are the captured
seeds, grown by each move's captures; :func:`move` returns ``ENDLESS`` for a move that never ends.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from awale_env.games.hawalis import kernels as core
from awale_env.kernels.search import (
    Root,
    SearchKernels,
)

#: What :func:`move` returns for a move that never ends (the board is left unchanged; :func:`status` ends the game).
ENDLESS = -1

HawalisEnv = namedtuple("HawalisEnv", ("flags", "scratch"))


def root(state: Any) -> Root:
    return Root.of(SEARCH, state, state.pits, state.rules.endless_code)


def make_env(flags: int, root_keys: np.ndarray, scratch: np.ndarray, path_keys: np.ndarray, since: np.ndarray
             ) -> HawalisEnv:  # fmt: skip
    return HawalisEnv(flags, scratch[: core.SCRATCH_SIZE])  # the core's work space is exactly this long


def random_playouts(state: Any, count: int, rng: np.ndarray) -> int:
    limit = state.max_plies or 0
    return core.random_playouts(state.pits.copy(), state.to_move, state.ply, limit, state.rules.endless_code, count,
                                rng)  # fmt: skip


@njit(cache=True, error_model="numpy")
def legal(env, board, player):
    return core.legal_bits(board, player, env.flags, env.scratch)


@njit(cache=True, error_model="numpy")
def move(env, board, stores, player, action):
    moved = core.apply_move(board, player, action, env.scratch)
    if moved == core.ENDLESS:
        return ENDLESS
    captured = moved & 0xFF
    stores[player] += captured
    return captured


@njit(cache=True, error_model="numpy")
def status(env, board, stores, to_move, ply, max_plies, gained, repeated):
    if gained == ENDLESS:
        return core.ENDLESS_MOVE
    return core.end_status(board, to_move, ply, max_plies, env.flags, env.scratch) & 7


@njit(cache=True, error_model="numpy")
def status_legal(env, board, stores, to_move, ply, max_plies, gained, repeated):
    if gained == ENDLESS:
        return core.ENDLESS_MOVE, 0
    packed = core.end_status(board, to_move, ply, max_plies, env.flags, env.scratch)
    return packed & 7, packed >> 3


@njit(cache=True, error_model="numpy")
def winner(env, board, stores, code, to_move):
    return core.winner(board, code, to_move)


@njit(cache=True, error_model="numpy")
def playout(env, board, stores, player, ply, max_plies, keys, rng):
    _, won, _ = core.random_playout(board, player, ply, max_plies, env.flags, rng)
    return won


@njit(cache=True, error_model="numpy")
def observe(env, board, stores, ply, max_plies, player, out):
    core.observe(board, ply, max_plies, player, out)


SEARCH = SearchKernels.of_module(
    globals(), env_type=HawalisEnv, num_actions=core.NUM_ACTIONS, board_size=core.BOARD_SIZE,
    max_count=core.SEEDS_PER_SIDE,
)  # fmt: skip
