"""Every game as compiled code sees it: a handful of kernels with one implementation per game, each in the game's own
``search`` module (:class:`awale_env.kernels.search.SearchKernels`, ``Game.search``), so that alpha-beta, MCTS and the
vector env's stepper (:mod:`awale_env.kernels.stepper`) are written once for all games and nothing here knows a game or
re-implements a rule.

A position in the searches is the same few arrays for every game: ``board`` (``int8``, the game core's layout),
``stores`` (``int16[2]``: seeds captured, grown by each move's captures), the player to move, the ply and the ply
limit (``NO_LIMIT`` = 0 for none). The game travels as an ``env``, a named tuple whose class names the game
(``SearchKernels.env_type``) and whose fields hold its extra state (:meth:`Root.env`).

Each kernel dispatches on the env's class: in Python by looking the game up, in compiled code by a numba
``overload`` that picks the game's implementation while compiling, so every search is compiled once per game with no
game test left in its loops (a run-time game number cost the two-colour alpha-beta a third of its speed in reference
counting), and the compiled searches stay cached on disk (numba does not cache functions that take jitted functions
as arguments). The game of an env class is looked up among the registered games when first needed, so a game
registered after this module loaded (a test's toy game) is searched the same way.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from numba.extending import overload

from awale_env.games import GAMES, game_of
from awale_env.kernels.search import (
    DRAW,
    FEATURES,
    MAX_CELLS,
    NO_LIMIT,
    NUM_FEATURES,
    ONGOING,
    UNSOLVED,
    Root,
    SearchKernels,
    moves_of_bits,
    new_scratch,
)

__all__ = [
    "DRAW",
    "FEATURES",
    "MAX_CELLS",
    "NUM_FEATURES",
    "NO_LIMIT",
    "ONGOING",
    "UNSOLVED",
    "Root",
    "SearchKernels",
    "cells",
    "features",
    "inlined",
    "kernels_of",
    "legal",
    "move",
    "moves",
    "new_scratch",
    "next_player",
    "observe",
    "playout",
    "decided",
    "solved",
    "record",
    "repeated",
    "root_of",
    "rooted",
    "status",
    "track_line",
    "winner",
]

_BY_ENV_TYPE: dict[type, SearchKernels] = {}


def kernels_of(env_type: type) -> SearchKernels:
    """The search kernels of a registered game whose env class is ``env_type`` (LookupError for none): games that
    share an env class (the editions with transparent seeds) share every kernel's implementation, so any of them
    serves."""
    kernels = _BY_ENV_TYPE.get(env_type)
    if kernels is None:
        for game in GAMES.values():
            try:
                search = game.search
            except NotImplementedError:
                continue
            _BY_ENV_TYPE[search.env_type] = search
        kernels = _BY_ENV_TYPE.get(env_type)
    if kernels is None:
        raise LookupError(f"{env_type.__name__} is the search env of no registered game")
    return kernels


def root_of(state: object) -> Root:
    """The search position of any game's State (ValueError for an object that is no game's State)."""
    return game_of(state).search.root(state)


def _implementation(kernels: SearchKernels, name: str) -> Callable:
    """The game's implementation of kernel ``name``, or the default built on its other kernels where it gives none."""
    impl = getattr(kernels, name)
    return _DEFAULTS[name] if impl is None else impl


#: Each kernel's twin that compiled code inlines (:func:`inlined`), by kernel name.
_INLINED: dict[str, Callable] = {}


def inlined(kernel: Callable) -> Callable:
    """``kernel`` inlined into its compiled caller (numba's IR inlining) instead of called: the vector env's stepper
    calls a few kernels per move, and a call each, with its row views and env passed, cost the stepper half its
    speed. The searches keep the calls (inlining all of them there only lengthens their compiles)."""
    return _INLINED[kernel.__name__]


def _per_game(stub: Callable) -> Callable:
    """Make a kernel of the signature of the decorated stub out of the game's implementation of the same name
    (:class:`SearchKernels`): called from Python it picks the implementation by the env's class, compiled it is an
    ``overload`` resolved while typing (and its twin for :func:`inlined` one inlined)."""
    _INLINED[stub.__name__] = _overloaded(stub, inline="always")
    return _overloaded(stub, inline="never")


def _overloaded(stub: Callable, inline: str) -> Callable:
    """One kernel of :func:`_per_game`, compiled with numba's ``inline`` option ``inline``."""
    name = stub.__name__

    def kernel(env: Any, *args: Any) -> Any:
        return _implementation(kernels_of(type(env)), name)(env, *args)

    def typer(env: Any, *args: Any) -> Callable:
        impl = _implementation(kernels_of(env.instance_class), name)
        return getattr(impl, "py_func", impl)

    kernel.__name__, kernel.__qualname__, kernel.__doc__ = stub.__name__, stub.__qualname__, stub.__doc__
    kernel.__signature__ = typer.__signature__ = inspect.signature(stub)
    overload(kernel, inline=inline)(typer)
    return kernel


@_per_game
def legal(env, board, player):
    """The legal actions of ``player`` in a live position, as a bit mask (bit ``a`` for action ``a``)."""


@_per_game
def moves(env, board, player, out):
    """Write the legal actions of ``player`` in a live position into ``out`` in increasing order; return how many."""


@_per_game
def move(env, board, stores, player, action):
    """Play a legal action in place; return the seeds it captured (added to ``stores[player]``), or a negative code
    for a move the rules end the game on instead (Hawalis's endless move: nothing changed, see :func:`status`)."""


@_per_game
def next_player(env, board, player, action):
    """The player to move after ``player`` plays the legal ``action`` on ``board``, asked *before* the move is played
    (the board is not changed): the other player, or the mover again in a game whose move can give another turn
    (Kalah). The searches keep this per node and change a value's sign only where it differs from the mover."""


@_per_game
def status(env, board, stores, to_move, ply, max_plies, gained, repeated):
    """The status code (``ONGOING`` = 0) of the position a move gaining ``gained`` led to, ``to_move`` to play.

    ``repeated``: the repetition rule (the caller keeps the repetition set). A finished game whose rules collect the
    seeds left (Oware) is settled in place, so that :func:`winner` reads the final stores.
    """


@_per_game
def status_legal(env, board, stores, to_move, ply, max_plies, gained, repeated):
    """:func:`status` and, in a live position, the legal bits of ``to_move`` (0 once over), as ``(code, bits)``: one
    call for a game whose end checks find the legal moves anyway."""


@_per_game
def winner(env, board, stores, code, to_move):
    """0 or 1 for the winner of a finished game (status ``code``, ``to_move`` to play), ``DRAW`` for none: the
    higher store, or the game's own rules."""


@_per_game
def decided(env, board, stores):
    """0 or 1 for the winner of a live position that no play can change any more (a Kalah store holding more than
    half the seeds: stores never shrink), -1 while the outcome is open (always, for a game without the kernel). The
    searches score such a position as a win at once."""


@_per_game
def solved(env, table, board, player):
    """What ``player``, to move in a live position, gains over the other from the seeds left on ``board`` under
    perfect play of both, as the game's endgame ``table`` (``SearchKernels.endgame``) holds it, or ``UNSOLVED`` for a
    position the table does not hold (always, for a game without a table). A position's final store difference for
    ``player`` is then its store difference plus this."""


@_per_game
def playout(env, board, stores, player, ply, max_plies, keys, rng):
    """Play uniformly random legal moves in place from a live position to the end with the game's compiled
    ``random_playout``; return the winner (``DRAW`` for none). ``keys``: the repetition set, consumed."""


@_per_game
def repeated(env, board, to_move, height):
    """The repetition rule in alpha-beta, for a position reached without a capture as a child of the searched line's
    node at ``height``: whether it is among the line's positions since its last capture (:func:`track_line`) or,
    if the line has none, in the root's set. False for a game without the rule."""


@_per_game
def track_line(env, height, board, to_move, captured):
    """Record the searched line's position at ``height`` (reached by a capture or not) for :func:`repeated`."""


@_per_game
def record(env, keys, board, to_move, gained, restart):
    """The repetition rule in MCTS, with the repetition set ``keys`` of the simulation (``SearchKernels.new_key_set``):
    ``restart`` resets it to the root's; otherwise the position just reached by a move gaining ``gained`` goes in (a
    capture clears the set first). Returns ``(keys, repeated)``: keep the returned set, which may be a larger copy."""


@_per_game
def observe(env, board, stores, ply, max_plies, player, out):
    """Write the view of ``player``, the player to move, into ``out`` (float32[obs_size]): the game's ``observe``,
    the layout of its ``State.observation_tensor()``, for networks evaluating search leaves."""


@_per_game
def rooted(env, keys):
    """The env of a search from another root whose repetition keys (sorted) are ``keys``: searches over many
    positions at once (AlphaZero's batched search) share one env and re-root it per position. The env itself for
    a game without the rule."""


@_per_game
def features(env, board, stores, player, out):
    """Write :data:`FEATURES` of a live position from ``player``'s point of view into ``out`` (float64[NUM_FEATURES]),
    for alpha-beta's weighted evaluations; the store difference alone for a game without the kernel."""


@_per_game
def cells(env, board, stores, player, out):
    """Write the table cells of a live position from ``player``'s point of view into ``out`` (int64[MAX_CELLS]):
    indices into the game's table of ``SearchKernels.table_size`` learnt values, which alpha-beta's tuned evaluation
    adds up (as an n-tuple network does); return how many (0 for a game without the kernel)."""


def legal_moves(env, board, player, out):
    """``moves`` of a game that gives none: the actions of its legal bits, in increasing order."""
    return moves_of_bits(legal(env, board, player), out)


def status_then_legal(env, board, stores, to_move, ply, max_plies, gained, repeated):
    """``status_legal`` of a game that gives none: its ``status``, then its ``legal`` bits while the game goes on
    (both inlined, as the stepper inlines this)."""
    code = _inlined_status(env, board, stores, to_move, ply, max_plies, gained, repeated)
    return code, _inlined_legal(env, board, to_move) if code == ONGOING else 0


_inlined_status, _inlined_legal = inlined(status), inlined(legal)


#: The kernels a game may leave out (None in its :class:`SearchKernels`), built on those it gives.
_DEFAULTS = {"moves": legal_moves, "status_legal": status_then_legal}
