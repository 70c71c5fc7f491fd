"""The vector env's compiled stepper, written once for every game over the kernels the searches call
(:mod:`awale_env.kernels.dispatch`): many games held in arrays, stepped in one compiled call, as pgx writes its
``step`` once for every game (illegal action, end, autoreset).

A batch is a :class:`Batch`: the search position of each game with a leading game axis (``board`` in the game core's
layout, ``stores`` int16[n, 2], int arrays ``player`` (to move), ``ply``, ``status`` and ``legal``, the legal bits of
the player to move), ``keys``, each game's repetition set (a fixed-size row of the game's ``new_key_set``, sized so
that a game of ``max_plies`` plies never fills it), the starting position every game restarts from, and the scalars
that say how to step. The game travels as its search ``env``: each kernel is compiled once per game and cached on disk,
as the searches are. Who moves after a move is the game's ``next_player``, never assumed to alternate.

An illegal action ends its game without a move (status ``len(end_reasons)``, reward -1); rewards are those of
:func:`awale_env.batched.move_reward`: the mover's return at the end (``win_loss``) or the change of the mover's store
lead over ``total_seeds`` (``score_diff``). With ``NUMBA_DISABLE_JIT=1`` the same code runs as Python, identically.
"""

from __future__ import annotations

import warnings
from collections import namedtuple

from numba import njit
from numba.core.errors import NumbaIRAssumptionWarning

from awale_env.kernels import dispatch as kn
from awale_env.kernels.batch import ONGOING, RANDOM_SEAT, SCORE_DIFF
from awale_env.kernels.rng import random_below
from awale_env.kernels.search import DRAW, bit_count

# Inlining a kernel that holds a conditional expression makes numba's pedantic SSA check (Python 3.11) warn "variable
# ... is not in scope" once per compile, on every fresh install; the code compiled is right (numba issue #9489; the
# vector env's tests compare it with the State API move for move), so that one message is not shown.
warnings.filterwarnings("ignore", message=r"variable '.*' is not in scope", category=NumbaIRAssumptionWarning)
# the kernels of every move, inlined into the stepper (kn.inlined)
next_player, move, status_legal, record, winner, observe = (
    kn.inlined(k) for k in (kn.next_player, kn.move, kn.status_legal, kn.record, kn.winner, kn.observe)
)

#: ``first`` of a batch whose games draw their first player at random (else the first player, 0 or 1).
RANDOM_FIRST = -1

Batch = namedtuple(
    "Batch",
    ("board", "stores", "player", "ply", "status", "legal", "keys", "start_board", "start_stores", "max_plies",
     "reward_mode", "total_seeds", "first", "num_actions", "illegal"),
)  # fmt: skip


@njit(cache=True, error_model="numpy", inline="always")
def random_bit(bits, rng):
    """One set bit of the non-zero legal bits ``bits``, drawn uniformly (one draw of ``rng``)."""
    pick = random_below(rng, bit_count(bits))
    a = 0
    while True:
        if (bits >> a) & 1:
            if pick == 0:
                return a
            pick -= 1
        a += 1


@njit(cache=True, error_model="numpy", inline="always")
def start(env, b, rngs, i):
    """Set game ``i`` to the starting position, its first player ``b.first`` or drawn."""
    board, stores = b.board[i], b.stores[i]
    board[:] = b.start_board
    stores[:] = b.start_stores
    b.player[i] = random_below(rngs[i], 2) if b.first == RANDOM_FIRST else b.first
    b.ply[i] = 0
    # recorded as after a capture: the set starts afresh with this position
    record(env, b.keys[i], board, b.player[i], 1, False)
    b.status[i], b.legal[i] = status_legal(env, board, stores, b.player[i], 0, b.max_plies, 0, False)


@njit(cache=True, error_model="numpy", inline="always")
def act(env, board, stores, keys, mover, ply, legal, action, max_plies, reward_mode, total_seeds, num_actions, illegal):
    """Play ``action`` for ``mover`` in the game whose rows are ``board``, ``stores`` and ``keys`` (at ``ply``; the
    mover's legal bits ``legal``); return ``(to move, ply, status, legal bits, reward)`` after it, the reward the
    mover's. An illegal action ends the game (status ``illegal``, reward -1) and leaves the position, and the turn,
    as they were.

    The loops over the games keep one game's values in locals and pass them here, never the :class:`Batch`: an
    inlined helper given the named tuple pays reference counting on every array in it, which cost the stepper a third
    of its speed against the random opponent."""
    if action < 0 or action >= num_actions or (legal >> action) & 1 == 0:
        return mover, ply, illegal, 0, -1.0
    lead = int(stores[mover]) - int(stores[1 - mover])
    after = next_player(env, board, mover, action)
    gained = move(env, board, stores, mover, action)
    _, repeated = record(env, keys, board, after, gained, False)
    code, bits = status_legal(env, board, stores, after, ply + 1, max_plies, gained, repeated)
    if reward_mode == SCORE_DIFF:
        reward = (int(stores[mover]) - int(stores[1 - mover]) - lead) / total_seeds
    elif code == ONGOING:
        reward = 0.0
    else:
        won = winner(env, board, stores, code, after)
        reward = 0.0 if won == DRAW else (1.0 if won == mover else -1.0)
    return after, ply + 1, code, bits, reward


@njit(cache=True, error_model="numpy", inline="always")
def play(env, b, i, action):
    """:func:`act` on game ``i``, its arrays updated; return the mover's reward."""
    b.player[i], b.ply[i], b.status[i], b.legal[i], reward = act(
        env, b.board[i], b.stores[i], b.keys[i], b.player[i], b.ply[i], b.legal[i], action, b.max_plies,
        b.reward_mode, b.total_seeds, b.num_actions, b.illegal,
    )  # fmt: skip
    return reward


@njit(cache=True, error_model="numpy", inline="always")
def view(env, b, i, viewer, obs, masks):
    """``obs[i]`` = game ``i`` seen by ``viewer``; ``masks[i]`` = ``viewer``'s legal actions, all False unless the
    game is live and ``viewer`` is to move."""
    bits = b.legal[i] if b.status[i] == ONGOING and b.player[i] == viewer else 0
    view_rows(env, b.board[i], b.stores[i], b.ply[i], b.max_plies, bits, b.num_actions, viewer, i, obs, masks)


@njit(cache=True, error_model="numpy", inline="always")
def view_rows(env, board, stores, ply, max_plies, bits, num_actions, viewer, i, obs, masks):
    """:func:`view` of the game whose rows are ``board`` and ``stores``, ``bits`` the legal bits to show."""
    observe(env, board, stores, ply, max_plies, viewer, obs[i])
    for a in range(num_actions):
        masks[i, a] = (bits >> a) & 1 == 1


@njit(cache=True, error_model="numpy", inline="always")
def game_rows(b):
    """The arrays of :class:`Batch` ``b`` that hold one row per game, taken out once per step: the loops over the
    games pass rows and numbers to their helpers, never the named tuple (see :func:`act`)."""
    return b.board, b.stores, b.keys, b.player, b.ply, b.status, b.legal


@njit(cache=True, error_model="numpy", inline="always")
def settings(b):
    """The numbers of :class:`Batch` ``b`` that say how to step: its ``max_plies``, ``reward_mode``, ``total_seeds``,
    ``num_actions`` and ``illegal``."""
    return b.max_plies, b.reward_mode, b.total_seeds, b.num_actions, b.illegal


@njit(cache=True, error_model="numpy")
def restart(env, b, vs_random, learner, seat_mode, rngs, i):
    """Restart game ``i``; against the built-in random opponent (``vs_random``) also draw the learner's seat when
    ``seat_mode`` is ``RANDOM_SEAT`` and play the opponent's moves while it is its turn.

    Called, not inlined, and calling :func:`start_one` and :func:`play_one`: a game restarts once per game, and one
    compiled copy of each shared by every caller keeps the stepper's compile short."""
    start_one(env, b, rngs, i)
    if vs_random:
        learner[i] = random_below(rngs[i], 2) if seat_mode == RANDOM_SEAT else seat_mode
        while b.status[i] == ONGOING and b.player[i] != learner[i]:
            play_one(env, b, i, random_bit(b.legal[i], rngs[i]))


@njit(cache=True, error_model="numpy")
def step_games(env, b, vs_random, same_step, learner, seat_mode, rngs, actions, rewards, outcome, mover, end_stores,
               obs, masks, final_obs, final_masks):  # fmt: skip
    """One move in every game: in self-play the side to move's, observed by the side to move next; against the
    built-in random opponent (``vs_random``) the learner's and the opponent's replies (as many as it has turns), all
    from the learner's side. ``learner[i]`` is the learner's seat in game ``i`` (read only against the opponent),
    drawn again at every restart when ``seat_mode`` is ``RANDOM_SEAT``; ``rngs`` is uint64[n, 1], one xorshift state
    per game.

    Autoreset as Gymnasium defines it: with ``same_step`` False (next-step) a game that ended on the previous call
    restarts instead of moving (``mover[i] = -1``, reward 0, its action ignored); with ``same_step`` True it
    restarts right after its last move and ``final_obs[i]`` holds the last observation. ``mover[i]`` is the seat
    that moved, ``outcome[i]`` the status the move produced (``BatchedGames.outcomes``) and ``end_stores[i]`` the
    stores when it ended the game; a restarted game whose learner moves second has already seen the opponent's moves.
    One function for both modes: each is compiled once per game, and the mode costs a test per move.
    """
    boards, store_rows, key_rows, players, plies, statuses, legals = game_rows(b)
    max_plies, reward_mode, total_seeds, num_actions, illegal = settings(b)
    for i in range(boards.shape[0]):
        board, stores = boards[i], store_rows[i]
        if statuses[i] != ONGOING:
            restart(env, b, vs_random, learner, seat_mode, rngs, i)
            rewards[i] = 0.0
            outcome[i] = ONGOING
            mover[i] = -1
        else:
            keys = key_rows[i]
            mover[i] = players[i]
            player, ply, status, legal, reward = act(
                env, board, stores, keys, players[i], plies[i], legals[i], actions[i], max_plies, reward_mode,
                total_seeds, num_actions, illegal,
            )  # fmt: skip
            if vs_random:
                while status == ONGOING and player != learner[i]:
                    player, ply, status, legal, lost = act(
                        env, board, stores, keys, player, ply, legal, random_bit(legal, rngs[i]), max_plies,
                        reward_mode, total_seeds, num_actions, illegal,
                    )  # fmt: skip
                    reward -= lost
            players[i], plies[i], statuses[i], legals[i] = player, ply, status, legal
            rewards[i] = reward
            outcome[i] = status
            if status != ONGOING:
                end_stores[i, :] = stores
                if same_step:
                    viewer = learner[i] if vs_random else player
                    view_rows(env, board, stores, ply, max_plies, 0, num_actions, viewer, i, final_obs, final_masks)
                    restart(env, b, vs_random, learner, seat_mode, rngs, i)
        viewer = learner[i] if vs_random else players[i]
        bits = legals[i] if statuses[i] == ONGOING and players[i] == viewer else 0
        view_rows(env, board, stores, plies[i], max_plies, bits, num_actions, viewer, i, obs, masks)


@njit(cache=True, error_model="numpy")
def reset_games(env, b, vs_random, learner, seat_mode, rngs, which, obs, masks):
    """Restart the games where ``which`` is True and write every game's view (the learner's against the random
    opponent, the side to move's in self-play)."""
    for i in range(b.board.shape[0]):
        if which[i]:
            restart(env, b, vs_random, learner, seat_mode, rngs, i)
        view(env, b, i, learner[i] if vs_random else b.player[i], obs, masks)


@njit(cache=True, error_model="numpy")
def start_one(env, b, rngs, i):
    """:func:`start` from Python (the vector env against agents that are Python objects)."""
    start(env, b, rngs, i)


@njit(cache=True, error_model="numpy")
def play_one(env, b, i, action):
    """:func:`play` from Python."""
    return play(env, b, i, action)


@njit(cache=True, error_model="numpy")
def view_one(env, b, i, viewer, obs, masks):
    """:func:`view` from Python."""
    view(env, b, i, viewer, obs, masks)
