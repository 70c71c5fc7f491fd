"""The protocol between the compiled searches (alpha-beta, MCTS, AlphaZero's batched search, in :mod:`agents`) and a
game: :class:`SearchKernels`, which each game's ``search`` module fills with its own jitted implementations, and
the implementations most games share.

A position in the searches is the same few arrays for every game: ``board`` (``int8``, the game core's layout),
``stores`` (``int16[2]``: seeds captured, grown by each move's captures), the player to move, the ply and the ply
limit (``NO_LIMIT`` = 0 for none).

Who moves after a move is the game's ``next_player`` kernel, asked on the position *before* the move: by default the
other player (:func:`other_player`), in Kalah the mover again when its last seed lands in its own store. The searches
keep the player to move per node and change the sign of a value only where the mover changes (a negamax child of the
same mover keeps its value and window; a backup adds a leaf's value to the nodes its player moved into and subtracts it
from the others), so a game whose moves can give another turn needs nothing else. The game travels as an ``env``, a
named tuple whose class names the game and whose fields hold its extra state, nothing more (each array in it costs
reference counting at every call).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from functools import partial
from typing import Any

import numpy as np
from numba import njit

NO_LIMIT = 0
#: What ``solved`` gives for a position its endgame table does not hold.
UNSOLVED = -(1 << 15)
ONGOING = 0  # every core's status code of a live game
DRAW = -1  # what ``winner`` returns when nobody wins
#: Work space every search allocates once (:func:`new_scratch`); a game whose kernels simulate moves in it (Hawalis)
#: uses its first entries.
SCRATCH_SIZE = 64
#: What a game's ``features`` kernel writes, from the point of view of the player to move, for alpha-beta's weighted
#: evaluations: the store difference, the seeds on each side, each side's vulnerability (as the game measures it:
#: holes one seed short of a capture, or more; or the most seeds one move of the other side captures), each side's
#: legal moves, whether each side is starving (at most ``STARVING_SEEDS`` seeds), and each side's moves that give
#: another turn (0 in a game whose players alternate).
FEATURES = (
    "store_difference",
    "own_seeds",
    "opponent_seeds",
    "own_vulnerable",
    "opponent_vulnerable",
    "own_mobility",
    "opponent_mobility",
    "own_starving",
    "opponent_starving",
    "own_extra_turns",
    "opponent_extra_turns",
)
NUM_FEATURES = len(FEATURES)
STARVING_SEEDS = 2
#: The most table cells a game's ``cells`` kernel gives a position (the weighted evaluation's lookups, as an n-tuple
#: network's: each cell an index into the game's table of ``table_size`` learnt values).
MAX_CELLS = 32


@njit(cache=True, error_model="numpy")
def store_features(env, board, stores, player, out):
    """``features`` of a game that knows no more of its board: the store difference, every other feature 0."""
    out[:] = 0
    out[0] = int(stores[player]) - int(stores[1 - player])


@njit(cache=True, error_model="numpy")
def no_cells(env, board, stores, player, out):
    """``cells`` of a game without a table of learnt values: none."""
    return 0


# --- the implementations most games share ---------------------------------------------------------------------------


def no_key_set(capacity: int) -> np.ndarray:
    """The placeholder repetition set of a game without a repetition rule."""
    return np.zeros(1, dtype=np.int64)


@njit(cache=True, error_model="numpy")
def higher_store(env, board, stores, code, to_move):
    """``winner``: the higher store, ``DRAW`` for equal stores."""
    if stores[0] > stores[1]:
        return 0
    if stores[1] > stores[0]:
        return 1
    return DRAW


def own_ply_limit(root: Root) -> int:
    """``horizon`` of a game whose rules set no move limit of their own: the root's ``max_plies``."""
    return root.max_plies


@njit(cache=True, error_model="numpy")
def never_decided(env, board, stores):
    """``decided`` of a game that names no winner before the end."""
    return -1


def no_endgame(root: Root, plies: int) -> np.ndarray:
    """``endgame`` of a game without an endgame table: an empty one."""
    return np.zeros(0, dtype=np.int8)


@njit(cache=True, error_model="numpy")
def never_solved(env, table, board, player):
    """``solved`` of a game without an endgame table."""
    return UNSOLVED


@njit(cache=True, error_model="numpy")
def never_repeated(env, board, to_move, height):
    """``repeated`` of a game without a repetition rule."""
    return False


@njit(cache=True, error_model="numpy")
def no_line(env, height, board, to_move, captured):
    """``track_line`` of a game without a repetition rule."""
    return None


@njit(cache=True, error_model="numpy")
def no_record(env, keys, board, to_move, gained, restart):
    """``record`` of a game without a repetition rule."""
    return keys, False


@njit(cache=True, error_model="numpy")
def other_player(env, board, player, action):
    """``next_player`` of a game whose players alternate: the other player."""
    return 1 - player


@njit(cache=True, error_model="numpy")
def same_env(env, keys):
    """``rooted`` of a game whose env does not depend on the root."""
    return env


def flags_env(env_type: type, flags: int, root_keys: np.ndarray, scratch: np.ndarray, path_keys: np.ndarray,
              since: np.ndarray) -> Any:  # fmt: skip
    """``make_env`` of a game whose env holds its rule flags alone."""
    return env_type(flags)


@dataclass(frozen=True, kw_only=True)
class SearchKernels:
    """A game as the searches see it.

    Sizes they allocate by: actions, board slots, most legal moves at once, most seeds in one slot and in one store
    (for Zobrist keys). ``env_type`` is the named tuple class that names the game in compiled code (the searches
    are compiled once per env class: games whose implementations are all the same share one, and so every compile);
    ``make_env(flags, root_keys, scratch, path_keys, since)`` builds one (the rule flags, the root's sorted
    repetition keys, :func:`new_scratch`, and per search height the searched line's keys and the height of its last
    capture: what the game needs of them). ``root(state)`` is a State as the searches
    take it, ``new_key_set(capacity)`` the repetition set a simulation keeps (a placeholder for a game without
    one), ``random_playouts(state, count, rng)`` the total plies of ``count`` compiled random games from a State
    (benchmarks), ``horizon(root)`` the ply limit alpha-beta's table keys positions by (the plies left): the root's
    ``max_plies`` unless the rules end every game sooner (a move limit of the rules), ``endgame(root, plies)`` the
    game's endgame table (an array ``solved`` reads) where it is exact for every position within ``plies`` plies of
    the root, else an empty array (always, for a game without one: :func:`no_endgame`).

    The other fields are jitted implementations with the signatures of the kernels of :mod:`awale_env.kernels.dispatch`
    (``legal``, ``moves``, ``move``, ``next_player``, ``status``, ``status_legal``, ``winner``, ``decided``,
    ``solved``, ``playout``, ``repeated``, ``track_line``, ``record``, ``observe``, ``rooted``, ``features``,
    ``cells``), which document them; a game without ``features`` gives the store difference only
    (:func:`store_features`), a game without ``cells`` has no table of learnt values (``table_size`` 0), a game without
    ``decided`` names no winner before the end, a game without ``solved`` solves nothing, a game without ``next_player``
    makes the players alternate (:func:`other_player`), a game without ``moves`` lists the actions of its legal bits, a
    game without ``status_legal`` (the vector env's end check and legal bits in one call) calls ``status`` then
    ``legal``. By default a game offers at most ``num_actions`` moves at once, a store holds at most ``max_count`` seeds
    and the env holds the rule flags alone (:func:`flags_env`). ``reduces_late_moves``: alpha-beta's default for its
    late move reductions on this game (on where they were measured to play stronger).

    A game's ``search`` module builds them with :meth:`of_module`, which takes its functions named as the fields.
    """

    env_type: type
    num_actions: int
    board_size: int
    max_count: int
    max_moves: int = 0
    max_store: int = 0
    root: Callable[[Any], Root]
    make_env: Callable[..., Any] | None = None
    random_playouts: Callable[[Any, int, np.ndarray], int]
    legal: Callable
    moves: Callable | None = None
    move: Callable
    status_legal: Callable | None = None
    status: Callable
    playout: Callable
    observe: Callable
    # What a game without a repetition rule or extra turns, whose winner holds the higher store, leaves as it is:
    next_player: Callable = other_player
    new_key_set: Callable[[int], np.ndarray] = no_key_set
    horizon: Callable[[Root], int] = own_ply_limit
    winner: Callable = higher_store
    decided: Callable = never_decided
    endgame: Callable[[Root, int], np.ndarray] = no_endgame
    solved: Callable = never_solved
    repeated: Callable = never_repeated
    track_line: Callable = no_line
    record: Callable = no_record
    rooted: Callable = same_env
    features: Callable = store_features
    cells: Callable = no_cells
    table_size: int = 0
    reduces_late_moves: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_moves", self.max_moves or self.num_actions)
        object.__setattr__(self, "max_store", self.max_store or self.max_count)
        if self.make_env is None:
            object.__setattr__(self, "make_env", partial(flags_env, self.env_type))

    @classmethod
    def of_module(cls, namespace: dict[str, Any], **fields: Any) -> SearchKernels:
        """The kernels of a game's ``search`` module (its ``globals()``): each field not in ``fields`` is the
        module's function of that name, where it defines one (else the field's default)."""
        names = {f.name for f in dataclass_fields(cls)} - set(fields)
        return cls(**fields, **{name: namespace[name] for name in names if callable(namespace.get(name))})


@dataclass(frozen=True)
class Root:
    """A State as the compiled searches take it (fresh arrays, the State is not touched)."""

    kernels: SearchKernels
    board: np.ndarray
    stores: np.ndarray
    player: int
    ply: int
    max_plies: int
    flags: int
    keys: np.ndarray  # the repetition set's keys, sorted (Oware); empty for the other games

    @classmethod
    def of(cls, kernels: SearchKernels, state: Any, board: np.ndarray, flags: int = 0, keys: np.ndarray | None = None
           ) -> Root:  # fmt: skip
        """The root of ``state`` whose board in the core's layout is ``board`` (copied)."""
        max_plies = NO_LIMIT if state.max_plies is None else int(state.max_plies)
        keys = np.zeros(0, dtype=np.int64) if keys is None else keys
        stores = np.array(state.stores, dtype=np.int16)
        board = np.array(board, dtype=np.int8)
        return cls(kernels, board, stores, state.to_move, state.ply, max_plies, flags, keys)

    def env(self, scratch: np.ndarray, path_keys: np.ndarray, since: np.ndarray) -> Any:
        """The game's env for a search from here: ``scratch`` from :func:`new_scratch`; ``path_keys`` and ``since``
        (int64, one per search height) hold the searched line for the repetition rule (any array elsewhere)."""
        return self.kernels.make_env(self.flags, self.keys, scratch, path_keys, since)


def new_scratch() -> np.ndarray:
    """Work space of the kernels, for any game."""
    return np.zeros(SCRATCH_SIZE, dtype=np.int8)


@njit(cache=True, error_model="numpy")
def moves_of_bits(bits, out):
    """Write the actions of the legal bits ``bits`` into ``out`` in increasing order; return how many (``moves`` of
    a game whose core gives legal bits)."""
    n = 0
    a = 0
    while a < 64 and bits >> a:  # a 64-action game's last action is the sign bit: its mask never shifts to 0
        out[n] = a
        n += (bits >> a) & 1
        a += 1
    return n


@njit(cache=True, error_model="numpy")
def bit_count(bits):
    """The number of set bits of a legal-move mask (up to 64 bits, the sign bit included): a branch-free count of
    each 32-bit half."""
    n = 0
    for half in (bits & 0xFFFFFFFF, (bits >> 32) & 0xFFFFFFFF):
        x = half - ((half >> 1) & 0x55555555)
        x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
        x = (x + (x >> 4)) & 0x0F0F0F0F
        n += ((x * 0x01010101) & 0xFFFFFFFF) >> 24
    return n


@njit(cache=True, error_model="numpy")
def hole_features(board, stores, player, holes, colours, alternate, capture_low, capture_high, own_moves,
                  opponent_moves, out):  # fmt: skip
    """``features`` of a game of ``holes`` holes of ``colours`` consecutive board slots each, owned alternately (hole
    ``h`` by player ``h % 2``) if ``alternate``, else the first half by player 0, where a sowing that leaves
    ``capture_low`` to ``capture_high`` seeds in a hole captures them: the game passes both players' legal-move
    counts. Its players alternate: no move gives another turn."""
    side0 = side1 = vulnerable0 = vulnerable1 = 0
    half = holes // 2
    for h in range(holes):
        total = 0
        for c in range(colours):
            total += int(board[colours * h + c])
        vulnerable = capture_low <= total + 1 <= capture_high
        if (h % 2 if alternate else h // half) == 0:
            side0 += total
            vulnerable0 += vulnerable
        else:
            side1 += total
            vulnerable1 += vulnerable
    own, other = (side0, side1) if player == 0 else (side1, side0)
    out[0] = int(stores[player]) - int(stores[1 - player])
    out[1], out[2] = own, other
    out[3], out[4] = (vulnerable0, vulnerable1) if player == 0 else (vulnerable1, vulnerable0)
    out[5], out[6] = own_moves, opponent_moves
    out[7], out[8] = own <= STARVING_SEEDS, other <= STARVING_SEEDS
    out[9] = out[10] = 0
