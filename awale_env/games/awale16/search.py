"""The two-colour Awale as the compiled searches see it (:class:`awale_env.kernels.search.SearchKernels`): each
kernel calls the game's own core (:mod:`awale_env.games.awale16.kernels`), so nothing here re-implements a rule."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from awale_env.games.awale16 import kernels as core
from awale_env.kernels.search import (
    Root,
    SearchKernels,
    bit_count,
    higher_store,
    hole_features,
)

#: The env of the searches: the rule flags (none in this game).
Awale16Env = namedtuple("Awale16Env", ("flags",))


def root(state: Any) -> Root:
    return Root.of(SEARCH, state, state.seeds)


def random_playouts(state: Any, count: int, rng: np.ndarray) -> int:
    stores = np.array(state.stores, dtype=core.STORE_DTYPE)
    limit = state.max_plies or 0
    return core.random_playouts(state.seeds.copy(), stores, state.to_move, state.ply, limit, count, rng)


@njit(cache=True, error_model="numpy")
def legal(env, board, player):
    return core.legal_bits(board, player)


@njit(cache=True, error_model="numpy")
def moves(env, board, player, out):
    return core.own_moves(board, player, out)


@njit(cache=True, error_model="numpy")
def move(env, board, stores, player, action):
    return core.apply_action(board, stores, player, action)


@njit(cache=True, error_model="numpy")
def status(env, board, stores, to_move, ply, max_plies, gained, repeated):
    return core.end_status(core.board_total(board), int(stores[0]), int(stores[1]), ply, max_plies)


@njit(cache=True, error_model="numpy")
def playout(env, board, stores, player, ply, max_plies, keys, rng):
    core.random_playout(board, stores, player, ply, max_plies, rng)
    return higher_store(env, board, stores, 0, player)


@njit(cache=True, error_model="numpy")
def observe(env, board, stores, ply, max_plies, player, out):
    core.observe(board, stores, ply, max_plies, player, out)


@njit(cache=True, error_model="numpy")
def features(env, board, stores, player, out):
    own, other = bit_count(core.legal_bits(board, player)), bit_count(core.legal_bits(board, 1 - player))
    hole_features(board, stores, player, core.NUM_HOLES, 2, True, 2, 3, own, other, out)


SEARCH = SearchKernels.of_module(
    globals(), env_type=Awale16Env, num_actions=core.NUM_ACTIONS, board_size=core.NUM_ACTIONS,
    max_moves=core.NUM_HOLES, max_count=core.TOTAL_SEEDS,
)  # fmt: skip
