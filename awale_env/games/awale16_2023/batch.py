"""Batched kernels of the editions with transparent seeds (2023, 2025): many games stepped in one compiled call, and
:class:`TransparentGames`, the batch the vector env drives (``Game.batched``).

The games are ``seeds`` int8[n, 48], ``stores`` int16[n, 2] and int arrays ``player`` (to move), ``ply`` and
``status``; the scalars ``max_plies``, ``reward_mode``, ``rules`` (the kernels' rules code) and ``illegal`` (the status
of an illegal action: ``len(game.end_reasons)``, which differs between the editions) follow them, in that order, as
the two-colour game's :mod:`awale_env.games.awale16.batch` does with its own. Every move goes through the
single-game kernels of :mod:`awale_env.games.awale16_2023.kernels`; rewards are those of
:func:`awale_env.batched.move_reward`. The per-game helpers are inlined into the batch loops, as in 2021's batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from awale_env.batched import BatchedGames
from awale_env.games.awale16_2023.kernels import (
    ACTIONS_PER_HOLE,
    BOARD_SIZE,
    COLOURS,
    NUM_ACTIONS,
    ONGOING,
    SEED_DTYPE,
    STORE_DTYPE,
    TRANSPARENT,
    apply_action,
    board_total,
    end_status,
    legal_mask,
    observe,
    random_legal_action,
    reset_board,
    total_seeds,
)
from awale_env.kernels.batch import RANDOM_SEAT, SCORE_DIFF
from awale_env.kernels.rng import random_below


@njit(cache=True, inline="always")
def move_reward(reward_mode, status, illegal, mover, gained, store0, store1, rules):
    """The mover's reward for one move (the other seat's is its negative): ``win_loss`` +1 / -1 / 0 when the move
    ends the game, 0 before; ``score_diff`` the seeds gained / the game's seeds; -1 for an illegal action."""
    if status == illegal:
        return -1.0
    if reward_mode == SCORE_DIFF:
        return gained / total_seeds(rules)
    if status == ONGOING or store0 == store1:
        return 0.0
    return 1.0 if (store0 > store1) == (mover == 0) else -1.0


@njit(cache=True, inline="always")
def is_legal(seeds, player, action):
    """Whether ``action`` (any integer) is a legal move of ``player``: an own hole holding the seeds it takes."""
    if action < 0 or action >= NUM_ACTIONS:
        return False
    hole, kind = action // ACTIONS_PER_HOLE, action % ACTIONS_PER_HOLE
    return hole % 2 == player and seeds[COLOURS * hole + min(kind, TRANSPARENT)] > 0


@njit(cache=True, inline="always")
def play(seeds, stores, player, ply, status, max_plies, reward_mode, rules, illegal, i, action):
    """Play ``action`` for the player to move in game ``i``; return the mover's reward. An illegal action ends the
    game (status ``illegal``) and leaves the position, and the turn, as they were."""
    mover = player[i]
    gained = 0
    if is_legal(seeds[i], mover, action):
        gained = apply_action(seeds[i], stores[i], mover, action, rules)
        ply[i] += 1
        player[i] = 1 - mover
        status[i] = end_status(board_total(seeds[i]), int(stores[i, 0]), int(stores[i, 1]), ply[i], max_plies, rules)
    else:
        status[i] = illegal
    return move_reward(reward_mode, status[i], illegal, mover, gained, stores[i, 0], stores[i, 1], rules)


@njit(cache=True, inline="always")
def restart(seeds, stores, player, ply, status, rules, i):
    """Set game ``i`` to the starting position, player 0 to move."""
    reset_board(seeds[i], rules)
    stores[i, :] = 0
    player[i] = 0
    ply[i] = 0
    status[i] = ONGOING


@njit(cache=True, inline="always")
def write_view(seeds, stores, player, ply, status, max_plies, rules, i, viewer, obs, masks):
    """``obs[i]`` = game ``i`` seen by ``viewer``; ``masks[i]`` = ``viewer``'s legal actions, all False unless the game
    is live and ``viewer`` is to move."""
    observe(seeds[i], stores[i], ply[i], max_plies, viewer, rules, obs[i])
    if status[i] == ONGOING and player[i] == viewer:
        legal_mask(seeds[i], viewer, masks[i])
    else:
        masks[i, :] = False


@njit(cache=True)
def step_self_play(seeds, stores, player, ply, status, max_plies, reward_mode, rules, illegal, same_step, actions,
                   rewards, outcome, mover, end_stores, obs, masks, final_obs, final_masks):  # fmt: skip
    """One move in every game by the side to move, observed by the side to move next; finished games restart
    (autoreset and outputs as 2021's :func:`awale_env.games.awale16.batch.step_self_play`)."""
    for i in range(seeds.shape[0]):
        if status[i] != ONGOING:
            restart(seeds, stores, player, ply, status, rules, i)
            rewards[i] = 0.0
            outcome[i] = ONGOING
            mover[i] = -1
        else:
            mover[i] = player[i]
            rewards[i] = play(seeds, stores, player, ply, status, max_plies, reward_mode, rules, illegal, i, actions[i])
            outcome[i] = status[i]
            if status[i] != ONGOING:
                end_stores[i, :] = stores[i, :]
                if same_step:
                    write_view(seeds, stores, player, ply, status, max_plies, rules, i, player[i], final_obs,
                               final_masks)  # fmt: skip
                    restart(seeds, stores, player, ply, status, rules, i)
        write_view(seeds, stores, player, ply, status, max_plies, rules, i, player[i], obs, masks)


@njit(cache=True)
def start_vs_random(seeds, stores, player, ply, status, max_plies, reward_mode, rules, illegal, learner, seat_mode,
                    rngs, scratch, i):  # fmt: skip
    """Restart game ``i`` against the built-in random opponent, which moves first when the learner has seat 1."""
    restart(seeds, stores, player, ply, status, rules, i)
    learner[i] = random_below(rngs[i], 2) if seat_mode == RANDOM_SEAT else seat_mode
    if learner[i] == 1:
        first = random_legal_action(seeds[i], 0, rngs[i], scratch)
        play(seeds, stores, player, ply, status, max_plies, reward_mode, rules, illegal, i, first)


@njit(cache=True)
def step_vs_random(seeds, stores, player, ply, status, max_plies, reward_mode, rules, illegal, same_step, learner,
                   seat_mode, rngs, actions, rewards, outcome, end_stores, obs, masks, final_obs,
                   final_masks):  # fmt: skip
    """One learner move and the built-in random opponent's reply in every game, all from the learner's side
    (seats, autoreset and outputs as 2021's :func:`awale_env.games.awale16.batch.step_vs_random`)."""
    scratch = np.empty(NUM_ACTIONS // 2, dtype=np.int64)
    for i in range(seeds.shape[0]):
        if status[i] != ONGOING:
            start_vs_random(seeds, stores, player, ply, status, max_plies, reward_mode, rules, illegal, learner,
                            seat_mode, rngs, scratch, i)  # fmt: skip
            rewards[i] = 0.0
            outcome[i] = ONGOING
        else:
            reward = play(seeds, stores, player, ply, status, max_plies, reward_mode, rules, illegal, i, actions[i])
            if status[i] == ONGOING:
                reply = random_legal_action(seeds[i], player[i], rngs[i], scratch)
                reward -= play(seeds, stores, player, ply, status, max_plies, reward_mode, rules, illegal, i, reply)
            rewards[i] = reward
            outcome[i] = status[i]
            if status[i] != ONGOING:
                end_stores[i, :] = stores[i, :]
                if same_step:
                    write_view(seeds, stores, player, ply, status, max_plies, rules, i, learner[i], final_obs,
                               final_masks)  # fmt: skip
                    start_vs_random(seeds, stores, player, ply, status, max_plies, reward_mode, rules, illegal, learner,
                                    seat_mode, rngs, scratch, i)  # fmt: skip
        write_view(seeds, stores, player, ply, status, max_plies, rules, i, learner[i], obs, masks)


@njit(cache=True)
def reset_games(seeds, stores, player, ply, status, max_plies, reward_mode, rules, illegal, vs_random, learner,
                seat_mode, rngs, which, obs, masks):  # fmt: skip
    """Restart the games where ``which`` is True and write every game's view (the learner's against the random
    opponent, the side to move's in self-play)."""
    scratch = np.empty(NUM_ACTIONS // 2, dtype=np.int64)
    for i in range(seeds.shape[0]):
        if which[i]:
            if vs_random:
                start_vs_random(seeds, stores, player, ply, status, max_plies, reward_mode, rules, illegal, learner,
                                seat_mode, rngs, scratch, i)  # fmt: skip
            else:
                restart(seeds, stores, player, ply, status, rules, i)
        viewer = learner[i] if vs_random else player[i]
        write_view(seeds, stores, player, ply, status, max_plies, rules, i, viewer, obs, masks)


class TransparentGames(BatchedGames):
    """The batch of an edition with transparent seeds: the kernels above on ``board`` int8[n, 48] and
    ``store_array`` int16[n, 2], with the rules code of the game's options."""

    def __init__(self, game: Any, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]) -> None:
        super().__init__(game, n, max_plies, reward_mode, options)
        self.board = np.zeros((n, BOARD_SIZE), dtype=SEED_DTYPE)
        self.store_array = np.zeros((n, 2), dtype=STORE_DTYPE)
        self.player = np.zeros(n, dtype=np.int64)
        self.ply = np.zeros(n, dtype=np.int64)
        self.status = np.zeros(n, dtype=np.int64)
        self.arrays = (self.board, self.store_array, self.player, self.ply, self.status)
        self.scalars = (self.limit, reward_mode, self.initial_state.rules_code, self.illegal)

    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        reset_games(*self.arrays, *self.scalars, vs_random, learner, seat_mode, rngs, which, obs, masks)

    def step_self_play(self, rngs: np.ndarray, same_step: bool, *outputs: np.ndarray) -> None:
        step_self_play(*self.arrays, *self.scalars, same_step, *outputs)

    def step_vs_random(self, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
                       *outputs: np.ndarray) -> None:  # fmt: skip
        step_vs_random(*self.arrays, *self.scalars, same_step, learner, seat_mode, rngs, *outputs)

    def start(self, i: int, rngs: np.ndarray) -> None:
        restart(*self.arrays, self.scalars[2], i)

    def play(self, i: int, action: int) -> float:
        return play(*self.arrays, *self.scalars, i, action)

    def view(self, i: int, viewer: int, obs: np.ndarray, masks: np.ndarray) -> None:
        limit, _, rules, _ = self.scalars
        write_view(*self.arrays, limit, rules, i, viewer, obs, masks)

    def stores(self, i: int) -> tuple[int, int]:
        return int(self.store_array[i, 0]), int(self.store_array[i, 1])

    def state(self, i: int) -> Any:
        seeds = self.board[i]
        counts = (seeds[slot::COLOURS].tolist() for slot in range(COLOURS))
        flags = self.initial_state.rule_settings()
        return self.game.state_type.from_position(
            *counts, self.stores(i), int(self.player[i]), int(self.ply[i]), self.max_plies, **flags
        )


BATCHED = TransparentGames
