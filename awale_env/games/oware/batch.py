"""Batched Oware kernels for :class:`awale_env.vector.AwaleVectorEnv`: many games stepped in one compiled call, and
:class:`OwareGames`, the batch the vector env drives (``Game.batched``).

The games are ``pits`` int8[n, 12], ``stores`` int16[n, 2], int arrays ``player`` (to move), ``ply``, ``status`` and
``legal`` (the legal bits of the player to move), and ``keys`` int64[n, 1 + 2 * capacity]: each game's repetition set of
rule 9 (:func:`awale_env.games.oware.kernels.key_set_insert`, a fixed size per game: the capacity is a power of two >=
``2 * (max_plies + 1)``, so a game never fills it). The scalars ``max_plies``, ``reward_mode``, ``rules``
(:attr:`awale_env.games.oware.state.Rules.code`) and ``first`` (the first player, or ``RANDOM_FIRST``) follow them:
every kernel takes these 10 values first, in that order, as the two-colour game's :mod:`awale_env.games.awale16.batch`
does with its own. Moves go through the single-game kernels of :mod:`awale_env.games.oware.kernels` (sowing and capture
are never rewritten here); rewards are those of :func:`awale_env.batched.move_reward`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from awale_env.batched import BatchedGames
from awale_env.games.oware.kernels import (
    END_REASONS,
    NUM_ACTIONS,
    NUM_PITS,
    ONGOING,
    SEEDS_PER_PIT,
    STATUS_BITS,
    TOTAL_SEEDS,
    apply_action,
    finish,
    key_set_clear,
    key_set_insert,
    observe,
    position_key,
    random_action,
)
from awale_env.games.oware.state import Rules, State
from awale_env.kernels.batch import RANDOM_SEAT, SCORE_DIFF
from awale_env.kernels.rng import random_below

#: Status of a game lost by an illegal action (after the end reasons of rules 9-12).
ILLEGAL = len(END_REASONS)

#: ``first`` for a first player drawn at random every game (the ``"texts"`` preset).
RANDOM_FIRST = -1


def key_capacity(max_plies: int) -> int:
    """The repetition-set capacity of a game of at most ``max_plies`` plies: a power of two >= 2 * (max_plies + 1)."""
    capacity = 16
    while capacity < 2 * (max_plies + 1):
        capacity *= 2
    return capacity


@njit(cache=True, error_model="numpy")
def _settle_status(pits, stores, player, ply, status, legal, max_plies, rules, i, repeated):
    """Status and legal bits of game ``i`` after a move or a restart (seeds collected if it is over)."""
    packed = finish(pits[i], stores[i], player[i], ply[i], max_plies, repeated, rules)
    status[i] = packed & ((1 << STATUS_BITS) - 1)
    legal[i] = packed >> STATUS_BITS


@njit(cache=True, error_model="numpy")
def start(pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, rngs, i):
    """Set game ``i`` to the starting position (4 seeds per pit), the first player ``first`` or drawn."""
    pits[i, :] = SEEDS_PER_PIT
    stores[i, :] = 0
    player[i] = random_below(rngs[i], 2) if first == RANDOM_FIRST else first
    ply[i] = 0
    key_set_clear(keys[i])
    key_set_insert(keys[i], position_key(pits[i], player[i]))
    _settle_status(pits, stores, player, ply, status, legal, max_plies, rules, i, False)


@njit(cache=True, error_model="numpy")
def play(pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, i, action):
    """Play ``action`` for the player to move in game ``i``; return the mover's reward. An illegal action ends the
    game (status ``ILLEGAL``, reward -1) and leaves the position, and the turn, as they were."""
    mover = player[i]
    if action < 0 or action >= NUM_ACTIONS or (legal[i] >> action) & 1 == 0:
        status[i] = ILLEGAL
        legal[i] = 0
        return -1.0
    lead = int(stores[i, mover]) - int(stores[i, 1 - mover])
    if apply_action(pits[i], stores[i], mover, action, rules):
        key_set_clear(keys[i])  # captured seeds never come back: no earlier position can recur
    player[i] = 1 - mover
    ply[i] += 1
    repeated = not key_set_insert(keys[i], position_key(pits[i], player[i]))
    _settle_status(pits, stores, player, ply, status, legal, max_plies, rules, i, repeated)
    s_mover, s_other = int(stores[i, mover]), int(stores[i, 1 - mover])
    if reward_mode == SCORE_DIFF:
        return (s_mover - s_other - lead) / TOTAL_SEEDS
    if status[i] == ONGOING or s_mover == s_other:
        return 0.0
    return 1.0 if s_mover > s_other else -1.0


@njit(cache=True, error_model="numpy")
def view(pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, i, viewer, obs, masks):
    """``obs[i]`` = game ``i`` seen by ``viewer``; ``masks[i]`` = ``viewer``'s legal actions, all False unless the
    game is live and ``viewer`` is to move."""
    observe(pits[i], stores[i], ply[i], max_plies, viewer, obs[i])
    live = status[i] == ONGOING and player[i] == viewer
    for a in range(NUM_ACTIONS):
        masks[i, a] = live and (legal[i] >> a) & 1 == 1


@njit(cache=True, error_model="numpy")
def _start_vs_random(
    pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, learner, seat_mode, rngs, i
):
    """Restart game ``i`` against the built-in random opponent, which moves first when the learner does not."""
    start(pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, rngs, i)
    learner[i] = random_below(rngs[i], 2) if seat_mode == RANDOM_SEAT else seat_mode
    if player[i] != learner[i]:
        reply = random_action(legal[i], rngs[i])
        play(pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, i, reply)


@njit(cache=True, error_model="numpy")
def step_self_play(
    pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, rngs, same_step, actions,
    rewards, outcome, mover, end_stores, obs, masks, final_obs, final_masks,
):  # fmt: skip
    """One move in every game by the side to move, observed by the side to move next; finished games restart (as
    :func:`awale_env.games.awale16.batch.step_self_play`, whose autoreset rules these are)."""
    for i in range(pits.shape[0]):
        if status[i] != ONGOING:
            start(pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, rngs, i)
            rewards[i] = 0.0
            outcome[i] = ONGOING
            mover[i] = -1
        else:
            mover[i] = player[i]
            rewards[i] = play(
                pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, i, actions[i]
            )
            outcome[i] = status[i]
            if status[i] != ONGOING:
                end_stores[i, :] = stores[i, :]
                if same_step:
                    view(
                        pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, i,
                        player[i], final_obs, final_masks,
                    )  # fmt: skip
                    start(pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, rngs, i)
        view(
            pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, i, player[i], obs,
            masks,
        )  # fmt: skip


@njit(cache=True, error_model="numpy")
def step_vs_random(
    pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, same_step, learner, seat_mode,
    rngs, actions, rewards, outcome, end_stores, obs, masks, final_obs, final_masks,
):  # fmt: skip
    """One learner move and the built-in random opponent's reply in every game, all from the learner's side (as
    :func:`awale_env.games.awale16.batch.step_vs_random`)."""
    for i in range(pits.shape[0]):
        if status[i] != ONGOING:
            _start_vs_random(
                pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, learner,
                seat_mode, rngs, i,
            )  # fmt: skip
            rewards[i] = 0.0
            outcome[i] = ONGOING
        else:
            reward = play(
                pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, i, actions[i]
            )
            while status[i] == ONGOING and player[i] != learner[i]:
                reply = random_action(legal[i], rngs[i])
                reward -= play(
                    pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, i, reply
                )
            rewards[i] = reward
            outcome[i] = status[i]
            if status[i] != ONGOING:
                end_stores[i, :] = stores[i, :]
                if same_step:
                    view(
                        pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, i,
                        learner[i], final_obs, final_masks,
                    )  # fmt: skip
                    _start_vs_random(
                        pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, learner,
                        seat_mode, rngs, i,
                    )  # fmt: skip
        view(
            pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, i, learner[i], obs,
            masks,
        )  # fmt: skip


@njit(cache=True, error_model="numpy")
def reset_games(
    pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, vs_random, learner, seat_mode,
    rngs, which, obs, masks,
):  # fmt: skip
    """Restart the games where ``which`` is True and write every game's view (the learner's against the random
    opponent, the side to move's in self-play)."""
    for i in range(pits.shape[0]):
        if which[i]:
            if vs_random:
                _start_vs_random(
                    pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, learner,
                    seat_mode, rngs, i,
                )  # fmt: skip
            else:
                start(pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, rngs, i)
        viewer = learner[i] if vs_random else player[i]
        view(
            pits, stores, player, ply, status, legal, keys, max_plies, reward_mode, rules, first, i, viewer, obs, masks
        )


def new_games(n: int, max_plies: int) -> tuple[np.ndarray, ...]:
    """The arrays of ``n`` games (``pits, stores, player, ply, status, legal, keys``), to :func:`start` before use."""
    return (
        np.zeros((n, NUM_PITS), dtype=np.int8),
        np.zeros((n, 2), dtype=np.int16),
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        np.full((n, 1 + 2 * key_capacity(max_plies)), -1, dtype=np.int64),
    )


class OwareGames(BatchedGames):
    """Oware's batch: the kernels above, each game with its fixed-size repetition set (so a ply limit is needed: it
    bounds the positions since the last capture)."""

    def __init__(self, game: Any, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]) -> None:
        if max_plies is None:
            raise ValueError("the batched Oware games need a ply limit (max_plies) to size their repetition sets")
        super().__init__(game, n, max_plies, reward_mode, options)
        self.rules: Rules = self.initial_state.rules
        first = self.rules.first_player
        self.first_code = RANDOM_FIRST if first == "random" else int(first)
        self.arrays = new_games(n, self.limit)
        self.board, self.store_array, self.player, self.ply, self.status = self.arrays[:5]
        self.scalars = (self.limit, self.reward_mode, self.rules.code, self.first_code)

    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        reset_games(*self.arrays, *self.scalars, vs_random, learner, seat_mode, rngs, which, obs, masks)

    def step_self_play(self, rngs: np.ndarray, same_step: bool, *outputs: np.ndarray) -> None:
        step_self_play(*self.arrays, *self.scalars, rngs, same_step, *outputs)

    def step_vs_random(self, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
                       *outputs: np.ndarray) -> None:  # fmt: skip
        step_vs_random(*self.arrays, *self.scalars, same_step, learner, seat_mode, rngs, *outputs)

    def start(self, i: int, rngs: np.ndarray) -> None:
        start(*self.arrays, *self.scalars, rngs, i)

    def play(self, i: int, action: int) -> float:
        return play(*self.arrays, *self.scalars, i, action)

    def view(self, i: int, viewer: int, obs: np.ndarray, masks: np.ndarray) -> None:
        view(*self.arrays, *self.scalars, i, viewer, obs, masks)

    def stores(self, i: int) -> tuple[int, int]:
        return int(self.store_array[i, 0]), int(self.store_array[i, 1])

    def state(self, i: int) -> State:
        return State.from_position(
            self.board[i].tolist(), self.stores(i), int(self.player[i]), int(self.ply[i]), self.rules, self.max_plies
        )


BATCHED = OwareGames
