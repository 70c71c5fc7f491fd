"""The toy game as the compiled searches see it (:class:`awale_env.kernels.search.SearchKernels`): each kernel calls
the game's own rules (:mod:`.kernels`); a game without a repetition rule takes the shared defaults for the rest."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from awale_env.kernels.search import (
    Root,
    SearchKernels,
    higher_store,
)

from . import kernels as core

#: The env of the searches: its class names the game in compiled code; no rule flags.
ToyEnv = namedtuple("ToyEnv", ("flags",))


def root(state: Any) -> Root:
    return Root.of(SEARCH, state, state.pits)


def random_playouts(state: Any, count: int, rng: np.ndarray) -> int:
    stores = np.array(state.stores, dtype=core.STORE_DTYPE)
    limit = state.max_plies or core.NO_LIMIT
    return int(core.random_playouts(state.pits.copy(), stores, state.to_move, state.ply, limit, count, rng))


@njit(cache=True, error_model="numpy")
def legal(env, board, player):
    return core.legal_bits(board, player)


@njit(cache=True, error_model="numpy")
def move(env, board, stores, player, action):
    return core.sow(board, stores, player, action)


@njit(cache=True, error_model="numpy")
def status(env, board, stores, to_move, ply, max_plies, gained, repeated):
    return core.status(board, stores, to_move, ply, max_plies)


@njit(cache=True, error_model="numpy")
def playout(env, board, stores, player, ply, max_plies, keys, rng):
    core.random_playout(board, stores, player, ply, max_plies, rng)
    return higher_store(env, board, stores, 0, player)


@njit(cache=True, error_model="numpy")
def observe(env, board, stores, ply, max_plies, player, out):
    core.observe(board, stores, ply, max_plies, player, out)


SEARCH = SearchKernels.of_module(
    globals(), env_type=ToyEnv, num_actions=core.NUM_ACTIONS, board_size=core.NUM_PITS, max_count=core.TOTAL_SEEDS
)
