"""Kalah as the compiled searches see it (:class:`awale_env.kernels.search.SearchKernels`): each kernel calls the
game's own core (:mod:`awale_env.games.kalah.kernels`). ``next_player`` gives the mover another turn when its last
seed lands in its store; the searches and the vector env's stepper follow it. No repetition rule: the shared
defaults serve the rest."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from awale_env.games.kalah import kernels as core
from awale_env.kernels.search import Root, SearchKernels, higher_store

#: The env of the searches: its class names the game in compiled code; the rule flags (``Rules.code``).
KalahEnv = namedtuple("KalahEnv", ("flags",))


def root(state: Any) -> Root:
    return Root.of(SEARCH, state, state.pits, state.rules.code)


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
def playout(env, board, stores, player, ply, max_plies, keys, rng):
    core.random_playout(board, stores, player, ply, max_plies, env.flags, rng)
    return higher_store(env, board, stores, 0, player)


@njit(cache=True, error_model="numpy")
def observe(env, board, stores, ply, max_plies, player, out):
    """The view of ``player``, the player to move (the searches evaluate leaves from the mover's side)."""
    core.observe(board, stores, ply, max_plies, player, player, core.total_seeds(env.flags), out)


SEARCH = SearchKernels.of_module(
    globals(), env_type=KalahEnv, num_actions=core.NUM_ACTIONS, board_size=core.NUM_PITS,
    max_count=core.MAX_TOTAL_SEEDS,
)  # fmt: skip
