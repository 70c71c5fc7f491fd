"""The toy game with another turn as the compiled searches see it: the toy game's kernels, its own env class,
``next_player`` and random playouts that follow the mover."""

from __future__ import annotations

import dataclasses
from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit
from toy_game import search as toy_search

from awale_env.kernels.search import Root, higher_store

from . import rules

TurnsEnv = namedtuple("TurnsEnv", ("flags",))


def root(state: Any) -> Root:
    return Root.of(SEARCH, state, state.pits)


def make_env(flags: int, root_keys: np.ndarray, scratch: np.ndarray, path_keys: np.ndarray, since: np.ndarray
             ) -> TurnsEnv:  # fmt: skip
    return TurnsEnv(flags)


def random_playouts(state: Any, count: int, rng: np.ndarray) -> int:
    stores = np.array(state.stores, dtype=np.int16)
    return rules.random_playouts(state.pits.copy(), stores, state.to_move, state.ply, state.max_plies or 0, count, rng)


@njit(cache=True, error_model="numpy")
def next_player(env, board, player, action):
    return rules.mover_after(board, player, action)


@njit(cache=True, error_model="numpy")
def playout(env, board, stores, player, ply, max_plies, keys, rng):
    rules.random_playout(board, stores, player, ply, max_plies, rng)
    return higher_store(env, board, stores, 0, player)


SEARCH = dataclasses.replace(toy_search.SEARCH, env_type=TurnsEnv, root=root, make_env=make_env,
                             random_playouts=random_playouts, next_player=next_player, playout=playout)  # fmt: skip
