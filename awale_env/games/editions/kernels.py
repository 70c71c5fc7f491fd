"""Compiled rules of the editions with transparent seeds (the 2023 edition, and the 2025 one built on it; see
docs/editions.md): one board, the moves and end rules of an edition told apart by a rules code.

A position is the arrays of the 2021 game (:mod:`awale_env.games.awale16.kernels`) with a third colour:

* ``seeds``: ``int8[48]``, ``seeds[3 * h + c]`` the seeds of colour ``c`` (0 red, 1 blue, 2 transparent) in hole
  ``h + 1``; hole ``h`` (0-based) belongs to player ``h % 2``.
* ``stores`` (``int16[2]``), ``player``, ``ply`` and ``max_plies`` (``NO_LIMIT`` = 0 for none) as in 2021.

Action ``4 * h + k`` takes from hole ``h + 1``: ``k`` = 0 its red seeds (``NR``), 1 its blue ones (``NB``), 2 or 3 its
transparent ones (``NTR``, ``NTB``), sown in red's or blue's pattern. The rules code (:func:`rules_code`) says what
else a transparent move takes, how many transparent seeds a hole starts with and how the game ends. Sowing, the
capture chain, the starving sweep and the end checks are the 2021 kernels', which count every colour of a hole.
As there, the same code runs as plain Python with ``NUMBA_DISABLE_JIT=1`` and gives identical results.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from awale_env.games.awale16 import kernels as a16

NUM_HOLES = a16.NUM_HOLES
COLOURS = 3
RED, BLUE, TRANSPARENT = 0, 1, 2
BOARD_SIZE = COLOURS * NUM_HOLES
ACTIONS_PER_HOLE = 4
NUM_ACTIONS = ACTIONS_PER_HOLE * NUM_HOLES
NO_LIMIT = a16.NO_LIMIT
MIN_BOARD_SEEDS = 10
SEED_DTYPE = a16.SEED_DTYPE
STORE_DTYPE = a16.STORE_DTYPE

# Status codes: the 2021 game's (``PAIR``, 2021's draw, is "both players hold the pair score"), then the move limit of
# the rules.
ONGOING, SCORE, PAIR, FEW_SEEDS, PLY_LIMIT = a16.ONGOING, a16.SCORE, a16.DRAW, a16.FEW_SEEDS, a16.PLY_LIMIT
MOVE_LIMIT = PLY_LIMIT + 1

#: Rules code bit: a transparent move also takes the hole's seeds of the chosen colour and sows them after the
#: transparent ones, continuing the pattern where they stopped (2025).
WITH_COLOUR = 1
#: The pair score of rules without a pair rule: more than any player can hold while the other holds as many.
NO_PAIR = 0xFF

OBS_SIZE = BOARD_SIZE + 3
SEED_SCALE = a16.SEED_SCALE


def rules_code(with_colour: bool, transparent_per_hole: int, win_score: int, pair_score: int, move_limit: int) -> int:
    """The rules code the kernels take: bit 0 :data:`WITH_COLOUR`, bits 1-3 the transparent seeds per hole at the
    start, bits 8-15 the store that wins, bits 16-23 the store both players reaching ends the game (``NO_PAIR``:
    never), bits 24 on the move limit of the rules (0 for none)."""
    return int(with_colour) | transparent_per_hole << 1 | win_score << 8 | pair_score << 16 | move_limit << 24


@njit(cache=True, error_model="numpy", inline="always")
def transparent_per_hole(rules):
    return (rules >> 1) & 7


@njit(cache=True, error_model="numpy", inline="always")
def total_seeds(rules):
    """Seeds in the game: 2 red, 2 blue and the transparent ones of each hole."""
    return NUM_HOLES * (4 + transparent_per_hole(rules))


@njit(cache=True, error_model="numpy", inline="always")
def move_limit(rules):
    return rules >> 24


@njit(cache=True, error_model="numpy", inline="always")
def reset_board(seeds, rules):
    """Write the starting position: 2 red, 2 blue and the edition's transparent seeds in every hole."""
    for h in range(NUM_HOLES):
        seeds[COLOURS * h + RED] = 2
        seeds[COLOURS * h + BLUE] = 2
        seeds[COLOURS * h + TRANSPARENT] = transparent_per_hole(rules)


@njit(cache=True, error_model="numpy")
def legal_bits(seeds, player):
    """Legal actions of ``player`` packed by own hole: bit ``4 * j + k`` for action ``k`` of the player's ``j``-th
    hole (hole ``2 * j + player``, 0-based), 32 bits in all; :func:`legal_mask_bits` gives the 64-bit mask."""
    bits = 0
    for j in range(NUM_HOLES // 2):
        base = COLOURS * (2 * j + player)
        own = 1 if seeds[base + RED] > 0 else 0
        if seeds[base + BLUE] > 0:
            own |= 2
        if seeds[base + TRANSPARENT] > 0:
            own |= 12  # TR and TB
        bits |= own << (ACTIONS_PER_HOLE * j)
    return bits


@njit(cache=True, error_model="numpy")
def legal_mask_bits(seeds, player):
    """Legal actions of ``player`` as a 64-bit mask (bit ``a`` for action ``a``) in an ``int64``: action 63
    (``16TB``) is the sign bit, compiled or not."""
    bits = np.int64(0)
    one = np.int64(1)
    for h in range(player, NUM_HOLES, 2):
        base, a = COLOURS * h, ACTIONS_PER_HOLE * h
        if seeds[base + RED] > 0:
            bits |= one << a
        if seeds[base + BLUE] > 0:
            bits |= one << (a + 1)
        if seeds[base + TRANSPARENT] > 0:
            bits |= (one << (a + 2)) | (one << (a + 3))
    return bits


@njit(cache=True, error_model="numpy", inline="always")
def legal_mask(seeds, player, out):
    """Write the boolean legal-action mask of ``player`` into ``out`` (length 64)."""
    out[:] = False
    for h in range(player, NUM_HOLES, 2):
        base, a = COLOURS * h, ACTIONS_PER_HOLE * h
        out[a] = seeds[base + RED] > 0
        out[a + 1] = seeds[base + BLUE] > 0
        out[a + 2] = seeds[base + TRANSPARENT] > 0
        out[a + 3] = out[a + 2]


@njit(cache=True, error_model="numpy", inline="always")
def sow_pattern(seeds, origin, colour, transparent, coloured, step, targets):
    """Sow ``transparent`` transparent seeds, then ``coloured`` seeds of ``colour``, from ``origin`` into the holes
    ``origin + 1 + step * i``, ``i < targets`` (the colour's pattern), one after another; return the last hole."""
    a16.deal(seeds, origin, TRANSPARENT, transparent, step, targets, 0, COLOURS)
    a16.deal(seeds, origin, colour, coloured, step, targets, transparent % targets, COLOURS)
    return (origin + 1 + step * ((transparent + coloured - 1) % targets)) & (NUM_HOLES - 1)


@njit(cache=True, error_model="numpy")
def sow(seeds, action, rules):
    """Take the seeds an action moves out of its hole and sow them; return the hole of the last one.

    Red's pattern is the 15 other holes, blue's the opponent's 8 holes; the origin is skipped on every lap. A
    transparent move sows the hole's transparent seeds in the chosen colour's pattern; with ``WITH_COLOUR`` the
    hole's seeds of that colour follow them.
    """
    origin, kind = action >> 2, action & 3
    colour = kind & 1
    base = COLOURS * origin
    transparent, coloured = 0, 0
    if kind >= 2:
        transparent = int(seeds[base + TRANSPARENT])
        seeds[base + TRANSPARENT] = 0
    if kind < 2 or rules & WITH_COLOUR:
        coloured = int(seeds[base + colour])
        seeds[base + colour] = 0
    if colour == RED:  # constant patterns, so that the divisions by them compile to multiplications
        return sow_pattern(seeds, origin, RED, transparent, coloured, 1, NUM_HOLES - 1)
    return sow_pattern(seeds, origin, BLUE, transparent, coloured, 2, NUM_HOLES // 2)


@njit(cache=True, error_model="numpy", inline="always")
def capture(seeds, player, action, rules):
    """Sow, then the capture chain and the starving sweep; return the seeds the mover gains."""
    gained = a16.capture_chain(seeds, sow(seeds, action, rules), COLOURS)
    return gained + a16.starving_sweep(seeds, 1 - player, COLOURS)


@njit(cache=True, error_model="numpy", inline="always")
def apply_action(seeds, stores, player, action, rules):
    """Play one legal move in place; return the seeds the mover gained (added to ``stores[player]``)."""
    gained = capture(seeds, player, action, rules)
    stores[player] += gained
    return gained


@njit(cache=True, error_model="numpy", inline="always")
def board_total(seeds):
    """Seeds left on the board."""
    return a16.board_total(seeds, COLOURS)


@njit(cache=True, error_model="numpy", inline="always")
def end_status(on_board, store0, store1, ply, max_plies, rules):
    """The status code after a move's captures and sweep: the 2021 checks with the edition's scores and 10 seeds
    on the board, then the move limit of the rules, then ``max_plies``."""
    win, pair = (rules >> 8) & 0xFF, (rules >> 16) & 0xFF
    status = a16.end_status(on_board, store0, store1, ply, NO_LIMIT, win, pair, MIN_BOARD_SEEDS)
    if status != ONGOING:
        return status
    limit = move_limit(rules)
    if limit != 0 and ply >= limit:
        return MOVE_LIMIT
    if max_plies != NO_LIMIT and ply >= max_plies:
        return PLY_LIMIT
    return ONGOING


@njit(cache=True, error_model="numpy")
def step(seeds, player, action, ply, max_plies, store0, store1, rules):
    """One ply for the State API in one compiled call, the stores passed as plain integers. Returns
    ``gained | status << 8 | legal_bits(next player) << 16`` (no legal bits once the game is over)."""
    gained = capture(seeds, player, action, rules)
    if player == 0:
        store0 += gained
    else:
        store1 += gained
    status = end_status(board_total(seeds), store0, store1, ply + 1, max_plies, rules)
    bits = legal_bits(seeds, 1 - player) if status == ONGOING else 0
    return gained | (status << 8) | (bits << 16)


@njit(cache=True, error_model="numpy", inline="always")
def observe(seeds, stores, ply, max_plies, player, rules, out):
    """Write ``player``'s view of the position into ``out`` (float32, length ``OBS_SIZE`` = 51).

    ``out[3 * k + c]`` = seeds of colour ``c`` in the hole ``k`` holes after the viewer's first one (hole 1 for
    player 0, hole 2 for player 1) / 16, so the viewer's holes are the even ``k`` for both seats; ``out[48]``,
    ``out[49]`` = own and opponent's store / the game's seeds; ``out[50]`` = the fraction played of the nearer of the
    move limit and ``max_plies`` (0 without either).
    """
    shift = COLOURS * player
    scale = np.float32(1.0 / SEED_SCALE)  # a power of two: the products are the exact quotients
    for r in range(BOARD_SIZE - shift):
        out[r] = seeds[r + shift] * scale
    for r in range(BOARD_SIZE - shift, BOARD_SIZE):
        out[r] = seeds[r + shift - BOARD_SIZE] * scale
    total = total_seeds(rules)
    out[BOARD_SIZE] = stores[player] / total
    out[BOARD_SIZE + 1] = stores[1 - player] / total
    limit = move_limit(rules)
    if max_plies != NO_LIMIT and (limit == 0 or max_plies < limit):
        limit = max_plies
    out[BOARD_SIZE + 2] = 0.0 if limit == 0 else min(ply / limit, 1.0)


@njit(cache=True, error_model="numpy")
def random_playout(seeds, stores, player, ply, max_plies, rules, rng):
    """Play uniformly random legal moves in place until the game ends; return ``(status, ply)`` at the end.

    The position must not be over already. The whole game runs inside compiled code (no Python per ply).
    """
    scratch = np.empty(NUM_ACTIONS // 2, dtype=np.int64)
    on_board = board_total(seeds)
    while True:
        gained = apply_action(
            seeds, stores, player, a16.random_legal_action(seeds, player, rng, scratch, COLOURS), rules
        )
        on_board -= gained
        ply += 1
        player = 1 - player
        status = end_status(on_board, int(stores[0]), int(stores[1]), ply, max_plies, rules)
        if status != ONGOING:
            return status, ply


@njit(cache=True, error_model="numpy")
def random_playouts(seeds, stores, player, ply, max_plies, rules, count, rng):
    """Play ``count`` random games from one position; return the total plies played (for benchmarks and rollouts)."""
    plies = 0
    for _ in range(count):
        plies += random_playout(seeds.copy(), stores.copy(), player, ply, max_plies, rules, rng)[1] - ply
    return plies
