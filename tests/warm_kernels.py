"""Load (on a fresh clone: compile) the numba kernels the tests use, once, before parallel test workers start.

With ``pytest -n`` every worker would otherwise compile the same kernels at the same time on a fresh clone (twice the
work, and a timed test may meet a compilation its serial order had done earlier). tests/conftest.py runs
:func:`warm` in pytest's controller process when tests run in parallel; ``python tests/warm_kernels.py`` runs it
alone. With a warm cache it costs a few seconds.
"""

from __future__ import annotations

import time

import numpy as np

from awale_env.games import GAMES
from awale_env.kernels.rng import make_rng
from awale_env.vector import AwaleVectorEnv


def warm() -> float:
    """Play a little of every registered game through its State, compiled playouts, vector env and the search
    agents; the seconds it took."""
    import agents

    start = time.perf_counter()
    for game in GAMES.values():
        state = game.initial()
        state.play(state.legal_actions()[0]).observation_tensor(0)
        try:
            game.search.random_playouts(state, 2, make_rng(0))
        except NotImplementedError:  # a game without search kernels
            continue
        envs = AwaleVectorEnv(4, opponent=None, game=game.name)
        envs.reset(seed=0)
        envs.step(np.argmax(envs.action_masks(), axis=1))
        for spec in ("alphabeta:depth=2", "mcts:simulations=16"):
            agents.make(spec, seed=0).act(state)
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"kernels loaded in {warm():.1f} s")
