"""Batched Hawalis kernels for :class:`awale_env.vector.AwaleVectorEnv`: many games stepped in one compiled call, and
:class:`HawalisGames`, the batch the vector env drives (``Game.batched``).

The games are ``pits`` int8[n, 28] (South's 14 pits then North's, as :attr:`awale_env.games.hawalis.state.State.board`)
and int arrays ``player`` (to move), ``ply``, ``status`` and ``legal`` (the legal bits of the player to move), followed
by the scalars ``max_plies``, ``reward_mode``, ``endless_mode`` and ``first`` (the first player, or ``RANDOM_FIRST``):
every kernel takes these 9 values first, in that order. Moves go through :func:`awale_env.games.hawalis.kernels.step`
(relay sowing, endless-move detection and capture are never rewritten here); the stores are the captured seeds, ``28 -
seeds on the other side``; rewards are those of :func:`awale_env.batched.move_reward`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from awale_env.batched import BatchedGames
from awale_env.games.hawalis.kernels import (
    BOARD_SIZE,
    END_REASONS,
    NO_WINNER,
    NUM_ACTIONS,
    ONGOING,
    SCRATCH_SIZE,
    SEEDS_PER_SIDE,
    SIDE,
    end_status,
    new_scratch,
    observe,
    side_total,
    step,
    winner,
)
from awale_env.games.hawalis.state import Rules, State
from awale_env.kernels.batch import RANDOM_SEAT, SCORE_DIFF
from awale_env.kernels.rng import random_below

#: Status of a game lost by an illegal action (after the end reasons of rules 8-11).
ILLEGAL = len(END_REASONS)

#: ``first`` for a first player drawn at random every game.
RANDOM_FIRST = -1
_LEGAL_BITS = (1 << NUM_ACTIONS) - 1


@njit(cache=True, error_model="numpy")
def captured(pits, i, player):
    """Seeds ``player`` has captured in game ``i``: 28 less the seeds left on the other side."""
    return SEEDS_PER_SIDE - side_total(pits[i], 1 - player)


@njit(cache=True, error_model="numpy")
def store_pair(pits, i, out):
    """Both players' captured seeds of game ``i`` into ``out`` (South's first)."""
    out[0] = captured(pits, i, 0)
    out[1] = captured(pits, i, 1)


@njit(cache=True, error_model="numpy")
def random_bit(bits, rng):
    """One set bit of the non-zero ``bits``, drawn uniformly."""
    count = 0
    for k in range(NUM_ACTIONS):
        count += (bits >> k) & 1
    pick = random_below(rng, count)
    for k in range(NUM_ACTIONS):
        if (bits >> k) & 1:
            if pick == 0:
                return k
            pick -= 1
    return -1


@njit(cache=True, error_model="numpy")
def start(pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, rngs, scratch, i):
    """Set game ``i`` to the starting position (2 seeds per pit), the first player ``first`` or drawn."""
    pits[i, :] = 2
    player[i] = random_below(rngs[i], 2) if first == RANDOM_FIRST else first
    ply[i] = 0
    packed = end_status(pits[i], player[i], 0, max_plies, endless_mode, scratch)
    status[i] = packed & 7
    legal[i] = packed >> 3


@njit(cache=True, error_model="numpy")
def play(pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, scratch, i, action):
    """Play ``action`` for the player to move in game ``i``; return the mover's reward. An illegal action ends the
    game (status ``ILLEGAL``, reward -1) and leaves the position, and the turn, as they were; an endless move under
    ``endless_mode`` "loses" ends it with the board unchanged and the mover losing (rule 8)."""
    mover = player[i]
    if action < 0 or action >= NUM_ACTIONS or (legal[i] >> action) & 1 == 0:
        status[i] = ILLEGAL
        legal[i] = 0
        return -1.0
    lead = side_total(pits[i], mover) - side_total(pits[i], 1 - mover)  # = the mover's captures less the other's
    packed = step(pits[i], mover, action, ply[i], max_plies, endless_mode, scratch)
    player[i] = 1 - mover
    ply[i] += 1
    status[i] = packed & 7
    legal[i] = (packed >> 3) & _LEGAL_BITS
    if reward_mode == SCORE_DIFF:
        return (side_total(pits[i], mover) - side_total(pits[i], 1 - mover) - lead) / (2 * SEEDS_PER_SIDE)
    if status[i] == ONGOING:
        return 0.0
    won = winner(pits[i], status[i], player[i])
    if won == NO_WINNER:
        return 0.0
    return 1.0 if won == mover else -1.0


@njit(cache=True, error_model="numpy")
def view(pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, i, viewer, obs, masks):
    """``obs[i]`` = game ``i`` seen by ``viewer``; ``masks[i]`` = ``viewer``'s legal actions, all False unless the
    game is live and ``viewer`` is to move."""
    observe(pits[i], ply[i], max_plies, viewer, obs[i])
    live = status[i] == ONGOING and player[i] == viewer
    for a in range(NUM_ACTIONS):
        masks[i, a] = live and (legal[i] >> a) & 1 == 1


@njit(cache=True, error_model="numpy")
def _start_vs_random(
    pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, learner, seat_mode, rngs, scratch, i
):
    """Restart game ``i`` against the built-in random opponent, which moves first when the learner does not."""
    start(pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, rngs, scratch, i)
    learner[i] = random_below(rngs[i], 2) if seat_mode == RANDOM_SEAT else seat_mode
    if player[i] != learner[i]:
        reply = random_bit(legal[i], rngs[i])
        play(pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, scratch, i, reply)


@njit(cache=True, error_model="numpy")
def step_self_play(
    pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, rngs, same_step, actions, rewards,
    outcome, mover, end_stores, obs, masks, final_obs, final_masks,
):  # fmt: skip
    """One move in every game by the side to move, observed by the side to move next; finished games restart (as
    :func:`awale_env.games.awale16.batch.step_self_play`, whose autoreset rules these are)."""
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int8)
    for i in range(pits.shape[0]):
        if status[i] != ONGOING:
            start(pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, rngs, scratch, i)
            rewards[i] = 0.0
            outcome[i] = ONGOING
            mover[i] = -1
        else:
            mover[i] = player[i]
            rewards[i] = play(
                pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, scratch, i, actions[i]
            )
            outcome[i] = status[i]
            if status[i] != ONGOING:
                store_pair(pits, i, end_stores[i])
                if same_step:
                    view(
                        pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, i, player[i],
                        final_obs, final_masks,
                    )  # fmt: skip
                    start(
                        pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, rngs, scratch, i
                    )
        view(pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, i, player[i], obs, masks)


@njit(cache=True, error_model="numpy")
def step_vs_random(
    pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, same_step, learner, seat_mode,
    rngs, actions, rewards, outcome, end_stores, obs, masks, final_obs, final_masks,
):  # fmt: skip
    """One learner move and the built-in random opponent's reply in every game, all from the learner's side (as
    :func:`awale_env.games.awale16.batch.step_vs_random`)."""
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int8)
    for i in range(pits.shape[0]):
        if status[i] != ONGOING:
            _start_vs_random(
                pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, learner, seat_mode,
                rngs, scratch, i,
            )  # fmt: skip
            rewards[i] = 0.0
            outcome[i] = ONGOING
        else:
            reward = play(
                pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, scratch, i, actions[i]
            )
            while status[i] == ONGOING and player[i] != learner[i]:
                reply = random_bit(legal[i], rngs[i])
                reward -= play(
                    pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, scratch, i, reply
                )
            rewards[i] = reward
            outcome[i] = status[i]
            if status[i] != ONGOING:
                store_pair(pits, i, end_stores[i])
                if same_step:
                    view(
                        pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, i, learner[i],
                        final_obs, final_masks,
                    )  # fmt: skip
                    _start_vs_random(
                        pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, learner,
                        seat_mode, rngs, scratch, i,
                    )  # fmt: skip
        view(pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, i, learner[i], obs, masks)


@njit(cache=True, error_model="numpy")
def reset_games(
    pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, vs_random, learner, seat_mode,
    rngs, which, obs, masks,
):  # fmt: skip
    """Restart the games where ``which`` is True and write every game's view (the learner's against the random
    opponent, the side to move's in self-play)."""
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int8)
    for i in range(pits.shape[0]):
        if which[i]:
            if vs_random:
                _start_vs_random(
                    pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, learner,
                    seat_mode, rngs, scratch, i,
                )  # fmt: skip
            else:
                start(pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, rngs, scratch, i)
        viewer = learner[i] if vs_random else player[i]
        view(pits, player, ply, status, legal, max_plies, reward_mode, endless_mode, first, i, viewer, obs, masks)


def new_games(n: int) -> tuple[np.ndarray, ...]:
    """The arrays of ``n`` games (``pits, player, ply, status, legal``), to :func:`start` before use."""
    return (
        np.zeros((n, BOARD_SIZE), dtype=np.int8),
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
    )


class HawalisGames(BatchedGames):
    """Hawalis's batch: the kernels above (the stores are the captured seeds, read off the board)."""

    def __init__(self, game: Any, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]) -> None:
        super().__init__(game, n, max_plies, reward_mode, options)
        self.rules: Rules = self.initial_state.rules
        first = self.rules.first_player
        self.first_code = RANDOM_FIRST if first == "random" else int(first)
        self.arrays = new_games(n)
        self.board, self.player, self.ply, self.status = self.arrays[:4]
        self.scalars = (self.limit, self.reward_mode, self.rules.endless_code, self.first_code)
        self._scratch = new_scratch()

    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        reset_games(*self.arrays, *self.scalars, vs_random, learner, seat_mode, rngs, which, obs, masks)

    def step_self_play(self, rngs: np.ndarray, same_step: bool, *outputs: np.ndarray) -> None:
        step_self_play(*self.arrays, *self.scalars, rngs, same_step, *outputs)

    def step_vs_random(self, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
                       *outputs: np.ndarray) -> None:  # fmt: skip
        step_vs_random(*self.arrays, *self.scalars, same_step, learner, seat_mode, rngs, *outputs)

    def start(self, i: int, rngs: np.ndarray) -> None:
        start(*self.arrays, *self.scalars, rngs, self._scratch, i)

    def play(self, i: int, action: int) -> float:
        return play(*self.arrays, *self.scalars, self._scratch, i, action)

    def view(self, i: int, viewer: int, obs: np.ndarray, masks: np.ndarray) -> None:
        view(*self.arrays, *self.scalars, i, viewer, obs, masks)

    def stores(self, i: int) -> tuple[int, int]:
        return (captured(self.board, i, 0), captured(self.board, i, 1))

    def state(self, i: int) -> State:
        board = self.board[i].tolist()
        flags = {"first_player": self.rules.first_player, "endless_move": self.rules.endless_move}
        return State.from_position(
            board[:SIDE], board[SIDE:], int(self.player[i]), int(self.ply[i]), max_plies=self.max_plies, **flags
        )


BATCHED = HawalisGames
