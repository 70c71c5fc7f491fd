"""Compiled rules of classic Oware (2 x 6), both presets (see docs/rules_oware.md).

A position is a handful of small arrays and plain integers, so that positions can be stacked into batches:

* ``pits``: ``int8[12]`` in the spec's (and OpenSpiel's) indexing: pits 0..5 are player 0's, 6..11 player 1's, each
  row left to right as its owner sees it; sowing goes ``i -> i + 1 (mod 12)``. Action ``a`` of player ``p`` is pit
  ``6 * p + a``.
* ``stores``: ``int16[2]``, seeds captured (or collected at the end) by each player.
* ``player`` (to move), ``ply`` (plies played), ``max_plies`` (``NO_LIMIT`` = 0 for none) are plain integers, and
  ``rules`` is the rule flags packed into one small integer (the ``*_BIT`` constants below; see
  :class:`awale_env.games.oware.state.Rules` for the names).
* ``keys``: the repetition set of rule 9, an ``int64`` array made by :func:`key_set_new` holding the
  :func:`position_key` of every position since the last capture. Stores only change by a capture (which clears the
  set) or at the very end, so within the set the stores are always the same and the key is the pits and the player.

Every function is compiled with numba. With ``NUMBA_DISABLE_JIT=1`` the same code runs as plain Python and gives
identical results (tests check this), hence the ``int()`` conversions before arithmetic and the hand-written xorshift
generator of :mod:`awale_env.kernels.rng`.
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit

from awale_env.kernels.rng import random_below

ROW = 6  # pits per player, also the number of actions
NUM_ACTIONS = ROW
NUM_PITS = 2 * ROW
SEEDS_PER_PIT = 4
TOTAL_SEEDS = NUM_PITS * SEEDS_PER_PIT
MAJORITY = 25  # with stop_at_majority: a store of 25 ends the game (rule 10) ...
HALF = 24  # ... and so do two stores of 24
NO_LIMIT = 0

# Rule flags, one bit each; a clear bit is the "texts" choice.
NO_CAPTURE_GRAND_SLAM_BIT = 1  # a grand slam is legal and captures nothing (else it is an illegal move)
OWN_SIDE_ON_REPETITION_BIT = 2  # at a repetition or the ply limit each player adds their row (else discarded)
DISCARD_ON_NO_MOVE_BIT = 4  # with no legal move the seeds left count for nobody (else each player adds their row)
STOP_AT_MAJORITY_BIT = 8  # a store of 25, or 24 each, ends the game

# Game status codes, in the order the end checks are made (rules 9-12).
ONGOING, REPETITION, MAJORITY_REACHED, NO_MOVE, PLY_LIMIT = range(5)
END_REASONS = (None, "repetition", "majority", "no_move", "ply_limit")
STATUS_BITS = 4  # end_status and finish pack the legal bits above the status

PIT_DTYPE = np.int8
STORE_DTYPE = np.int16
KEY_DTYPE = np.int64

# BINOM[n, k] = C(n, k): the number of ways to put at most s seeds into k + 1 pits is C(s + k + 1, k + 1), which
# ranks a board exactly among all boards of at most 48 seeds (position_key) in 41 bits.
BINOM = np.array([[comb(n, k) for k in range(NUM_PITS + 1)] for n in range(TOTAL_SEEDS + NUM_PITS + 1)], np.int64)
EMPTY_KEY = -1


def initial_pits() -> np.ndarray:
    """4 seeds in each of the 12 pits (rule 1)."""
    return np.full(NUM_PITS, SEEDS_PER_PIT, dtype=PIT_DTYPE)


@njit(cache=True, error_model="numpy")
def _in_row(pit, player):
    return ROW * player <= pit < ROW * player + ROW


@njit(cache=True, error_model="numpy")
def row_total(pits, player):
    """Seeds in ``player``'s row."""
    total = 0
    for k in range(ROW * player, ROW * player + ROW):
        total += int(pits[k])
    return total


@njit(cache=True, error_model="numpy")
def sow(pits, house):
    """Empty ``house`` and sow its seeds one per pit from the next one on, skipping ``house`` on every lap (rule 4);
    return the pit that received the last seed. Up to 11 seeds never reach ``house`` again (the common case); with
    more, whole laps are dealt at once."""
    n = int(pits[house])
    pits[house] = 0
    if n < NUM_PITS:
        pit = house
        for _ in range(n):
            pit = pit + 1 if pit < NUM_PITS - 1 else 0
            pits[pit] += 1
        return pit
    laps, rest = divmod(n, NUM_PITS - 1)
    for k in range(1, NUM_PITS):
        pit = house + k
        if pit >= NUM_PITS:
            pit -= NUM_PITS
        pits[pit] += laps + (1 if k <= rest else 0)
    last = house + (rest if rest > 0 else NUM_PITS - 1)
    return last - NUM_PITS if last >= NUM_PITS else last


@njit(cache=True, error_model="numpy")
def is_grand_slam(pits, player, house):
    """Whether sowing ``house`` (non-empty, ``player``'s) would capture every seed of the opponent's row (rule 6).

    Computed from the counts without sowing: the opponent's pits come in sowing order after ``house``, each gets
    the whole laps plus one if it is among the first ``rest`` pits. A grand slam needs the pits after the last one
    empty and the chain from the last one down to the row's first pit all holding 2 or 3; most moves fail the first
    test at once (the last seed stays home, or the opponent's top pit keeps seeds).
    """
    n = int(pits[house])
    if n < NUM_PITS - 1:
        laps, rest = 0, n
    else:
        laps, rest = divmod(n, NUM_PITS - 1)
    last = house + (rest if rest > 0 else NUM_PITS - 1)
    if last >= NUM_PITS:
        last -= NUM_PITS
    low = ROW * (1 - player)
    if not low <= last < low + ROW:
        return False
    for pit in range(low + ROW - 1, low - 1, -1):
        offset = pit - house if pit > house else pit - house + NUM_PITS
        after = int(pits[pit]) + laps + (1 if offset <= rest else 0)
        if pit > last:
            if after != 0:
                return False
        elif after != 2 and after != 3:
            return False
    return True


@njit(cache=True, error_model="numpy")
def capture(pits, player, last):
    """Capture ``last`` and the pits before it while they are the opponent's and hold 2 or 3 (rule 5); return the
    seeds taken (the caller adds them to the store)."""
    low = ROW * (1 - player)
    if not low <= last < low + ROW:
        return 0
    captured = 0
    pit = last
    while pit >= low:
        n = int(pits[pit])
        if n != 2 and n != 3:
            break
        captured += n
        pits[pit] = 0
        pit -= 1
    return captured


@njit(cache=True, error_model="numpy")
def legal_bits(pits, player, rules):
    """Legal actions of ``player`` as a 6-bit mask (rules 6-8): non-empty own pits; if the opponent's row is empty,
    only those that reach it (``n >= 6 - a``); with grand slams forbidden, none that is one."""
    starving = row_total(pits, 1 - player) == 0
    check_slam = (rules & NO_CAPTURE_GRAND_SLAM_BIT) == 0
    bits = 0
    for a in range(ROW):
        house = ROW * player + a
        n = int(pits[house])
        if n == 0 or (starving and n < ROW - a):
            continue
        if check_slam and is_grand_slam(pits, player, house):
            continue
        bits |= 1 << a
    return bits


@njit(cache=True, error_model="numpy")
def legal_mask(pits, player, rules, out):
    """Write the boolean legal-action mask of ``player`` into ``out`` (length 6)."""
    bits = legal_bits(pits, player, rules)
    for a in range(ROW):
        out[a] = ((bits >> a) & 1) == 1


@njit(cache=True, error_model="numpy")
def apply_action(pits, stores, player, action, rules):
    """Play one legal move in place: sow, then capture unless it is a grand slam (which is only legal with
    ``NO_CAPTURE_GRAND_SLAM_BIT``). Return the seeds captured; no end-of-game check."""
    house = ROW * player + action
    if (rules & NO_CAPTURE_GRAND_SLAM_BIT) != 0 and is_grand_slam(pits, player, house):
        sow(pits, house)
        return 0
    captured = capture(pits, player, sow(pits, house))
    stores[player] += captured
    return captured


@njit(cache=True, error_model="numpy")
def end_status(pits, stores, player, ply, max_plies, repeated, rules):
    """The status of a position with ``player`` to move, checked in the order of rules 9-12, packed as
    ``status | legal_bits(player) << STATUS_BITS`` (the legal bits are 0 once the game is over).

    ``repeated``: whether the move that led here repeated a key of the repetition set (rule 9); the caller keeps
    the set. Pure: the seeds are not collected here (see :func:`settle`).
    """
    if repeated:
        return REPETITION
    if (rules & STOP_AT_MAJORITY_BIT) != 0:
        s0, s1 = int(stores[0]), int(stores[1])
        if s0 >= MAJORITY or s1 >= MAJORITY or (s0 == HALF and s1 == HALF):
            return MAJORITY_REACHED
    bits = legal_bits(pits, player, rules)
    if bits == 0:
        return NO_MOVE
    if max_plies != NO_LIMIT and ply >= max_plies:
        return PLY_LIMIT
    return ONGOING | (bits << STATUS_BITS)


@njit(cache=True, error_model="numpy")
def settle(pits, stores, status, rules):
    """Empty the board of a finished game as its end reason says: each player adds the seeds of their own row, or
    the seeds count for nobody (``"discard"``). Every finished position has an empty board."""
    if status == REPETITION or status == PLY_LIMIT:
        own_side = (rules & OWN_SIDE_ON_REPETITION_BIT) != 0
    elif status == NO_MOVE:
        own_side = (rules & DISCARD_ON_NO_MOVE_BIT) == 0
    else:
        own_side = True
    if own_side:
        stores[0] += row_total(pits, 0)
        stores[1] += row_total(pits, 1)
    pits[:] = 0


@njit(cache=True, error_model="numpy")
def finish(pits, stores, player, ply, max_plies, repeated, rules):
    """:func:`end_status`, then :func:`settle` if the game is over; return the packed status and legal bits."""
    packed = end_status(pits, stores, player, ply, max_plies, repeated, rules)
    status = packed & ((1 << STATUS_BITS) - 1)
    if status != ONGOING:
        settle(pits, stores, status, rules)
    return packed


@njit(cache=True, error_model="numpy")
def position_key(pits, player):
    """An exact integer key of (pits, player to move): the lexicographic rank of the board among all boards of at
    most 48 seeds, times 2, plus the player. Below 2**42, so it fits any int64 and JSON."""
    budget = TOTAL_SEEDS
    rank = 0
    for i in range(NUM_PITS):
        n = int(pits[i])
        k = NUM_PITS - 1 - i  # pits after this one
        # boards with the same prefix and fewer seeds here: sum over v < n of C(budget - v + k, k)
        rank += BINOM[budget + k + 1, k + 1] - BINOM[budget - n + k + 1, k + 1]
        budget -= n
    return 2 * rank + player


@njit(cache=True, error_model="numpy")
def step(pits, stores, player, action, rules):
    """One legal move for the State API in one compiled call: :func:`apply_action`, then the key of the new
    position (the opponent to move). Returns ``captured | key << 8``."""
    captured = apply_action(pits, stores, player, action, rules)
    return captured | (position_key(pits, 1 - player) << 8)


# --- the repetition set: an open-addressing hash set of keys, cleared in time proportional to its size -------------
# Layout of the int64 array: [count, table (capacity slots, EMPTY_KEY when free), slot of each key in insertion order].


@njit(cache=True, error_model="numpy")
def key_set_new(capacity):
    """An empty key set with room for ``capacity`` slots (a power of two, kept at most half full; it grows)."""
    keys = np.full(1 + 2 * capacity, EMPTY_KEY, dtype=np.int64)
    keys[0] = 0
    return keys


@njit(cache=True, error_model="numpy")
def key_set_size(keys):
    """Number of keys in the set."""
    return int(keys[0])


@njit(cache=True, error_model="numpy")
def key_set_clear(keys):
    """Remove every key (after a capture: captured seeds never come back, so no earlier position can recur)."""
    capacity = (keys.shape[0] - 1) >> 1
    for i in range(int(keys[0])):
        keys[1 + keys[1 + capacity + i]] = EMPTY_KEY
    keys[0] = 0


@njit(cache=True, error_model="numpy")
def key_set_insert(keys, key):
    """Insert ``key`` into a set that has room (no growth); False if it was already there. For sets of a fixed size,
    e.g. rows of a 2-D batch: a game of at most ``max_plies`` plies needs a capacity of at least
    ``2 * (max_plies + 1)`` (a power of two) to stay at most half full."""
    capacity = (keys.shape[0] - 1) >> 1
    slot = (key ^ (key >> 13) ^ (key >> 29)) & (capacity - 1)
    while True:
        held = keys[1 + slot]
        if held == key:
            return False
        if held == EMPTY_KEY:
            keys[1 + slot] = key
            keys[1 + capacity + keys[0]] = slot
            keys[0] += 1
            return True
        slot = (slot + 1) & (capacity - 1)


@njit(cache=True, error_model="numpy")
def key_set_add(keys, key):
    """Add ``key``; return ``(keys, added)``: ``added`` is False for a repetition. ``keys`` is a new, larger array
    when the old one was half full, so always keep the returned one."""
    capacity = (keys.shape[0] - 1) >> 1
    if 2 * (int(keys[0]) + 1) > capacity:
        keys = key_set_grown(keys)
    return keys, key_set_insert(keys, key)


@njit(cache=True, error_model="numpy")
def key_set_full(keys):
    """Whether one more key would make the set more than half full (then :func:`key_set_grown` first)."""
    return 2 * (int(keys[0]) + 1) > (keys.shape[0] - 1) >> 1


@njit(cache=True, error_model="numpy")
def key_set_grown(keys):
    """A copy of the set with twice the capacity."""
    capacity = (keys.shape[0] - 1) >> 1
    grown = key_set_new(2 * capacity)
    for i in range(int(keys[0])):
        key_set_insert(grown, keys[1 + keys[1 + capacity + i]])
    return grown


@njit(cache=True, error_model="numpy")
def key_set_from(values):
    """A key set holding the keys of the int64 array ``values`` (e.g. a State's ``repetition_keys``)."""
    capacity = 16
    while capacity < 2 * (values.shape[0] + 1):
        capacity *= 2
    keys = key_set_new(capacity)
    for i in range(values.shape[0]):
        key_set_insert(keys, values[i])
    return keys


# --- the board from one player's point of view -------------------------------------------------------------------

OBS_SIZE = NUM_PITS + 3
SEED_SCALE = 16.0  # as the other games: a pit rarely holds more than 16 seeds


@njit(cache=True, error_model="numpy")
def observe(pits, stores, ply, max_plies, player, out):
    """Write ``player``'s view of the position into ``out`` (float32, length ``OBS_SIZE``).

    ``out[k]`` = seeds in pit ``(6 * player + k) % 12`` / 16: the viewer's row first, so ``out[a]`` is the pit of
    the viewer's action ``a``, then the opponent's row in sowing order; ``out[12]``, ``out[13]`` = own and
    opponent's store / 48; ``out[14]`` = fraction of ``max_plies`` played (0 without a limit).
    """
    shift = ROW * player
    for k in range(NUM_PITS):
        pit = k + shift
        out[k] = pits[pit - NUM_PITS if pit >= NUM_PITS else pit] / SEED_SCALE
    out[NUM_PITS] = stores[player] / TOTAL_SEEDS
    out[NUM_PITS + 1] = stores[1 - player] / TOTAL_SEEDS
    out[NUM_PITS + 2] = 0.0 if max_plies == NO_LIMIT else min(ply / max_plies, 1.0)


# --- random play, the whole game compiled ---------------------------------------------------------------------------


# For each 6-bit legal mask: its number of actions, and its actions in order (a table beats a bit loop per ply).
_ACTION_COUNT = np.array([bin(bits).count("1") for bits in range(1 << ROW)], dtype=np.int64)
_ACTION_LIST = np.array(
    [[a for a in range(ROW) if bits >> a & 1] + [0] * (ROW - bin(bits).count("1")) for bits in range(1 << ROW)],
    dtype=np.int64,
)


@njit(cache=True, error_model="numpy")
def random_action(bits, rng):
    """An action drawn uniformly from the non-empty 6-bit legal mask ``bits``."""
    return _ACTION_LIST[bits, random_below(rng, _ACTION_COUNT[bits])]


@njit(cache=True, error_model="numpy")
def random_playout(pits, stores, player, ply, max_plies, rules, keys, rng):
    """Play uniformly random legal moves in place until the game ends (board settled); return ``(status, ply)``.

    The position must be live and ``keys`` its repetition set (holding its own key); the set is consumed. The
    whole game runs inside compiled code, repetition tracking included.
    """
    packed = end_status(pits, stores, player, ply, max_plies, False, rules)
    while True:
        captured = apply_action(pits, stores, player, random_action(packed >> STATUS_BITS, rng), rules)
        player = 1 - player
        ply += 1
        if captured:
            key_set_clear(keys)
        elif key_set_full(keys):
            keys = key_set_grown(keys)
        repeated = not key_set_insert(keys, position_key(pits, player))
        packed = end_status(pits, stores, player, ply, max_plies, repeated, rules)
        status = packed & ((1 << STATUS_BITS) - 1)
        if status != ONGOING:
            settle(pits, stores, status, rules)
            return status, ply


@njit(cache=True, error_model="numpy")
def random_playouts(pits, stores, player, ply, max_plies, rules, count, rng):
    """Play ``count`` random games from one live position (its repetition set: itself only); return the total plies
    played (for benchmarks and rollouts)."""
    work_pits = pits.copy()
    work_stores = stores.copy()
    keys = key_set_new(256)
    start_key = position_key(pits, player)
    plies = 0
    for _ in range(count):
        work_pits[:] = pits
        work_stores[:] = stores
        key_set_clear(keys)
        keys, _ = key_set_add(keys, start_key)
        _, end_ply = random_playout(work_pits, work_stores, player, ply, max_plies, rules, keys, rng)
        plies += end_ply - ply
    return plies
