"""Many games of one kind held in arrays, with the kernels that step them: what
:class:`awale_env.vector.AwaleVectorEnv` drives, the same way for every game.

A game's ``batch`` module holds its compiled :class:`BatchedGames` (``Game.batched`` picks it); a game without one
runs in :class:`StateBatchedGames`, the same arrays kept by its State API in Python (slower, but any registered game
plays in the vector env). Every game codes a live game as status 0 and an illegal action as the status after its
end reasons, ``len(game.end_reasons)``.
"""

from __future__ import annotations

import importlib
import warnings
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from awale_env.games import Game, get_game
from awale_env.kernels.batch import ONGOING, RANDOM_SEAT, SCORE_DIFF
from awale_env.kernels.rng import next_random, random_below

__all__ = ["ONGOING", "BatchedGames", "StateBatchedGames", "batched_games", "move_reward"]


def move_reward(reward_mode: int, game: Game, before: Any, after: Any) -> float:
    """The reward of the player who moved from State ``before`` to ``after``; the other player's is its negative.

    ``win_loss``: the mover's return (+1 / -1 / 0) once the game is over, 0 before. ``score_diff``: the change of the
    mover's store lead over the move / ``game.total_seeds``, so a game adds up to the final store difference / total
    seeds (seeds collected at the end count too). Every environment pays these (the compiled batches the same).
    """
    mover = before.to_move
    if reward_mode == SCORE_DIFF:
        old, new = before.stores, after.stores
        return ((new[mover] - new[1 - mover]) - (old[mover] - old[1 - mover])) / game.total_seeds
    return after.returns()[mover] if after.is_terminal else 0.0


class BatchedGames(ABC):
    """``n`` games of ``game`` with a ply limit and a reward scheme (:data:`awale_env.kernels.batch.REWARD_MODES`
    code).

    ``board`` (n x the game's board size), ``player`` (to move), ``ply`` and ``status`` are the games' arrays;
    ``outcomes[status]`` names a status. The kernels' arguments that say how to step (autoreset, learner seats,
    random generators ``rngs``: uint64[n, 1]) and where to write (observations, masks, rewards) are the vector env's.
    """

    board: np.ndarray
    player: np.ndarray
    ply: np.ndarray
    status: np.ndarray

    def __init__(self, game: Game, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]) -> None:
        game.check_options(options, rule_flags_only=True)
        self.game = game
        self.initial_state = game.initial(max_plies=max_plies, **options)  # checks the options' values
        self.options = options
        self.max_plies = max_plies
        self.limit = 0 if max_plies is None else int(max_plies)  # every game's kernels read 0 as no limit
        self.reward_mode = reward_mode
        self.outcomes = (*game.end_reasons, "illegal_action")
        self.illegal = len(game.end_reasons)

    @abstractmethod
    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        """Restart the games where ``which`` is True (against the built-in random opponent when ``vs_random``) and
        write every game's view."""

    @abstractmethod
    def step_self_play(self, rngs: np.ndarray, same_step: bool, *outputs: np.ndarray) -> None:
        """One move in every game for the side to move (outputs as the two-colour game's
        :func:`~awale_env.games.awale16.batch.step_self_play`)."""

    @abstractmethod
    def step_vs_random(self, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
                       *outputs: np.ndarray) -> None:  # fmt: skip
        """One learner move and the random reply in every game (as the two-colour game's
        :func:`~awale_env.games.awale16.batch.step_vs_random`)."""

    @abstractmethod
    def start(self, i: int, rngs: np.ndarray) -> None:
        """Set game ``i`` to the starting position."""

    @abstractmethod
    def play(self, i: int, action: int) -> float:
        """Play ``action`` for the side to move in game ``i``; return the mover's reward (-1 and status
        ``len(game.end_reasons)`` for an illegal action, the position left as it was)."""

    @abstractmethod
    def view(self, i: int, viewer: int, obs: np.ndarray, masks: np.ndarray) -> None:
        """Game ``i`` from ``viewer``'s side into ``obs[i]`` and ``masks[i]``."""

    @abstractmethod
    def stores(self, i: int) -> tuple[int, int]:
        """Game ``i``'s stores, player 0's first."""

    @abstractmethod
    def state(self, i: int) -> Any:
        """Game ``i`` as a State of its game (its position: the history the rules may keep, such as Oware's
        repetition set, starts afresh)."""


class StateBatchedGames(BatchedGames):
    """Any game's batch kept as a list of its States, stepped in Python through the State API with the rewards and
    autoreset of the compiled batches: what a game without a ``batch`` module runs in. ``board`` holds each game's
    observation from player 0's side (the State API has no common board layout)."""

    def __init__(self, game: Game, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]) -> None:
        super().__init__(game, n, max_plies, reward_mode, options)
        self.states = [self.initial_state] * n
        self.board = np.zeros((n, game.obs_size), dtype=np.float32)
        self.player = np.zeros(n, dtype=np.int64)
        self.ply = np.zeros(n, dtype=np.int64)
        self.status = np.zeros(n, dtype=np.int64)

    def _set(self, i: int, state: Any) -> None:
        self.states[i] = state
        self.board[i] = state.observation_tensor(0)
        self.player[i] = state.to_move
        self.ply[i] = state.ply
        self.status[i] = self.game.end_reasons.index(state.end_reason)

    def start(self, i: int, rngs: np.ndarray) -> None:
        seed = int(next_random(rngs[i]))
        self._set(i, self.game.initial(max_plies=self.max_plies, seed=seed, **self.options))

    def play(self, i: int, action: int) -> float:
        before = self.states[i]
        if not before.is_legal(action):
            self.status[i] = self.illegal
            return -1.0
        after = before.play(int(action))
        self._set(i, after)
        return move_reward(self.reward_mode, self.game, before, after)

    def view(self, i: int, viewer: int, obs: np.ndarray, masks: np.ndarray) -> None:
        state = self.states[i]
        obs[i] = state.observation_tensor(viewer)
        if self.status[i] == ONGOING and state.to_move == viewer:
            masks[i] = state.legal_mask()
        else:
            masks[i] = False

    def stores(self, i: int) -> tuple[int, int]:
        return self.states[i].stores

    def state(self, i: int) -> Any:
        return self.states[i]

    def _random_move(self, i: int, rngs: np.ndarray) -> float:
        legal = self.states[i].legal_actions()
        return self.play(i, legal[random_below(rngs[i], len(legal))])

    def _start_vs_random(self, i: int, learner: np.ndarray, seat_mode: int, rngs: np.ndarray) -> None:
        self.start(i, rngs)
        learner[i] = random_below(rngs[i], 2) if seat_mode == RANDOM_SEAT else seat_mode
        while self.status[i] == ONGOING and self.player[i] != learner[i]:
            self._random_move(i, rngs)

    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        for i in range(len(self.states)):
            if which[i]:
                if vs_random:
                    self._start_vs_random(i, learner, seat_mode, rngs)
                else:
                    self.start(i, rngs)
            self.view(i, int(learner[i]) if vs_random else int(self.player[i]), obs, masks)

    def step_self_play(self, rngs: np.ndarray, same_step: bool, actions: np.ndarray, rewards: np.ndarray,
                       outcome: np.ndarray, mover: np.ndarray, end_stores: np.ndarray, obs: np.ndarray,
                       masks: np.ndarray, final_obs: np.ndarray, final_masks: np.ndarray) -> None:  # fmt: skip
        for i in range(len(self.states)):
            if self.status[i] != ONGOING:
                self.start(i, rngs)
                rewards[i], outcome[i], mover[i] = 0.0, ONGOING, -1
            else:
                mover[i] = self.player[i]
                rewards[i] = self.play(i, int(actions[i]))
                outcome[i] = self.status[i]
                if self.status[i] != ONGOING:
                    end_stores[i] = self.stores(i)
                    if same_step:
                        self.view(i, int(self.player[i]), final_obs, final_masks)
                        self.start(i, rngs)
            self.view(i, int(self.player[i]), obs, masks)

    def step_vs_random(self, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
                       actions: np.ndarray, rewards: np.ndarray, outcome: np.ndarray, end_stores: np.ndarray,
                       obs: np.ndarray, masks: np.ndarray, final_obs: np.ndarray,
                       final_masks: np.ndarray) -> None:  # fmt: skip
        for i in range(len(self.states)):
            if self.status[i] != ONGOING:
                self._start_vs_random(i, learner, seat_mode, rngs)
                rewards[i], outcome[i] = 0.0, ONGOING
            else:
                reward = self.play(i, int(actions[i]))
                while self.status[i] == ONGOING and self.player[i] != learner[i]:
                    reward -= self._random_move(i, rngs)
                rewards[i] = reward
                outcome[i] = self.status[i]
                if self.status[i] != ONGOING:
                    end_stores[i] = self.stores(i)
                    if same_step:
                        self.view(i, int(learner[i]), final_obs, final_masks)
                        self._start_vs_random(i, learner, seat_mode, rngs)
            self.view(i, int(learner[i]), obs, masks)


def batched_games(
    game: str | Game, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]
) -> BatchedGames:
    """``n`` games of ``game`` in arrays (the game's rule flags in ``options``), not started yet."""
    rules = get_game(game)
    compiled = rules.batched(n, max_plies, reward_mode, options)
    return StateBatchedGames(rules, n, max_plies, reward_mode, options) if compiled is None else compiled


def __getattr__(name: str) -> type:
    """The games' batch classes that lived here, with a DeprecationWarning: each game's ``batch`` module holds its
    own (``Game.batched`` builds it)."""
    moved = {"Awale16Games": "awale16", "OwareGames": "oware", "HawalisGames": "hawalis"}
    if name not in moved:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"awale_env.batched.{name} is deprecated: use awale_env.games.{moved[name]}.batch.{name} or Game.batched",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(f"awale_env.games.{moved[name]}.batch"), name)
