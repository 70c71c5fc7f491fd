"""Many games of one kind held in arrays, with the kernels that step them: what
:class:`awale_env.vector.AwaleVectorEnv` drives, the same way for every game.

A game with search kernels (``Game.search``) runs in :class:`CompiledGames`, the one compiled stepper of
:mod:`awale_env.kernels.stepper` over those kernels; a game without them runs in :class:`StateBatchedGames`, the same
arrays kept by its State API in Python (slower, but any registered game plays in the vector env). Every game codes a
live game as status 0 and an illegal action as the status after its end reasons, ``len(game.end_reasons)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from awale_env.games import Game, get_game
from awale_env.kernels import stepper
from awale_env.kernels.batch import ONGOING, RANDOM_SEAT, SCORE_DIFF
from awale_env.kernels.rng import next_random, random_below
from awale_env.kernels.search import new_scratch, no_key_set

__all__ = ["ONGOING", "BatchedGames", "CompiledGames", "StateBatchedGames", "batched_games", "move_reward"]


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
    def step(self, vs_random: bool, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
             *outputs: np.ndarray) -> None:  # fmt: skip
        """One move in every game: the side to move's in self-play, or the learner's and the built-in random
        opponent's replies when ``vs_random`` (outputs as :func:`awale_env.kernels.stepper.step_games`)."""

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


def key_capacity(max_plies: int) -> int:
    """The repetition-set capacity of a game of at most ``max_plies`` plies: a power of two >= 2 * (max_plies + 1),
    so that the set, kept at most half full, never grows."""
    capacity = 16
    while capacity < 2 * (max_plies + 1):
        capacity *= 2
    return capacity


class CompiledGames(BatchedGames):
    """Any game with search kernels, stepped by the compiled stepper (:mod:`awale_env.kernels.stepper`) on its search
    positions: ``board`` in the game core's layout, ``store_array`` int16[n, 2]. A game with a repetition rule needs
    a ply limit: it sizes each game's fixed repetition set."""

    def __init__(self, game: Game, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]) -> None:
        super().__init__(game, n, max_plies, reward_mode, options)
        search = game.search
        if max_plies is None and search.new_key_set is not no_key_set:
            raise ValueError(
                f"the batched {game.name} games need a ply limit (max_plies) to size their repetition sets"
            )
        root = search.root(self.initial_state)
        self.env = root.env(new_scratch(), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64))
        first = stepper.RANDOM_FIRST if self.initial_state.first_player_drawn else root.player
        self.board = np.zeros((n, root.board.shape[0]), dtype=root.board.dtype)
        self.store_array = np.zeros((n, 2), dtype=root.stores.dtype)
        self.player, self.ply, self.status = (np.zeros(n, dtype=np.int64) for _ in range(3))
        keys = np.tile(search.new_key_set(key_capacity(self.limit)), (n, 1))
        self.batch = stepper.Batch(
            self.board, self.store_array, self.player, self.ply, self.status, np.zeros(n, dtype=np.int64), keys,
            root.board, root.stores, self.limit, reward_mode, game.total_seeds, first, game.num_actions, self.illegal,
        )  # fmt: skip

    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        stepper.reset_games(self.env, self.batch, vs_random, learner, seat_mode, rngs, which, obs, masks)

    def step(self, vs_random: bool, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
             *outputs: np.ndarray) -> None:  # fmt: skip
        stepper.step_games(self.env, self.batch, vs_random, same_step, learner, seat_mode, rngs, *outputs)

    def start(self, i: int, rngs: np.ndarray) -> None:
        stepper.start_one(self.env, self.batch, rngs, i)

    def play(self, i: int, action: int) -> float:
        return stepper.play_one(self.env, self.batch, i, action)

    def view(self, i: int, viewer: int, obs: np.ndarray, masks: np.ndarray) -> None:
        stepper.view_one(self.env, self.batch, i, viewer, obs, masks)

    def stores(self, i: int) -> tuple[int, int]:
        return int(self.store_array[i, 0]), int(self.store_array[i, 1])

    def state(self, i: int) -> Any:
        return self.initial_state.at_position(self.board[i], self.stores(i), int(self.player[i]), int(self.ply[i]))


class StateBatchedGames(BatchedGames):
    """Any game's batch kept as a list of its States, stepped in Python through the State API with the rewards and
    autoreset of the compiled batches: what a game without search kernels runs in. ``board`` holds each game's
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

    def _restart(self, i: int, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray) -> None:
        """:func:`awale_env.kernels.stepper.restart` on the State API."""
        self.start(i, rngs)
        if vs_random:
            learner[i] = random_below(rngs[i], 2) if seat_mode == RANDOM_SEAT else seat_mode
            while self.status[i] == ONGOING and self.player[i] != learner[i]:
                self._random_move(i, rngs)

    def _viewer(self, i: int, vs_random: bool, learner: np.ndarray) -> int:
        """Whose view of game ``i`` the vector env shows: the learner's, or in self-play the side to move's."""
        return int(learner[i]) if vs_random else int(self.player[i])

    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        for i in range(len(self.states)):
            if which[i]:
                self._restart(i, vs_random, learner, seat_mode, rngs)
            self.view(i, self._viewer(i, vs_random, learner), obs, masks)

    def step(self, vs_random: bool, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
             actions: np.ndarray, rewards: np.ndarray, outcome: np.ndarray, mover: np.ndarray, end_stores: np.ndarray,
             obs: np.ndarray, masks: np.ndarray, final_obs: np.ndarray, final_masks: np.ndarray) -> None:  # fmt: skip
        for i in range(len(self.states)):
            if self.status[i] != ONGOING:
                self._restart(i, vs_random, learner, seat_mode, rngs)
                rewards[i], outcome[i], mover[i] = 0.0, ONGOING, -1
            else:
                mover[i] = self.player[i]
                reward = self.play(i, int(actions[i]))
                while vs_random and self.status[i] == ONGOING and self.player[i] != learner[i]:
                    reward -= self._random_move(i, rngs)
                rewards[i] = reward
                outcome[i] = self.status[i]
                if self.status[i] != ONGOING:
                    end_stores[i] = self.stores(i)
                    if same_step:
                        self.view(i, self._viewer(i, vs_random, learner), final_obs, final_masks)
                        self._restart(i, vs_random, learner, seat_mode, rngs)
            self.view(i, self._viewer(i, vs_random, learner), obs, masks)


def batched_games(
    game: str | Game, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]
) -> BatchedGames:
    """``n`` games of ``game`` in arrays (the game's rule flags in ``options``), not started yet: compiled for a game
    with search kernels, else on its State API."""
    rules = get_game(game)
    kind = CompiledGames if rules.has_search else StateBatchedGames
    return kind(rules, n, max_plies, reward_mode, options)
