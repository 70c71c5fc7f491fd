"""What the editions' compiled code computes on a few random games, compared with and without NUMBA_DISABLE_JIT=1:
the State API's moves and positions, the compiled random playouts, the search kernels and a batch of vector games."""

from __future__ import annotations

from typing import Any

import numpy as np

from awale_env.games import get_game
from awale_env.kernels.rng import make_rng
from awale_env.kernels.search import new_scratch

EDITIONS = (
    ("awale16_2023", {}),
    ("awale16_2024", {}),
    ("awale16_2025", {}),
    ("awale16_2025", {"end_at_both_40": True}),
)


def fingerprint() -> list[Any]:
    from awale_env.vector import AwaleVectorEnv

    result = []
    for name, options in EDITIONS:
        game = get_game(name)
        search = game.search
        rng = np.random.default_rng(7)
        for max_plies in (None, 41):
            state, moves = game.initial(max_plies=max_plies, **options), []
            while not state.is_terminal:
                root = search.root(state)
                env = root.env(new_scratch(), None, None)
                moves.append([int(search.legal(env, root.board, root.player)), state.legal_mask().tolist()])
                state = state.play(int(rng.choice(state.legal_actions())))
            views = [state.observation_tensor(player).tolist() for player in (0, 1)]
            result.append([name, moves, state.to_dict(), views])
        root = search.root(game.initial(**options))
        board, stores = root.board.copy(), root.stores.copy()
        won = search.playout(root.env(new_scratch(), None, None), board, stores, 0, 0, 0, None, make_rng(3))
        result.append(
            [int(won), board.tolist(), stores.tolist(), search.random_playouts(game.initial(), 5, make_rng(4))]
        )
        vec = AwaleVectorEnv(3, opponent="random", max_plies=30, reward="score_diff", game=name, **options)
        obs, info = vec.reset(seed=5)
        for _ in range(40):
            masks = info["action_mask"]
            actions = np.where(masks.any(1), (rng.random(masks.shape) * masks).argmax(1), 0)
            obs, rewards, ended, _, info = vec.step(actions)
            result.append([obs.tolist(), rewards.tolist(), ended.tolist(), info["outcome"].tolist()])
    return result
