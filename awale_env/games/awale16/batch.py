"""Batched kernels: many games stepped in one compiled call, for :class:`awale_env.vector.AwaleVectorEnv`, and
:class:`Awale16Games`, the batch the vector env drives (``Game.batched``).

A batch is the position arrays of :mod:`awale_env.games.awale16.kernels` with a leading game axis: ``seeds`` int8[n,
32], ``stores`` int16[n, 2], and int arrays ``player`` (to move), ``ply`` and ``status`` of length n. Every move goes
through :func:`play_checked`, which calls the single-game kernels (sowing and capture are never rewritten here).

The per-game helpers here and the core kernels they call on every move are inlined into the batch loops
(``inline="always"``, numba's IR inlining): called, each builds array views of one game's row, which cost a third
of the time of a batch step.

The per-move reward (:func:`move_reward`) is shared by every environment, so the AEC, Gymnasium and vector
environments pay exactly the same rewards.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from awale_env.batched import BatchedGames
from awale_env.games.awale16.kernels import (
    END_REASONS,
    NUM_ACTIONS,
    NUM_HOLES,
    ONGOING,
    SEED_DTYPE,
    STORE_DTYPE,
    TOTAL_SEEDS,
    apply_action,
    board_total,
    end_status,
    legal_mask,
    observe,
    random_legal_action,
)
from awale_env.games.awale16.state import State
from awale_env.kernels.batch import RANDOM_SEAT, SCORE_DIFF
from awale_env.kernels.rng import random_below

#: Status of a game lost by an illegal action (after the rule-11 codes).
ILLEGAL = len(END_REASONS)


@njit(cache=True, inline="always")
def move_reward(reward_mode, status, mover, gained, store0, store1):
    """The mover's reward for one move; the other seat's is its negative (zero-sum).

    ``win_loss``: +1 / -1 / 0 when the move ends the game (more seeds captured wins), 0 before.
    ``score_diff``: ``gained / 64`` every move, so a game's rewards add up to the final store difference / 64.
    An illegal action (``status == ILLEGAL``) costs -1 in both schemes.
    """
    if status == ILLEGAL:
        return -1.0
    if reward_mode == SCORE_DIFF:
        return gained / TOTAL_SEEDS
    if status == ONGOING or store0 == store1:
        return 0.0
    return 1.0 if (store0 > store1) == (mover == 0) else -1.0


@njit(cache=True, inline="always")
def play_checked(seeds, stores, player, ply, max_plies, action):
    """Play ``action`` for ``player`` in place if it is legal; return ``(status, gained)`` after the move.

    An illegal action leaves the position as it was and returns ``(ILLEGAL, 0)``. ``ply`` is the count before the
    move.
    """
    if action < 0 or action >= NUM_ACTIONS or (action >> 1) % 2 != player or seeds[action] <= 0:
        return ILLEGAL, 0
    gained = apply_action(seeds, stores, player, action)
    return end_status(board_total(seeds), int(stores[0]), int(stores[1]), ply + 1, max_plies), gained


@njit(cache=True, inline="always")
def restart(seeds, stores, player, ply, status, i):
    """Set game ``i`` to the starting position (rule 3), player 0 to move."""
    seeds[i, :] = 2
    stores[i, :] = 0
    player[i] = 0
    ply[i] = 0
    status[i] = ONGOING


@njit(cache=True, inline="always")
def play(seeds, stores, player, ply, status, max_plies, reward_mode, i, action):
    """Play ``action`` for the player to move in game ``i``; return the mover's reward.

    An illegal action ends the game (status ``ILLEGAL``) and leaves the position, and the turn, as they were.
    """
    mover = player[i]
    st, gained = play_checked(seeds[i], stores[i], mover, ply[i], max_plies, action)
    if st != ILLEGAL:
        ply[i] += 1
        player[i] = 1 - mover
    status[i] = st
    return move_reward(reward_mode, st, mover, gained, stores[i, 0], stores[i, 1])


@njit(cache=True, inline="always")
def write_view(seeds, stores, player, ply, status, max_plies, i, viewer, obs, masks):
    """``obs[i]`` = game ``i`` seen by ``viewer`` (:func:`awale16.observe`); ``masks[i]`` = ``viewer``'s legal
    actions, all False unless the game is live and ``viewer`` is to move."""
    observe(seeds[i], stores[i], ply[i], max_plies, viewer, obs[i])
    if status[i] == ONGOING and player[i] == viewer:
        legal_mask(seeds[i], viewer, masks[i])
    else:
        masks[i, :] = False


@njit(cache=True)
def step_self_play(
    seeds,
    stores,
    player,
    ply,
    status,
    max_plies,
    reward_mode,
    same_step,
    actions,
    rewards,
    outcome,
    mover,
    end_stores,
    obs,
    masks,
    final_obs,
    final_masks,
):
    """One move in every game by the side to move, observed by the side to move next; finished games restart.

    Autoreset as Gymnasium defines it: with ``same_step`` False (next-step) a game that ended on the previous call
    restarts instead of moving (``mover[i] = -1``, reward 0, its action ignored); with ``same_step`` True it
    restarts right after its last move and ``final_obs[i]`` holds the last observation. ``outcome[i]`` is the status
    the move produced (``BatchedGames.outcomes``) and ``end_stores[i]`` the stores when it ended the game.
    """
    for i in range(seeds.shape[0]):
        if status[i] != ONGOING:
            restart(seeds, stores, player, ply, status, i)
            rewards[i] = 0.0
            outcome[i] = ONGOING
            mover[i] = -1
        else:
            mover[i] = player[i]
            rewards[i] = play(seeds, stores, player, ply, status, max_plies, reward_mode, i, actions[i])
            outcome[i] = status[i]
            if status[i] != ONGOING:
                end_stores[i, :] = stores[i, :]
                if same_step:
                    write_view(seeds, stores, player, ply, status, max_plies, i, player[i], final_obs, final_masks)
                    restart(seeds, stores, player, ply, status, i)
        write_view(seeds, stores, player, ply, status, max_plies, i, player[i], obs, masks)


@njit(cache=True)
def start_vs_random(seeds, stores, player, ply, status, max_plies, reward_mode, learner, seat_mode, rngs, scratch, i):
    """Restart game ``i`` against the built-in random opponent, which moves first when the learner has seat 1."""
    restart(seeds, stores, player, ply, status, i)
    learner[i] = random_below(rngs[i], 2) if seat_mode == RANDOM_SEAT else seat_mode
    if learner[i] == 1:
        first = random_legal_action(seeds[i], 0, rngs[i], scratch)
        play(seeds, stores, player, ply, status, max_plies, reward_mode, i, first)


@njit(cache=True)
def step_vs_random(
    seeds,
    stores,
    player,
    ply,
    status,
    max_plies,
    reward_mode,
    same_step,
    learner,
    seat_mode,
    rngs,
    actions,
    rewards,
    outcome,
    end_stores,
    obs,
    masks,
    final_obs,
    final_masks,
):
    """One learner move and the built-in random opponent's reply in every game, all from the learner's side.

    ``learner[i]`` is the learner's seat in game ``i``, drawn again at every restart when ``seat_mode`` is
    ``RANDOM_SEAT``; ``rngs`` is uint64[n, 1], one xorshift state per game. Autoreset and outputs as in
    :func:`step_self_play`; a restarted game whose learner has seat 1 has already seen the opponent's first move.
    """
    scratch = np.empty(NUM_HOLES, dtype=np.int64)
    for i in range(seeds.shape[0]):
        if status[i] != ONGOING:
            start_vs_random(
                seeds, stores, player, ply, status, max_plies, reward_mode, learner, seat_mode, rngs, scratch, i
            )
            rewards[i] = 0.0
            outcome[i] = ONGOING
        else:
            reward = play(seeds, stores, player, ply, status, max_plies, reward_mode, i, actions[i])
            if status[i] == ONGOING:
                reply = random_legal_action(seeds[i], player[i], rngs[i], scratch)
                reward -= play(seeds, stores, player, ply, status, max_plies, reward_mode, i, reply)
            rewards[i] = reward
            outcome[i] = status[i]
            if status[i] != ONGOING:
                end_stores[i, :] = stores[i, :]
                if same_step:
                    write_view(seeds, stores, player, ply, status, max_plies, i, learner[i], final_obs, final_masks)
                    start_vs_random(
                        seeds, stores, player, ply, status, max_plies, reward_mode, learner, seat_mode, rngs, scratch, i
                    )
        write_view(seeds, stores, player, ply, status, max_plies, i, learner[i], obs, masks)


@njit(cache=True)
def reset_games(
    seeds, stores, player, ply, status, max_plies, reward_mode, vs_random, learner, seat_mode, rngs, which, obs, masks
):
    """Restart the games where ``which`` is True and write every game's view (the learner's against the random
    opponent, the side to move's in self-play)."""
    scratch = np.empty(NUM_HOLES, dtype=np.int64)
    for i in range(seeds.shape[0]):
        if which[i]:
            if vs_random:
                start_vs_random(
                    seeds, stores, player, ply, status, max_plies, reward_mode, learner, seat_mode, rngs, scratch, i
                )
            else:
                restart(seeds, stores, player, ply, status, i)
        viewer = learner[i] if vs_random else player[i]
        write_view(seeds, stores, player, ply, status, max_plies, i, viewer, obs, masks)


class Awale16Games(BatchedGames):
    """The two-colour Awale's batch: the kernels above on ``board`` int8[n, 32] and ``store_array`` int16[n, 2]."""

    def __init__(self, game: Any, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]) -> None:
        super().__init__(game, n, max_plies, reward_mode, options)
        self.board = np.zeros((n, NUM_ACTIONS), dtype=SEED_DTYPE)
        self.store_array = np.zeros((n, 2), dtype=STORE_DTYPE)
        self.player = np.zeros(n, dtype=np.int64)
        self.ply = np.zeros(n, dtype=np.int64)
        self.status = np.zeros(n, dtype=np.int64)
        self.arrays = (self.board, self.store_array, self.player, self.ply, self.status)

    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        reset_games(*self.arrays, self.limit, self.reward_mode, vs_random, learner, seat_mode, rngs, which, obs, masks)

    def step_self_play(self, rngs: np.ndarray, same_step: bool, *outputs: np.ndarray) -> None:
        step_self_play(*self.arrays, self.limit, self.reward_mode, same_step, *outputs)

    def step_vs_random(self, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
                       *outputs: np.ndarray) -> None:  # fmt: skip
        step_vs_random(*self.arrays, self.limit, self.reward_mode, same_step, learner, seat_mode, rngs, *outputs)

    def start(self, i: int, rngs: np.ndarray) -> None:
        restart(*self.arrays, i)

    def play(self, i: int, action: int) -> float:
        return play(*self.arrays, self.limit, self.reward_mode, i, action)

    def view(self, i: int, viewer: int, obs: np.ndarray, masks: np.ndarray) -> None:
        write_view(*self.arrays, self.limit, i, viewer, obs, masks)

    def stores(self, i: int) -> tuple[int, int]:
        return int(self.store_array[i, 0]), int(self.store_array[i, 1])

    def state(self, i: int) -> State:
        seeds = self.board[i]
        return State.from_position(
            seeds[0::2].tolist(), seeds[1::2].tolist(), self.stores(i), int(self.player[i]), int(self.ply[i]),
            self.max_plies,
        )  # fmt: skip


BATCHED = Awale16Games
