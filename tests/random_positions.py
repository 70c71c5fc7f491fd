"""Positions of random games for the tests of networks and policies (a helper module, not a test file)."""

from __future__ import annotations

import numpy as np

from awale_env.games import get_game


def random_states(
    game: str, count: int, seed: int, plies: tuple[int, int] = (0, 60), seeded_starts: bool = True
) -> list:
    """``count`` non-terminal positions of ``game``, each after a random number of random plies in ``plies``; with
    ``seeded_starts`` each game starts from a seeded initial position (games with a random start vary it), without
    from the plain one (no draw of ``rng`` for it, so the positions some tests recorded stay the same)."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = get_game(game).initial(seed=int(rng.integers(1 << 30))) if seeded_starts else get_game(game).initial()
        for _ in range(rng.integers(*plies)):
            if state.is_terminal:
                break
            state = state.play(int(rng.choice(state.legal_actions())))
        if not state.is_terminal:
            states.append(state)
    return states
