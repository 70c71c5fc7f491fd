"""Oware as the compiled searches see it (:class:`awale_env.kernels.search.SearchKernels`): each kernel calls the
game's own core (:mod:`awale_env.games.oware.kernels`), so nothing here re-implements a rule.

The env holds the rule flags (``Rules.code``) and what the repetition rule (rule 9) needs: the root's sorted keys and,
per search height, the searched line's keys and the height of its last capture (alpha-beta), which
:func:`repeated`, :func:`track_line` and :func:`record` read and keep.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
from numba import njit

from awale_env.games.oware import kernels as core
from awale_env.kernels.search import Root, SearchKernels, bit_count, higher_store, hole_features

OwareEnv = namedtuple("OwareEnv", ("flags", "root_keys", "path_keys", "since"))


def root(state: Any) -> Root:
    return Root.of(SEARCH, state, state.pits, state.rules.code, state.repetition_keys)


def make_env(flags: int, root_keys: np.ndarray, scratch: np.ndarray, path_keys: np.ndarray, since: np.ndarray
             ) -> OwareEnv:  # fmt: skip
    return OwareEnv(flags, root_keys, path_keys, since)


def random_playouts(state: Any, count: int, rng: np.ndarray) -> int:
    stores = np.array(state.stores, dtype=core.STORE_DTYPE)
    limit = state.max_plies or 0
    return core.random_playouts(state.pits.copy(), stores, state.to_move, state.ply, limit, state.rules.code, count,
                                rng)  # fmt: skip


@njit(cache=True, error_model="numpy")
def legal(env, board, player):
    return core.legal_bits(board, player, env.flags)


@njit(cache=True, error_model="numpy")
def move(env, board, stores, player, action):
    return core.apply_action(board, stores, player, action, env.flags)


@njit(cache=True, error_model="numpy")
def status(env, board, stores, to_move, ply, max_plies, gained, repeated):
    code = core.end_status(board, stores, to_move, ply, max_plies, repeated, env.flags) & ((1 << core.STATUS_BITS) - 1)
    if code != core.ONGOING:
        core.settle(board, stores, code, env.flags)
    return code


@njit(cache=True, error_model="numpy")
def status_legal(env, board, stores, to_move, ply, max_plies, gained, repeated):
    packed = core.finish(board, stores, to_move, ply, max_plies, repeated, env.flags)
    return packed & ((1 << core.STATUS_BITS) - 1), packed >> core.STATUS_BITS


@njit(cache=True, error_model="numpy")
def playout(env, board, stores, player, ply, max_plies, keys, rng):
    core.random_playout(board, stores, player, ply, max_plies, env.flags, keys, rng)
    return higher_store(env, board, stores, 0, player)


@njit(cache=True, error_model="numpy")
def repeated(env, board, to_move, height):
    key = core.position_key(board, to_move)
    start = env.since[height]
    for i in range(start, height + 1):
        if env.path_keys[i] == key:
            return True
    if start == 0:
        j = np.searchsorted(env.root_keys, key)
        return j < env.root_keys.shape[0] and env.root_keys[j] == key
    return False


@njit(cache=True, error_model="numpy")
def track_line(env, height, board, to_move, captured):
    env.path_keys[height] = core.position_key(board, to_move)
    env.since[height] = height if captured or height == 0 else env.since[height - 1]


@njit(cache=True, error_model="numpy")
def record(env, keys, board, to_move, gained, restart):
    if restart:
        core.key_set_clear(keys)
        for i in range(env.root_keys.shape[0]):
            core.key_set_insert(keys, env.root_keys[i])
        return keys, False
    if gained > 0:
        core.key_set_clear(keys)
    elif core.key_set_full(keys):
        keys = core.key_set_grown(keys)
    return keys, not core.key_set_insert(keys, core.position_key(board, to_move))


@njit(cache=True, error_model="numpy")
def observe(env, board, stores, ply, max_plies, player, out):
    core.observe(board, stores, ply, max_plies, player, out)


@njit(cache=True, error_model="numpy")
def rooted(env, keys):
    return OwareEnv(env.flags, keys, env.path_keys, env.since)


@njit(cache=True, error_model="numpy")
def features(env, board, stores, player, out):
    own, other = core.legal_bits(board, player, env.flags), core.legal_bits(board, 1 - player, env.flags)
    hole_features(board, stores, player, core.NUM_PITS, 1, False, 2, 3, bit_count(own), bit_count(other), out)


SEARCH = SearchKernels.of_module(
    globals(), env_type=OwareEnv, num_actions=core.NUM_ACTIONS, board_size=core.NUM_PITS, max_count=core.TOTAL_SEEDS,
    new_key_set=core.key_set_new,
)  # fmt: skip
