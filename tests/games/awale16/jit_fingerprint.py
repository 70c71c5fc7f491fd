"""A digest of what the compiled kernels compute, compared with and without NUMBA_DISABLE_JIT=1."""

from __future__ import annotations

import numpy as np

from awale_env import State
from awale_env.games.awale16 import kernels as core
from awale_env.kernels.rng import make_rng


def fingerprint() -> dict:
    rng = make_rng(12345)
    playouts = []
    for max_plies in (core.NO_LIMIT, 400, 37):
        for _ in range(12):
            seeds, stores = core.initial_seeds(), np.zeros(2, dtype=core.STORE_DTYPE)
            status, ply = core.random_playout(seeds, stores, 0, 0, max_plies, rng)
            playouts.append([int(status), int(ply), seeds.tolist(), stores.tolist()])
    games = []
    for seed in range(5):
        game_rng = make_rng(seed)
        state, moves = State.initial(), []
        while not state.is_terminal:
            action = int(core.random_legal_action(state.seeds, state.to_move, game_rng, np.empty(16, np.int64)))
            moves.append(action)
            state = state.play(action)
        games.append(
            [moves, state.to_dict(), state.observation_tensor(0).tolist(), state.observation_tensor(1).tolist()]
        )
    plies = int(core.random_playouts(core.initial_seeds(), np.zeros(2, core.STORE_DTYPE), 0, 0, 400, 20, rng))
    return {"playouts": playouts, "games": games, "plies": plies, "rng": int(rng[0])}
