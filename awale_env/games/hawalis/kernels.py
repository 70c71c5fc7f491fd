"""Compiled rules of Hawalis, the Omani 4 x 7 relay-sowing mancala (see docs/rules_hawalis.md).

A position is one small array plus plain integers, so that positions can be stacked into batches:

* ``pits``: ``int8[28]``, South's 14 pits then North's 14, each side in its owner's local indexing (rule 2):
  ``pits[14 * player + k]``, ``k = 0..6`` the outer row, ``k = 7..13`` the inner row. A side never holds more than
  its owner's 28 seeds (seeds never cross), so ``int8`` cannot overflow.
* ``player`` (to move), ``ply`` (plies played), ``max_plies`` (``NO_LIMIT`` = 0 for none) and ``endless_mode``
  (``ENDLESS_LOSES`` / ``ENDLESS_ILLEGAL``, rule 8) are plain integers.

Kernels that may have to simulate a move take a ``scratch`` array (``int8[SCRATCH_SIZE]``, see :func:`new_scratch`)
so that nothing is allocated per move. Everything is compiled with numba; with ``NUMBA_DISABLE_JIT=1`` the same
code runs as plain Python with identical results (tests check this), hence the ``int()`` conversions before
arithmetic and the shared hand-written xorshift generator of :mod:`awale_env.kernels.rng`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from awale_env.kernels.rng import random_below

SIDE = 14  # pits per player, also the number of actions
NUM_ACTIONS = SIDE
BOARD_SIZE = 2 * SIDE
INNER = 7  # local indices 7..13 are the inner row
SEEDS_PER_SIDE = 28
NO_LIMIT = 0

# Rule flags as small integers.
ENDLESS_LOSES = 0
ENDLESS_ILLEGAL = 1
ENDLESS_MODES = ("loses", "illegal")

# Game status codes, named by END_REASONS (rules 9, 10, 8 and 11).
ONGOING, OPPONENT_EMPTY, NO_LEGAL_MOVE, ENDLESS_MOVE, PLY_LIMIT = range(5)
END_REASONS = (None, "opponent_empty", "no_legal_move", "endless_move", "ply_limit")
NO_WINNER = -1  # a draw, or a game still going

# relay_sow's answer for a move that never ends (rule 8), and the safety cap on its laps, treated the same. Among
# tens of millions of moves from random sides of 2-28 seeds, no finite move took 1,000 laps and the exact detection
# (Brent's cycle finding, see relay_sow) caught every endless one within about 230,000 laps: the cap is far above both,
# so it only bounds the cost of a pathological case.
ENDLESS = -1
MAX_LAPS = 1 << 20

SCRATCH_SIZE = 2 * SIDE  # a backup of the mover's side, then the cycle finder's saved side
SEED_DTYPE = np.int8


def initial_pits() -> np.ndarray:
    """2 seeds in each of the 28 pits (rule 1)."""
    return np.full(BOARD_SIZE, 2, dtype=SEED_DTYPE)


def new_scratch() -> np.ndarray:
    """Work space for the kernels that simulate moves."""
    return np.zeros(SCRATCH_SIZE, dtype=SEED_DTYPE)


@njit(cache=True, error_model="numpy")
def side_total(pits, player):
    """Seeds on ``player``'s side."""
    total = 0
    base = SIDE * player
    for k in range(base, base + SIDE):
        total += int(pits[k])
    return total


@njit(cache=True, error_model="numpy")
def rule_bits(pits, player):
    """The moves rule 5 allows ``player``, as a 14-bit mask (endless moves included).

    Pits holding 2 or more if there is one; otherwise singletons whose successor is empty. Branch-free: both masks
    are built in one pass.
    """
    base = SIDE * player
    big = 0
    single = 0
    for k in range(SIDE):
        v = pits[base + k]
        nxt = pits[base + (k + 1 if k < SIDE - 1 else 0)]
        big |= (1 if v >= 2 else 0) << k
        single |= (1 if v == 1 and nxt == 0 else 0) << k
    return big if big else single


@njit(cache=True, error_model="numpy")
def relay_sow(side, k, saved):
    """Relay-sow from local pit ``k`` in place on ``side`` (one player's 14 pits, rule 6).

    Returns ``last_pit | laps << 4`` (laps = sowing rounds, the first included), or ``ENDLESS`` (``side`` then holds
    an intermediate position) when the move never ends (rule 8). The keys of rule 8, (own pits after a pick-up,
    pos), follow one another deterministically: the hand is the side's constant total minus the pits. So a key
    repeats exactly when the sequence is eventually periodic, which Brent's cycle finding detects exactly with one
    saved key (``saved``, ``int8[14]``) instead of a table of all keys (some cycles are ~10^5 keys long); laps
    beyond ``MAX_LAPS`` count as endless too. The search starts at the second key, which changes nothing (the
    sequence repeats iff its tail does) and spares the copy for the many moves that end without a relay.
    """
    hand = int(side[k])
    side[k] = 0
    pos = k
    saved_pos = -1  # nothing saved yet: the first relay's key is saved at once
    power = 1
    since_saved = 0
    laps = 1
    while True:
        for _ in range(hand):
            pos = pos + 1 if pos < SIDE - 1 else 0
            side[pos] += 1
        hand = int(side[pos])
        if hand == 1:
            return pos | (laps << 4)
        side[pos] = 0
        laps += 1
        if laps > MAX_LAPS:
            return ENDLESS
        if pos == saved_pos:
            same = True
            for i in range(SIDE):
                if side[i] != saved[i]:
                    same = False
                    break
            if same:
                return ENDLESS
        since_saved += 1
        if since_saved == power:
            saved[:] = side
            saved_pos = pos
            power *= 2
            since_saved = 0


@njit(cache=True, error_model="numpy")
def is_endless(pits, player, k, scratch):
    """Whether ``player``'s move from pit ``k`` never ends; ``pits`` is left unchanged."""
    work = scratch[:SIDE]
    base = SIDE * player
    work[:] = pits[base : base + SIDE]
    return relay_sow(work, k, scratch[SIDE:]) == ENDLESS


@njit(cache=True, error_model="numpy")
def legal_bits(pits, player, endless_mode, scratch):
    """The legal moves of ``player`` as a 14-bit mask: rule 5, less the endless moves under ``ENDLESS_ILLEGAL``."""
    bits = rule_bits(pits, player)
    if endless_mode == ENDLESS_ILLEGAL:
        for k in range(SIDE):
            if (bits >> k) & 1 and is_endless(pits, player, k, scratch):
                bits &= ~(1 << k)
    return bits


@njit(cache=True, error_model="numpy")
def legal_mask(pits, player, endless_mode, scratch, out):
    """Write the boolean legal-action mask of ``player`` into ``out`` (length 14)."""
    bits = legal_bits(pits, player, endless_mode, scratch)
    for k in range(SIDE):
        out[k] = (bits >> k) & 1


@njit(cache=True, error_model="numpy")
def has_legal_move(pits, player, endless_mode, scratch):
    """Whether ``player`` has a legal move; stops at the first one found."""
    bits = rule_bits(pits, player)
    if endless_mode != ENDLESS_ILLEGAL or bits == 0:
        return bits != 0
    for k in range(SIDE):
        if (bits >> k) & 1 and not is_endless(pits, player, k, scratch):
            return True
    return False


@njit(cache=True, error_model="numpy")
def capture(pits, player, pos):
    """Capture where ``player``'s sowing ended at ``pos`` (rule 7); return the seeds taken off the board."""
    if pos < INNER:
        return 0
    base = SIDE * (1 - player)
    facing = base + 20 - pos
    taken = int(pits[facing])
    if taken == 0:
        return 0
    behind = base + pos - INNER
    taken += int(pits[behind])
    pits[facing] = 0
    pits[behind] = 0
    return taken


@njit(cache=True, error_model="numpy")
def apply_move(pits, player, action, scratch):
    """Play ``player``'s rule-5 move ``action`` in place: relay sowing, then capture.

    Returns ``captured | last_pit << 8 | laps << 12``, or ``ENDLESS`` with ``pits`` unchanged (rule 8).
    """
    base = SIDE * player
    side = pits[base : base + SIDE]
    backup = scratch[:SIDE]
    backup[:] = side
    sown = relay_sow(side, action, scratch[SIDE:])
    if sown == ENDLESS:
        side[:] = backup
        return ENDLESS
    pos = sown & 15
    return capture(pits, player, pos) | (pos << 8) | ((sown >> 4) << 12)


@njit(cache=True, error_model="numpy")
def end_status(pits, to_move, ply, max_plies, endless_mode, scratch):
    """Status of a position reached by a finite move, with ``to_move``'s legal bits while it goes on.

    Returns ``status | bits << 3``; the checks follow the rules' order: the player to move has no seed (rule 9),
    has no legal move (rule 10), the ply limit (rule 11).
    """
    if side_total(pits, to_move) == 0:
        return OPPONENT_EMPTY
    bits = legal_bits(pits, to_move, endless_mode, scratch)
    if bits == 0:
        return NO_LEGAL_MOVE
    if max_plies != NO_LIMIT and ply >= max_plies:
        return PLY_LIMIT
    return ONGOING | (bits << 3)


@njit(cache=True, error_model="numpy")
def winner(pits, status, to_move):
    """0 or 1 for a finished game, ``NO_WINNER`` for a draw or a live game (rules 8-11)."""
    if status == OPPONENT_EMPTY or status == NO_LEGAL_MOVE:
        return 1 - to_move
    if status == ENDLESS_MOVE:
        return to_move  # the player who chose the endless move is the other one
    if status == PLY_LIMIT:
        south, north = side_total(pits, 0), side_total(pits, 1)
        if south != north:
            return 0 if south > north else 1
    return NO_WINNER


@njit(cache=True, error_model="numpy")
def step(pits, player, action, ply, max_plies, endless_mode, scratch):
    """One ply for the State API in a single compiled call; ``action`` must be legal.

    Returns ``status | next legal bits << 3 | captured << 17 | last_pit << 23 | laps << 27`` packed into one
    integer (laps 0: an endless move, which under ``ENDLESS_LOSES`` ends the game with the board unchanged).
    """
    moved = apply_move(pits, player, action, scratch)
    if moved == ENDLESS:
        return ENDLESS_MOVE
    after = end_status(pits, 1 - player, ply + 1, max_plies, endless_mode, scratch)
    return after | ((moved & 0xFF) << 17) | (((moved >> 8) & 15) << 23) | ((moved >> 12) << 27)


# --- the board from one player's point of view -------------------------------------------------------------------

OBS_SIZE = BOARD_SIZE + 1
SEED_SCALE = 16.0  # as the two-colour game: a pit rarely holds more than 16 seeds


@njit(cache=True, error_model="numpy")
def observe(pits, ply, max_plies, player, out):
    """Write ``player``'s view of the position into ``out`` (float32, length ``OBS_SIZE``).

    ``out[0:14]`` = the viewer's pits / 16 in local indexing (so actions map to ``out[action]`` for both seats),
    ``out[14:28]`` = the opponent's pits / 16, ``out[28]`` = fraction of ``max_plies`` played (0 without a limit).
    """
    own = SIDE * player
    other = SIDE * (1 - player)
    for k in range(SIDE):
        out[k] = pits[own + k] / SEED_SCALE
        out[SIDE + k] = pits[other + k] / SEED_SCALE
    out[BOARD_SIZE] = 0.0 if max_plies == NO_LIMIT else min(ply / max_plies, 1.0)


# --- random play -------------------------------------------------------------------------------------------------


@njit(cache=True, error_model="numpy")
def random_legal_action(pits, player, endless_mode, rng, scratch, candidates):
    """A legal action of ``player`` drawn uniformly, or -1 if there is none; ``candidates``: int array, length 14.

    Under ``ENDLESS_ILLEGAL`` a drawn endless move is struck off and the draw repeated, which is uniform over the
    legal moves and simulates only the moves drawn.
    """
    bits = rule_bits(pits, player)
    count = 0
    for k in range(SIDE):
        candidates[count] = k
        count += (bits >> k) & 1
    while count > 0:
        i = random_below(rng, count)
        action = candidates[i]
        if endless_mode != ENDLESS_ILLEGAL or not is_endless(pits, player, action, scratch):
            return action
        count -= 1
        candidates[i] = candidates[count]
    return -1


@njit(cache=True, error_model="numpy")
def random_playout(pits, player, ply, max_plies, endless_mode, rng):
    """Play uniformly random legal moves in place until the game ends; return ``(status, winner, ply)``.

    The position must be live (``end_status`` ONGOING). The whole game runs in compiled code. Under
    ``ENDLESS_ILLEGAL`` an endless move is struck off when drawn and another one drawn (as in
    :func:`random_legal_action`), so each ply usually sows only the move that is played.
    """
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int8)
    candidates = np.empty(SIDE, dtype=np.int64)
    status = ONGOING
    while True:
        if max_plies != NO_LIMIT and ply >= max_plies:
            status = PLY_LIMIT if has_legal_move(pits, player, endless_mode, scratch) else NO_LEGAL_MOVE
            break
        bits = rule_bits(pits, player)
        count = 0
        for k in range(SIDE):
            candidates[count] = k
            count += (bits >> k) & 1
        moved = ENDLESS
        while count > 0:
            i = random_below(rng, count)
            moved = apply_move(pits, player, candidates[i], scratch)
            if moved != ENDLESS or endless_mode != ENDLESS_ILLEGAL:
                break
            count -= 1
            candidates[i] = candidates[count]
        if count == 0:
            status = NO_LEGAL_MOVE
            break
        ply += 1
        player = 1 - player
        if moved == ENDLESS:
            status = ENDLESS_MOVE
            break
        if moved & 0xFF and side_total(pits, player) == 0:  # only a capture can empty the opponent's side
            status = OPPONENT_EMPTY
            break
    return status, winner(pits, status, player), ply


@njit(cache=True, error_model="numpy")
def random_playouts(pits, player, ply, max_plies, endless_mode, count, rng):
    """Play ``count`` random games from one live position; return the total plies played (benchmarks, rollouts)."""
    work = pits.copy()
    plies = 0
    for _ in range(count):
        work[:] = pits
        _, _, end_ply = random_playout(work, player, ply, max_plies, endless_mode, rng)
        plies += end_ply - ply
    return plies
