"""The 2024 edition as the compiled searches see it: the 2021 game's search kernels
(:mod:`awale_env.games.awale16.search`) on the relabelled board, the actions exchanged between each hole's two
colours where they cross (see :mod:`awale_env.games.awale16_2024.state`): those defined here, the 2021 game's for the
rest."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from numba import njit

from awale_env.games.awale16 import kernels as core
from awale_env.games.awale16 import search as search_2021
from awale_env.kernels.search import Root, SearchKernels

#: The env of the 2024 edition's searches (no rule flags).
Awale2024Env = namedtuple("Awale2024Env", ("flags",))


def root(state: Any) -> Root:
    return Root.of(SEARCH, state, state.seeds)


@njit(cache=True, error_model="numpy")
def legal(env, board, player):
    bits = core.legal_bits(board, player)
    return ((bits & 0x55555555) << 1) | ((bits >> 1) & 0x55555555)


@njit(cache=True, error_model="numpy")
def moves(env, board, player, out):
    n = 0
    for a in range(2 * player, core.NUM_ACTIONS, 4):  # the player's own holes: red (the kernels' a + 1), then blue
        out[n] = a
        n += board[a + 1] > 0
        out[n] = a + 1
        n += board[a] > 0
    return n


@njit(cache=True, error_model="numpy")
def move(env, board, stores, player, action):
    return core.apply_action(board, stores, player, action ^ 1)


SEARCH = SearchKernels.of_module(
    {**vars(search_2021), **globals()}, env_type=Awale2024Env, num_actions=core.NUM_ACTIONS,
    board_size=core.NUM_ACTIONS, max_moves=core.NUM_HOLES, max_count=core.TOTAL_SEEDS,
)  # fmt: skip
