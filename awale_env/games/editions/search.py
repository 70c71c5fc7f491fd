"""The editions with transparent seeds as the compiled searches see them
(:class:`awale_env.kernels.search.SearchKernels`): each kernel calls :mod:`awale_env.games.editions.kernels` with the
rules code the env carries, so the 2023 and 2025 editions share them, and share one env class too: the searches and the
vector env's stepper are compiled once per env class, so the two editions share every compiled search (a compile of
them costs a minute of CPU on a fresh install), each told apart by its rules code at run time."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from awale_env.games.awale16 import kernels as a16
from awale_env.games.editions import kernels as core
from awale_env.kernels.search import (
    Root,
    SearchKernels,
    bit_count,
    higher_store,
    hole_features,
)

#: The env of the editions' searches: the edition's rules code (:func:`awale_env.games.editions.kernels.rules_code`).
EditionEnv = namedtuple("EditionEnv", ("flags",))


@njit(cache=True, error_model="numpy")
def legal(env, board, player):
    return core.legal_mask_bits(board, player)


@njit(cache=True, error_model="numpy")
def moves(env, board, player, out):
    return a16.own_moves(board, player, out, core.COLOURS)


@njit(cache=True, error_model="numpy")
def move(env, board, stores, player, action):
    return core.apply_action(board, stores, player, action, env.flags)


@njit(cache=True, error_model="numpy")
def status(env, board, stores, to_move, ply, max_plies, gained, repeated):
    return core.end_status(core.board_total(board), int(stores[0]), int(stores[1]), ply, max_plies, env.flags)


@njit(cache=True, error_model="numpy")
def playout(env, board, stores, player, ply, max_plies, keys, rng):
    core.random_playout(board, stores, player, ply, max_plies, env.flags, rng)
    return higher_store(env, board, stores, 0, player)


@njit(cache=True, error_model="numpy")
def observe(env, board, stores, ply, max_plies, player, out):
    core.observe(board, stores, ply, max_plies, player, env.flags, out)


@njit(cache=True, error_model="numpy")
def features(env, board, stores, player, out):
    own, other = bit_count(legal(env, board, player)), bit_count(legal(env, board, 1 - player))
    hole_features(board, stores, player, core.NUM_HOLES, core.COLOURS, True, 2, 3, own, other, out)


def horizon(root: Root) -> int:
    """The nearer of ``max_plies`` and the rules' move limit (which ends a game first: :func:`core.end_status`)."""
    limit = int(core.move_limit(root.flags))
    if limit == core.NO_LIMIT or (root.max_plies != core.NO_LIMIT and root.max_plies < limit):
        return root.max_plies
    return limit


def random_playouts(state: Any, count: int, rng: np.ndarray) -> int:
    stores = np.array(state.stores, dtype=core.STORE_DTYPE)
    limit = state.max_plies or core.NO_LIMIT
    board = state.seeds.copy()
    return core.random_playouts(board, stores, state.to_move, state.ply, limit, state.rules_code, count, rng)


def search_kernels(total_seeds: int) -> SearchKernels:
    """The search kernels of an edition with transparent seeds and ``total_seeds`` seeds."""

    def root(state: Any) -> Root:
        return Root.of(kernels, state, state.seeds, flags=state.rules_code)

    kernels = SearchKernels.of_module(
        {**globals(), "root": root}, env_type=EditionEnv, num_actions=core.NUM_ACTIONS, board_size=core.BOARD_SIZE,
        max_moves=core.NUM_ACTIONS // 2, max_count=total_seeds,
    )  # fmt: skip
    return kernels
