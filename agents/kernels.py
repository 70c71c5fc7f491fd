"""The compiled search agents' view of every game: a handful of kernels with one implementation per game, each calling
the game's own core (:mod:`awale_env.core.awale16`, :mod:`~awale_env.core.oware`, :mod:`~awale_env.core.hawalis`),
so that alpha-beta and MCTS are written once for all games and nothing here re-implements a rule.

A position in the searches is the same few arrays for every game: ``board`` (``int8``, the game core's layout),
``stores`` (``int16[2]``: seeds captured, or Hawalis's ``captured``, grown by each move's captures), the player to
move, the ply and the ply limit (``NO_LIMIT`` = 0 for none). The game travels as an ``env``, a named tuple whose
class names the game (:class:`Awale16Env`, :class:`OwareEnv`, :class:`HawalisEnv`) and whose fields hold its extra
state, nothing more (each array in it costs reference counting at every call): ``flags`` (Oware's ``rules.code``,
Hawalis's endless-move mode), Hawalis's ``scratch``, and for Oware's repetition rule the root's sorted keys and per
search height the searched line's keys and the height of its last capture (alpha-beta), which :func:`repeated`,
:func:`track_line` and :func:`record` read and keep.

Each kernel dispatches on the env's class: in Python by a table, in compiled code by a numba ``overload`` that picks
the game's implementation while compiling, so every search is compiled once per game with no game test left in its
loops (a run-time game number cost the two-colour alpha-beta a third of its speed in reference counting), and the
compiled searches stay cached on disk (numba does not cache functions that take jitted functions as arguments).
"""

from __future__ import annotations

import inspect
from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit
from numba.extending import overload

from awale_env.core import awale16 as a16
from awale_env.core import hawalis as hw
from awale_env.core import oware as ow
from awale_env.games import game_of

NO_LIMIT = 0
ONGOING = 0  # every core's status code of a live game
DRAW = -1  # what :func:`winner` returns when nobody wins
ENDLESS = -1  # what :func:`move` returns for a Hawalis move that never ends (the board is left unchanged)

Awale16Env = namedtuple("Awale16Env", ("flags",))
OwareEnv = namedtuple("OwareEnv", ("flags", "root_keys", "path_keys", "since"))
HawalisEnv = namedtuple("HawalisEnv", ("flags", "scratch"))


@dataclass(frozen=True)
class GameKernels:
    """A game as the searches see it: its env class, and the sizes they allocate by: actions, board slots, most legal
    moves at once, most seeds in one slot and in one store (for Zobrist keys)."""

    env_type: type
    num_actions: int
    board_size: int
    max_moves: int
    max_count: int
    max_store: int


KERNELS = {
    "awale16": GameKernels(
        Awale16Env, a16.NUM_ACTIONS, a16.NUM_ACTIONS, a16.NUM_HOLES, a16.TOTAL_SEEDS, a16.TOTAL_SEEDS
    ),
    "oware": GameKernels(OwareEnv, ow.NUM_ACTIONS, ow.NUM_PITS, ow.NUM_ACTIONS, ow.TOTAL_SEEDS, ow.TOTAL_SEEDS),
    "hawalis": GameKernels(
        HawalisEnv, hw.NUM_ACTIONS, hw.BOARD_SIZE, hw.NUM_ACTIONS, hw.SEEDS_PER_SIDE, hw.SEEDS_PER_SIDE
    ),
}


@dataclass(frozen=True)
class Root:
    """A State as the compiled searches take it (fresh arrays, the State is not touched)."""

    kernels: GameKernels
    board: np.ndarray
    stores: np.ndarray
    player: int
    ply: int
    max_plies: int
    flags: int
    keys: np.ndarray  # Oware: the repetition set's keys, sorted; empty for the other games

    def env(self, scratch: np.ndarray, path_keys: np.ndarray, since: np.ndarray) -> Any:
        """The game's env for a search from here: ``scratch`` from :func:`new_scratch`; ``path_keys`` and ``since``
        (int64, one per search height) hold Oware's searched line (alpha-beta; any array elsewhere)."""
        env_type = self.kernels.env_type
        if env_type is OwareEnv:
            return OwareEnv(self.flags, self.keys, path_keys, since)
        return HawalisEnv(self.flags, scratch) if env_type is HawalisEnv else Awale16Env(self.flags)


def root_of(state: object) -> Root:
    """The search position of any game's State (ValueError for an object that is no game's State)."""
    name = game_of(state).name
    max_plies = NO_LIMIT if state.max_plies is None else int(state.max_plies)
    board = np.array(state.seeds if name == "awale16" else state.pits, dtype=np.int8)
    flags, keys = 0, np.zeros(0, dtype=np.int64)
    if name == "oware":
        flags, keys = state.rules.code, state.repetition_keys
    elif name == "hawalis":
        flags = state.rules.endless_code
    stores = np.array(state.stores, dtype=np.int16)
    return Root(KERNELS[name], board, stores, state.to_move, state.ply, max_plies, flags, keys)


def new_scratch() -> np.ndarray:
    """Work space of the kernels (Hawalis simulates moves in it)."""
    return hw.new_scratch()


def _per_game(awale16: Callable, oware: Callable, hawalis: Callable) -> Callable[[Callable], Callable]:
    """Make a kernel of the signature of the decorated stub out of one jitted implementation per game: called from
    Python it picks the implementation by the env's class, compiled it is an ``overload`` resolved while typing."""
    impls = {Awale16Env: awale16, OwareEnv: oware, HawalisEnv: hawalis}

    def decorate(stub: Callable) -> Callable:
        def kernel(env: Any, *args: Any) -> Any:
            return impls[type(env)](env, *args)

        def typer(env: Any, *args: Any) -> Callable:
            impl = impls[env.instance_class]
            return getattr(impl, "py_func", impl)

        kernel.__name__, kernel.__qualname__, kernel.__doc__ = stub.__name__, stub.__qualname__, stub.__doc__
        kernel.__signature__ = typer.__signature__ = inspect.signature(stub)
        overload(kernel)(typer)
        return kernel

    return decorate


# --- the implementations, one per game ------------------------------------------------------------------------------


@njit(cache=True, error_model="numpy")
def _legal_awale16(env, board, player):
    return a16.legal_bits(board, player)


@njit(cache=True, error_model="numpy")
def _legal_oware(env, board, player):
    return ow.legal_bits(board, player, env.flags)


@njit(cache=True, error_model="numpy")
def _legal_hawalis(env, board, player):
    return hw.legal_bits(board, player, env.flags, env.scratch)


@njit(cache=True, error_model="numpy")
def _moves_awale16(env, board, player, out):
    n = 0
    for a in range(2 * player, a16.NUM_ACTIONS, 4):  # the player's own holes, both colours
        out[n] = a
        n += board[a] > 0
        out[n] = a + 1
        n += board[a + 1] > 0
    return n


@njit(cache=True, error_model="numpy")
def _moves_of_bits(bits, out):
    n = 0
    a = 0
    while bits >> a:
        out[n] = a
        n += (bits >> a) & 1
        a += 1
    return n


@njit(cache=True, error_model="numpy")
def _moves_oware(env, board, player, out):
    return _moves_of_bits(ow.legal_bits(board, player, env.flags), out)


@njit(cache=True, error_model="numpy")
def _moves_hawalis(env, board, player, out):
    return _moves_of_bits(hw.legal_bits(board, player, env.flags, env.scratch), out)


@njit(cache=True, error_model="numpy")
def _move_awale16(env, board, stores, player, action):
    return a16.apply_action(board, stores, player, action)


@njit(cache=True, error_model="numpy")
def _move_oware(env, board, stores, player, action):
    return ow.apply_action(board, stores, player, action, env.flags)


@njit(cache=True, error_model="numpy")
def _move_hawalis(env, board, stores, player, action):
    moved = hw.apply_move(board, player, action, env.scratch)
    if moved == hw.ENDLESS:
        return ENDLESS
    captured = moved & 0xFF
    stores[player] += captured
    return captured


@njit(cache=True, error_model="numpy")
def _status_awale16(env, board, stores, to_move, ply, max_plies, gained, repeated):
    return a16.end_status(a16.board_total(board), int(stores[0]), int(stores[1]), ply, max_plies)


@njit(cache=True, error_model="numpy")
def _status_oware(env, board, stores, to_move, ply, max_plies, gained, repeated):
    code = ow.end_status(board, stores, to_move, ply, max_plies, repeated, env.flags) & ((1 << ow.STATUS_BITS) - 1)
    if code != ONGOING:
        ow.settle(board, stores, code, env.flags)
    return code


@njit(cache=True, error_model="numpy")
def _status_hawalis(env, board, stores, to_move, ply, max_plies, gained, repeated):
    if gained == ENDLESS:
        return hw.ENDLESS_MOVE
    return hw.end_status(board, to_move, ply, max_plies, env.flags, env.scratch) & 7


@njit(cache=True, error_model="numpy")
def _higher_store(env, board, stores, code, to_move):
    if stores[0] > stores[1]:
        return 0
    if stores[1] > stores[0]:
        return 1
    return DRAW


@njit(cache=True, error_model="numpy")
def _winner_hawalis(env, board, stores, code, to_move):
    return hw.winner(board, code, to_move)


@njit(cache=True, error_model="numpy")
def _playout_awale16(env, board, stores, player, ply, max_plies, keys, rng):
    a16.random_playout(board, stores, player, ply, max_plies, rng)
    return _higher_store(env, board, stores, 0, player)


@njit(cache=True, error_model="numpy")
def _playout_oware(env, board, stores, player, ply, max_plies, keys, rng):
    ow.random_playout(board, stores, player, ply, max_plies, env.flags, keys, rng)
    return _higher_store(env, board, stores, 0, player)


@njit(cache=True, error_model="numpy")
def _playout_hawalis(env, board, stores, player, ply, max_plies, keys, rng):
    _, won, _ = hw.random_playout(board, player, ply, max_plies, env.flags, rng)
    return won


@njit(cache=True, error_model="numpy")
def _never_repeated(env, board, to_move, height):
    return False


@njit(cache=True, error_model="numpy")
def _repeated_oware(env, board, to_move, height):
    key = ow.position_key(board, to_move)
    start = env.since[height]
    for i in range(start, height + 1):
        if env.path_keys[i] == key:
            return True
    if start == 0:
        j = np.searchsorted(env.root_keys, key)
        return j < env.root_keys.shape[0] and env.root_keys[j] == key
    return False


@njit(cache=True, error_model="numpy")
def _no_line(env, height, board, to_move, captured):
    return None


@njit(cache=True, error_model="numpy")
def _line_oware(env, height, board, to_move, captured):
    env.path_keys[height] = ow.position_key(board, to_move)
    env.since[height] = height if captured or height == 0 else env.since[height - 1]


@njit(cache=True, error_model="numpy")
def _no_record(env, keys, board, to_move, gained, restart):
    return keys, False


@njit(cache=True, error_model="numpy")
def _record_oware(env, keys, board, to_move, gained, restart):
    if restart:
        ow.key_set_clear(keys)
        for i in range(env.root_keys.shape[0]):
            ow.key_set_insert(keys, env.root_keys[i])
        return keys, False
    if gained > 0:
        ow.key_set_clear(keys)
    elif ow.key_set_full(keys):
        keys = ow.key_set_grown(keys)
    return keys, not ow.key_set_insert(keys, ow.position_key(board, to_move))


@njit(cache=True, error_model="numpy")
def _observe_awale16(env, board, stores, ply, max_plies, player, out):
    a16.observe(board, stores, ply, max_plies, player, out)


@njit(cache=True, error_model="numpy")
def _observe_oware(env, board, stores, ply, max_plies, player, out):
    ow.observe(board, stores, ply, max_plies, player, out)


@njit(cache=True, error_model="numpy")
def _observe_hawalis(env, board, stores, ply, max_plies, player, out):
    hw.observe(board, ply, max_plies, player, out)


@njit(cache=True, error_model="numpy")
def _same_env(env, keys):
    return env


@njit(cache=True, error_model="numpy")
def _rooted_oware(env, keys):
    return OwareEnv(env.flags, keys, env.path_keys, env.since)


# --- the kernels ------------------------------------------------------------------------------------------------------


@_per_game(_legal_awale16, _legal_oware, _legal_hawalis)
def legal(env, board, player):
    """The legal actions of ``player`` in a live position, as a bit mask (bit ``a`` for action ``a``)."""


@_per_game(_moves_awale16, _moves_oware, _moves_hawalis)
def moves(env, board, player, out):
    """Write the legal actions of ``player`` in a live position into ``out`` in increasing order; return how many."""


@_per_game(_move_awale16, _move_oware, _move_hawalis)
def move(env, board, stores, player, action):
    """Play a legal action in place; return the seeds it captured (added to ``stores[player]``), or ``ENDLESS`` for
    a Hawalis move that never ends (nothing changed: the game is over, see :func:`status`)."""


@_per_game(_status_awale16, _status_oware, _status_hawalis)
def status(env, board, stores, to_move, ply, max_plies, gained, repeated):
    """The status code (``ONGOING`` = 0) of the position a move gaining ``gained`` led to, ``to_move`` to play.

    ``repeated``: Oware's rule 9 (the caller keeps the repetition set). A finished Oware game is settled in place
    (seeds collected as its rules say), so that :func:`winner` reads the final stores.
    """


@_per_game(_higher_store, _higher_store, _winner_hawalis)
def winner(env, board, stores, code, to_move):
    """0 or 1 for the winner of a finished game (status ``code``, ``to_move`` to play), ``DRAW`` for none: the
    higher store (Oware's settled), Hawalis's own rules."""


@_per_game(_playout_awale16, _playout_oware, _playout_hawalis)
def playout(env, board, stores, player, ply, max_plies, keys, rng):
    """Play uniformly random legal moves in place from a live position to the end with the game's compiled
    ``random_playout``; return the winner (``DRAW`` for none). ``keys``: Oware's repetition set, consumed."""


@_per_game(_never_repeated, _repeated_oware, _never_repeated)
def repeated(env, board, to_move, height):
    """Oware's rule 9 in alpha-beta, for a position reached without a capture as a child of the searched line's
    node at ``height``: whether it is among the line's positions since its last capture (:func:`track_line`) or,
    if the line has none, in the root's set. False for the other games."""


@_per_game(_no_line, _line_oware, _no_line)
def track_line(env, height, board, to_move, captured):
    """Record the searched line's position at ``height`` (reached by a capture or not) for :func:`repeated`."""


@_per_game(_no_record, _record_oware, _no_record)
def record(env, keys, board, to_move, gained, restart):
    """Oware's rule 9 in MCTS, with the repetition set ``keys`` of the simulation: ``restart`` resets it to the
    root's; otherwise the position just reached by a move gaining ``gained`` goes in (a capture clears the set
    first). Returns ``(keys, repeated)``: keep the returned set, which may be a larger copy."""


@_per_game(_observe_awale16, _observe_oware, _observe_hawalis)
def observe(env, board, stores, ply, max_plies, player, out):
    """Write ``player``'s view of the position into ``out`` (float32[obs_size]): the game's ``observe``, the layout
    of its ``State.observation_tensor``, for networks evaluating search leaves."""


@_per_game(_same_env, _rooted_oware, _same_env)
def rooted(env, keys):
    """The env of a search from another root whose Oware repetition keys (sorted) are ``keys``: searches over many
    positions at once (AlphaZero's batched search) share one env and re-root it per position. The env itself for
    the other games."""
