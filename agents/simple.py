"""Baseline agents: uniformly random and greedy (largest immediate capture), on any game through its State API."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Limit, check_seed


class RandomAgent:
    """Plays a uniformly random legal move; seeded with numpy's generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random"
        self._rng = np.random.default_rng(check_seed(seed))

    def reset(self, seed: int | None = None) -> None:
        """Re-seed when given a seed; the agent keeps no other memory."""
        if check_seed(seed) is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, state: Any, limit: Limit | None = None) -> int:
        """A random legal move, at once (no search: ``limit`` changes nothing)."""
        legal = state.legal_actions()
        if not legal:
            raise ValueError("the game is over: there is no move to play")
        return legal[int(self._rng.integers(len(legal)))]


class GreedyAgent(RandomAgent):
    """Plays the move whose ``last_capture`` is largest (what it adds to its store at once: awale16's capture chain
    plus any starving sweep, Oware's and Hawalis's capture), ties at random."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.name = "greedy"

    def act(self, state: Any, limit: Limit | None = None) -> int:
        """The greediest move, at once (no search: ``limit`` changes nothing)."""
        legal = state.legal_actions()
        if not legal:
            raise ValueError("the game is over: there is no move to play")
        gains = [state.play(a).last_capture for a in legal]
        best = max(gains)
        ties = [a for a, g in zip(legal, gains) if g == best]
        return ties[int(self._rng.integers(len(ties)))]
