"""Compiled rules of the two-colour, 16-hole Awale (see docs/rules.md).

A position is a handful of small arrays, so that many positions can be stacked into batches:

* ``seeds``: ``int8[32]``, the seeds on the board indexed like actions (rule 13): ``seeds[2 * h + c]`` is the
  number of seeds of colour ``c`` (0 = red, 1 = blue) in hole ``h + 1``. Hole ``h`` (0-based) belongs to
  player ``h % 2``: player 0 owns the odd-numbered holes 1, 3, ..., 15.
* ``stores``: ``int16[2]``, seeds captured by each player.
* ``player`` (to move), ``ply`` (plies played) and ``max_plies`` (``NO_LIMIT`` = 0 for none) are plain integers.

Every function here works in place on those arrays and is compiled with numba. With ``NUMBA_DISABLE_JIT=1`` the
same code runs as plain Python and gives identical results (tests check this), which is why integers read from
the arrays are converted with ``int()`` before arithmetic and the random generator is a hand-written xorshift
(:mod:`awale_env.kernels.rng`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from awale_env.games.awale16 import plain
from awale_env.kernels.rng import random_below

NUM_HOLES, NO_LIMIT = plain.NUM_HOLES, plain.NO_LIMIT
NUM_ACTIONS = 32
TOTAL_SEEDS = 64
WIN_SCORE, DRAW_SCORE, MIN_BOARD_SEEDS = plain.WIN_SCORE, plain.PAIR_SCORE, plain.MIN_BOARD_SEEDS

# Game status codes, in the order rule 11 checks them: the plain rules' (2021's draw is their PAIR).
ONGOING, SCORE, DRAW, FEW_SEEDS, PLY_LIMIT = plain.ONGOING, plain.SCORE, plain.PAIR, plain.FEW_SEEDS, plain.PLY_LIMIT
END_REASONS = (None, "score", "draw", "few_seeds", "ply_limit")

SEED_DTYPE = np.int8
STORE_DTYPE = np.int16


def initial_seeds() -> np.ndarray:
    """2 red + 2 blue seeds in every hole (rule 3)."""
    return np.full(NUM_ACTIONS, 2, dtype=SEED_DTYPE)


@njit(cache=True, error_model="numpy")
def legal_bits(seeds, player):
    """Legal actions of ``player`` as a 32-bit mask: an own hole holding that colour (rule 5)."""
    bits = 0
    for h in range(player, NUM_HOLES, 2):
        a = 2 * h
        if seeds[a] > 0:
            bits |= 1 << a
        if seeds[a + 1] > 0:
            bits |= 1 << (a + 1)
    return bits


@njit(cache=True, error_model="numpy", inline="always")
def legal_mask(seeds, player, out):
    """Write the boolean legal-action mask of ``player`` into ``out`` (length 32)."""
    out[:] = False
    for h in range(player, NUM_HOLES, 2):
        a = 2 * h
        out[a] = seeds[a] > 0
        out[a + 1] = seeds[a + 1] > 0


#: Drop seeds into one colour of the holes of a sowing pattern (``colours`` slots per hole): the plain rules' own
#: function compiled, one piece of code for both (with more seeds than holes, whole laps are dealt at once).
deal = njit(cache=True, error_model="numpy", inline="always")(plain.deal)


@njit(cache=True, error_model="numpy")
def sow(seeds, action):
    """Take all seeds of the action's colour out of its hole and sow them (rules 6-7); return the last hole.

    Red seeds go into the 15 other holes in turn; blue ones only into the opponent's 8 holes, which are the holes of
    the other parity (origin + 1, origin + 3, ...).
    """
    origin = action >> 1
    colour = action & 1
    n = int(seeds[action])
    seeds[action] = 0
    if colour == 0:
        deal(seeds, origin, 0, n, 1, NUM_HOLES - 1, 0)
        return (origin + 1 + (n - 1) % (NUM_HOLES - 1)) & (NUM_HOLES - 1)
    deal(seeds, origin, 1, n, 2, NUM_HOLES // 2, 0)
    return (origin + 1 + 2 * ((n - 1) % (NUM_HOLES // 2))) & (NUM_HOLES - 1)


@njit(cache=True, error_model="numpy")
def capture_chain(seeds, last, colours=2):
    """Capture ``last`` and the holes before it while each holds 2 or 3 seeds of any colour (rule 8; ``colours``
    slots per hole); return the seeds taken.

    Captured holes are emptied, so the chain stops at the latest when it comes back round to one of them.
    """
    captured = 0
    hole = last
    while True:
        base = colours * hole
        total = 0
        for c in range(colours):
            total += int(seeds[base + c])
        if total != 2 and total != 3:
            return captured
        captured += total
        for c in range(colours):
            seeds[base + c] = 0
        hole = hole - 1 if hole > 0 else NUM_HOLES - 1


@njit(cache=True, error_model="numpy")
def starving_sweep(seeds, opponent, colours=2):
    """If ``opponent`` has no seed in any own hole, remove every seed on the board and return their count (rule 10;
    ``colours`` slots per hole).

    The opponent's holes are OR-ed together without early exit: branch-free is faster than a data-dependent loop.
    """
    present = 0
    for h in range(opponent, NUM_HOLES, 2):
        for c in range(colours):
            present |= seeds[colours * h + c]
    if present:
        return 0
    swept = 0
    for a in range(colours * NUM_HOLES):
        swept += int(seeds[a])
        seeds[a] = 0
    return swept


@njit(cache=True, error_model="numpy", inline="always")
def board_total(seeds, colours=2):
    """Seeds left on the board (``colours`` slots per hole)."""
    total = 0
    for a in range(colours * NUM_HOLES):
        total += int(seeds[a])
    return total


#: The status code of a position after its captures and sweep (rule 11), checked in the rule's order: ``win`` captured
#: seeds win; both players holding ``pair`` or more ends the game (``DRAW``: with 64 seeds, both hold 32); fewer than
#: ``few`` seeds on the board end it. The plain rules' own function compiled.
end_status = njit(cache=True, error_model="numpy", inline="always")(plain.end_status)


@njit(cache=True, error_model="numpy", inline="always")
def apply_action(seeds, stores, player, action):
    """Play one legal move in place: sow, capture chain, starving sweep. Return the seeds the mover gained."""
    gained = capture_chain(seeds, sow(seeds, action))
    gained += starving_sweep(seeds, 1 - player)
    stores[player] += gained
    return gained


@njit(cache=True, error_model="numpy")
def step(seeds, player, action, ply, max_plies, store0, store1):
    """One ply for the State API in a single compiled call, the stores passed and returned as plain integers.

    Returns ``gained | status << 8 | legal_bits(next player) << 16`` packed into one integer (the legal bits are 0
    once the game is over), so that Python pays for one call and no array or tuple per move.
    """
    gained = capture_chain(seeds, sow(seeds, action))
    gained += starving_sweep(seeds, 1 - player)
    if player == 0:
        store0 += gained
    else:
        store1 += gained
    status = end_status(board_total(seeds), store0, store1, ply + 1, max_plies)
    bits = legal_bits(seeds, 1 - player) if status == ONGOING else 0
    return gained | (status << 8) | (bits << 16)


# --- the board from one player's point of view -------------------------------------------------------------------

OBS_SIZE = 2 * NUM_HOLES + 3
SEED_SCALE = 16.0


@njit(cache=True, error_model="numpy")
def relative_action(action, player):
    """The action as ``player`` sees it: the board turned by ``player`` holes so the viewer's holes are the even
    relative indices 0, 2, ..., 14 (relative hole 0 = hole 1 for player 0, hole 2 for player 1)."""
    return (action - 2 * player) % NUM_ACTIONS


@njit(cache=True, error_model="numpy")
def absolute_action(relative, player):
    """Inverse of :func:`relative_action`."""
    return (relative + 2 * player) % NUM_ACTIONS


@njit(cache=True, error_model="numpy", inline="always")
def observe(seeds, stores, ply, max_plies, player, out):
    """Write ``player``'s view of the position into ``out`` (float32, length ``OBS_SIZE``).

    ``out[2 * k + c]`` = seeds of colour ``c`` in relative hole ``k`` (see :func:`relative_action`) / 16, so the
    viewer's holes are at even ``k`` for both seats; ``out[32]``, ``out[33]`` = own and opponent's store / 64;
    ``out[34]`` = fraction of ``max_plies`` played (0 without a limit).
    """
    shift = 2 * player  # two straight loops instead of an index modulo 32: this runs for every game of a batch
    scale = np.float32(1.0 / SEED_SCALE)  # a power of two: the products are the exact quotients
    for r in range(NUM_ACTIONS - shift):
        out[r] = seeds[r + shift] * scale
    for r in range(NUM_ACTIONS - shift, NUM_ACTIONS):
        out[r] = seeds[r + shift - NUM_ACTIONS] * scale
    out[NUM_ACTIONS] = stores[player] / TOTAL_SEEDS
    out[NUM_ACTIONS + 1] = stores[1 - player] / TOTAL_SEEDS
    out[NUM_ACTIONS + 2] = 0.0 if max_plies == NO_LIMIT else min(ply / max_plies, 1.0)


@njit(cache=True, error_model="numpy", inline="always")
def own_moves(seeds, player, out, colours=2):
    """Write the legal actions of ``player`` into ``out`` (room for all 16 own actions, 32 with a third colour) in
    increasing order; return how many. A hole's actions are its red and its blue seeds', then with a third colour
    (``colours`` slots per hole: the editions' transparent seeds, actions ``4 * h + k``) those seeds' sown as red and
    as blue.

    Branch-free: every own action is written, the count only advances past the legal ones."""
    n = 0
    for h in range(player, NUM_HOLES, 2):
        base, a = colours * h, 2 * (colours - 1) * h
        out[n] = a
        n += seeds[base] > 0
        out[n] = a + 1
        n += seeds[base + 1] > 0
        if colours == 3:
            transparent = seeds[base + 2] > 0
            out[n] = a + 2
            n += transparent
            out[n] = a + 3
            n += transparent
    return n


@njit(cache=True, error_model="numpy", inline="always")
def random_legal_action(seeds, player, rng, scratch, colours=2):
    """A legal action of ``player`` drawn uniformly (it must have one); ``scratch``: int array, room for
    :func:`own_moves`."""
    return scratch[random_below(rng, own_moves(seeds, player, scratch, colours))]


@njit(cache=True, error_model="numpy")
def random_playout(seeds, stores, player, ply, max_plies, rng):
    """Play uniformly random legal moves in place until the game ends; return ``(status, ply)`` at the end.

    The position must not be over already. The whole game runs inside compiled code (no Python per ply).
    """
    scratch = np.empty(NUM_HOLES, dtype=np.int64)
    on_board = board_total(seeds)
    while True:
        gained = apply_action(seeds, stores, player, random_legal_action(seeds, player, rng, scratch))
        on_board -= gained
        ply += 1
        player = 1 - player
        status = end_status(on_board, int(stores[0]), int(stores[1]), ply, max_plies)
        if status != ONGOING:
            return status, ply


@njit(cache=True, error_model="numpy")
def random_playouts(seeds, stores, player, ply, max_plies, count, rng):
    """Play ``count`` random games from one position; return the total plies played (for benchmarks and rollouts)."""
    plies = 0
    for _ in range(count):
        plies += random_playout(seeds.copy(), stores.copy(), player, ply, max_plies, rng)[1] - ply
    return plies
