"""Load (on a fresh clone: compile) the numba kernels the tests use, once, before parallel test workers start.

With ``pytest -n`` every worker would otherwise compile the same kernels at the same time on a fresh clone (twice the
work, and a timed test may meet a compilation its serial order had done earlier). tests/conftest.py runs
:func:`warm` in pytest's controller process when tests run in parallel; ``python tests/warm_kernels.py`` runs it
alone. With a warm cache it costs a few seconds.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

import numpy as np

from awale_env.games import GAMES
from awale_env.kernels.rng import make_rng
from awale_env.vector import AwaleVectorEnv


def warm(out: TextIO | None = sys.stderr) -> float:
    """Play a little of every registered game through its State, compiled playouts, vector env and the search
    agents, saying on ``out`` (None: nothing) which game it is at and how long each took; the seconds it took."""
    import agents

    def say(text: str, end: str = "\n") -> None:
        if out is not None:
            print(text, end=end, file=out, flush=True)

    start = time.perf_counter()
    say(f"tests/warm_kernels.py: loading the numba kernels of {len(GAMES)} games before the test workers start "
        "(compiling them on a fresh clone: minutes)")  # fmt: skip
    for game in list(GAMES.values()):
        began = time.perf_counter()
        say(f"  {game.name}: ", end="")
        state = game.initial()
        state.play(state.legal_actions()[0]).observation_tensor(0)
        try:
            game.search.random_playouts(state, 2, make_rng(0))
        except NotImplementedError:  # a game without search kernels
            say(f"rules only, {time.perf_counter() - began:.1f} s")
            continue
        envs = AwaleVectorEnv(4, opponent=None, game=game.name)
        envs.reset(seed=0)
        envs.step(np.argmax(envs.action_masks(), axis=1))
        for spec in ("alphabeta:depth=2", "mcts:simulations=16"):
            agents.make(spec, seed=0).act(state)
        say(f"rules, vector env and searches, {time.perf_counter() - began:.1f} s")
    seconds = time.perf_counter() - start
    say(f"tests/warm_kernels.py: kernels loaded in {seconds:.1f} s")
    return seconds


if __name__ == "__main__":
    warm()
