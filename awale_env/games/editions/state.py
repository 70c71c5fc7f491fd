"""What the States of the course's editions share (docs/editions.md): :class:`EditionState`, around an edition's
compiled kernels, and :class:`TransparentState`, the editions with transparent seeds; their text board.

An edition's State keeps its board in its kernels' layout (``seeds``) and its rules as the kernels' rules code; it
says how to read the board's colours (``colours``, ``slots``), what its kernels answer (``_end_status``,
``_legal_bits``, ``_step``, ``_observe``) and how moves are written (``format_move``, ``parse_move``). Actions are
absolute: ``actions_per_hole * (N - 1) + k`` for the ``k``-th move of hole ``N``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from numbers import Integral
from typing import Any, ClassVar

import numpy as np

from awale_env.errors import IllegalMoveError
from awale_env.games.base import GAME_DEFAULT, BoardState, actions_of, read_only
from awale_env.games.editions import kernels as core
from awale_env.games.editions import notation
from awale_env.games.validation import check_counts, check_int, check_max_plies, check_ply


class EditionState(BoardState):
    """A position of one of the course's editions, immutable and hashable; :meth:`play` returns a new one.

    Holes are numbered 1-16; player 0 ("player 1" in the handouts) owns the odd holes and moves first. Each edition's
    State fills the class attributes and the methods marked as its kernels' answers.
    """

    __slots__ = ("_seeds", "_stores", "_to_move", "_ply", "_max_plies", "_status", "_legal", "_last_capture", "_rules")

    _seeds: np.ndarray
    _rules: int

    game_name: ClassVar[str]
    #: The board's colours, as ``to_dict`` names them, and each one's slot in a hole of the kernels' board.
    colours: ClassVar[tuple[str, ...]]
    slots: ClassVar[tuple[int, ...]]
    #: The colour each move of a hole takes (``actions_per_hole`` of them), for error messages.
    move_colours: ClassVar[tuple[str, ...]]
    total_seeds: ClassVar[int]
    default_max_plies: ClassVar[int | None]
    #: The edition's rule options (keyword arguments of ``initial`` and ``from_position``, keys of ``to_dict``).
    rule_flags: ClassVar[tuple[str, ...]] = ()
    #: How moves are written (the edition's notation), and a move to show in error messages.
    format_move: ClassVar[Callable[[int], str]]
    parse_move: ClassVar[Callable[[str], int]]
    example_move: ClassVar[str]

    @classmethod
    def _make(cls, seeds, stores, to_move, ply, max_plies, rules, status, legal, last_capture) -> EditionState:
        state = object.__new__(cls)
        state._seeds = seeds
        state._stores = stores
        state._to_move = to_move
        state._ply = ply
        state._max_plies = max_plies
        state._rules = rules
        state._status = status
        state._legal = legal
        state._last_capture = last_capture
        return state

    # --- what each edition's kernels answer -------------------------------------------------------------------

    @classmethod
    def _end_status(cls, seeds: np.ndarray, stores: tuple[int, int], ply: int, max_plies: int, rules: int) -> int:
        """The status code of a position (the kernels' end checks)."""
        raise NotImplementedError

    @classmethod
    def _legal_bits(cls, seeds: np.ndarray, player: int) -> int:
        """The legal actions of ``player`` in a live position, bit ``a`` for action ``a``."""
        raise NotImplementedError

    def _step(self, seeds: np.ndarray, action: int) -> tuple[int, int, int]:
        """Play a legal action on ``seeds`` (this board's copy): (seeds gained, status, next player's legal bits)."""
        raise NotImplementedError

    def _observe(self, player: int, out: np.ndarray) -> None:
        """Write ``player``'s view into ``out`` (the kernels' ``observe``)."""
        raise NotImplementedError

    # --- construction -----------------------------------------------------------------------------------------

    @classmethod
    def _settled(cls, seeds, stores, to_move, ply, max_plies, rules) -> EditionState:
        """A State from checked values, with the end checks applied at once."""
        status = cls._end_status(seeds, stores, ply, max_plies, rules)
        legal = cls._legal_bits(seeds, to_move) if status == core.ONGOING else 0
        if status == core.ONGOING and legal == 0:
            raise ValueError(
                f"player {to_move} is to move but has no seed: a live game never reaches this (the starving sweep "
                "empties the board first)"
            )
        return cls._make(seeds, stores, to_move, ply, max_plies, rules, status, legal, 0)

    @classmethod
    def _from_counts(cls, counts: Iterable[Iterable[int]], stores: Iterable[int], to_move: int, ply: int,
                     max_plies: int | None, rules: int) -> EditionState:  # fmt: skip
        """A position from counts per hole of each of ``colours`` (index 0 = hole 1), checked."""
        counts = [check_counts(colour, values, core.NUM_HOLES) for colour, values in zip(cls.colours, counts)]
        stores = check_counts("stores", stores, 2)
        to_move = check_int("to_move", to_move, 0, 1)
        ply = check_ply(ply)
        limit = check_max_plies(max_plies)
        total = sum(map(sum, counts)) + sum(stores)
        if total > cls.total_seeds:
            raise ValueError(f"the board and stores hold {total} seeds; the game has {cls.total_seeds}")
        seeds = np.empty(len(cls.colours) * core.NUM_HOLES, dtype=core.SEED_DTYPE)
        for slot, values in zip(cls.slots, counts):
            seeds[slot :: len(cls.colours)] = values
        return cls._settled(seeds, (stores[0], stores[1]), to_move, ply, limit, rules)

    def at_position(self, board: np.ndarray, stores: tuple[int, int], to_move: int, ply: int) -> EditionState:
        counts = (board[slot :: len(self.colours)].tolist() for slot in self.slots)
        return self._from_counts(counts, stores, to_move, ply, self.max_plies, self._rules)

    # --- reading ------------------------------------------------------------------------------------------------

    def counts_of(self, colour: str) -> tuple[int, ...]:
        """Seeds of ``colour`` (one of ``colours``) per hole, index 0 = hole 1."""
        return tuple(self._seeds[self.slots[self.colours.index(colour)] :: len(self.colours)].tolist())

    @property
    def red(self) -> tuple[int, ...]:
        """Red seeds per hole, index 0 = hole 1."""
        return self.counts_of("red")

    @property
    def blue(self) -> tuple[int, ...]:
        """Blue seeds per hole, index 0 = hole 1."""
        return self.counts_of("blue")

    @property
    def seeds(self) -> np.ndarray:
        """The board as the compiled kernels see it (a read-only int8 view; the layout is the edition's kernels')."""
        return read_only(self._seeds)

    @property
    def seeds_on_board(self) -> int:
        return int(self._seeds.sum())

    @property
    def rules_code(self) -> int:
        """The rules as the kernels take them."""
        return self._rules

    @property
    def move_limit(self) -> int | None:
        """The move limit of the edition's rules (a rule, unlike ``max_plies``), or None."""
        return None

    @property
    def actions_per_hole(self) -> int:
        return self.num_actions // core.NUM_HOLES

    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        """Float32 vector drawn from ``player``'s point of view (default: the player to move); the layout is the
        kernels' ``observe``."""
        player = self._to_move if player is None else player
        if isinstance(player, bool) or player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        out = np.empty(len(self.colours) * core.NUM_HOLES + 3, dtype=np.float32)
        self._observe(int(player), out)
        return out

    def legal_mask(self) -> np.ndarray:
        """Boolean mask of shape (num_actions,), True for legal actions (drawn afresh: with 64 actions a cache of
        masks would grow with every position seen)."""
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[list(actions_of(self._legal))] = True
        return mask

    def legal_moves(self) -> list[str]:
        """Legal moves in notation, e.g. ``['1R', '1B', '3R', ...]``."""
        return [self.format_move(a) for a in actions_of(self._legal)]

    def rule_settings(self) -> dict[str, Any]:
        """The values of the edition's rule options (``rule_flags``) in this game."""
        return {}

    # --- playing ------------------------------------------------------------------------------------------------

    def to_action(self, move: int | str) -> int:
        """The legal action index of ``move`` (an index or a move string), or IllegalMoveError."""
        if type(move) is int and 0 <= move < self.num_actions and (self._legal >> move) & 1:
            return move  # fast path for the common case
        if isinstance(move, str):
            action = self.parse_move(move)
        elif isinstance(move, Integral) and not isinstance(move, bool):
            action = int(move)
            if not 0 <= action < self.num_actions:
                raise IllegalMoveError(f"action {move!r} out of range: actions are integers 0-{self.num_actions - 1}")
        else:
            raise IllegalMoveError(
                f"a move is an action index 0-{self.num_actions - 1} or a string like {self.example_move!r}, "
                f"got {move!r}"
            )
        if (self._legal >> action) & 1:
            return action
        if self.is_terminal:
            raise IllegalMoveError(f"cannot play {self.format_move(action)}: the game is over ({self.end_reason})")
        hole, kind = divmod(action, self.actions_per_hole)
        why = (
            f"hole {hole + 1} belongs to player {1 - self._to_move}"
            if hole % 2 != self._to_move
            else f"hole {hole + 1} holds no {self.move_colours[kind]} seed"
        )
        raise IllegalMoveError(
            f"illegal move {self.format_move(action)} for player {self._to_move}: {why}; "
            f"legal moves: {' '.join(self.legal_moves())}"
        )

    def play(self, move: int | str) -> EditionState:
        """The State after ``move`` (an action index or a move string); this State is left unchanged."""
        action = self.to_action(move)
        seeds = self._seeds.copy()
        gained, status, legal = self._step(seeds, action)
        s0, s1 = self._stores
        stores = (s0 + gained, s1) if self._to_move == 0 else (s0, s1 + gained)
        return self._make(
            seeds, stores, 1 - self._to_move, self._ply + 1, self._max_plies, self._rules, status, legal, gained
        )

    # --- conversion -----------------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict that :meth:`from_dict` turns back into an equal State."""
        return {
            "game": self.game_name,
            **{colour: list(self.counts_of(colour)) for colour in self.colours},
            "stores": list(self._stores),
            "to_move": self._to_move,
            "ply": self._ply,
            "max_plies": self.max_plies,
            **self.rule_settings(),
            "last_capture": self._last_capture,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EditionState:
        """Rebuild a State from :meth:`to_dict`, validating every field."""
        data = cls._dict_fields(data, (*cls.colours, "stores", "to_move", "ply"))
        state = cls.from_position(
            *(data[colour] for colour in cls.colours),
            data["stores"],
            data["to_move"],
            data["ply"],
            data.get("max_plies", cls.default_max_plies),
            **{flag: data[flag] for flag in cls.rule_flags if flag in data},
        )
        state._last_capture = check_int("last_capture", data.get("last_capture", 0), 0, cls.total_seeds)
        return state

    def _key(self) -> tuple:
        """Equal positions: board, stores, player to move, ply, ply limit and rules (not ``last_capture``)."""
        return (self._seeds.tobytes(), self._stores, self._to_move, self._ply, self._max_plies, self._rules)

    def __repr__(self) -> str:
        board = ", ".join(f"{colour}={list(self.counts_of(colour))}" for colour in self.colours)
        options = "".join(f", {name}={value!r}" for name, value in self.rule_settings().items())
        return (
            f"{self.game_name}.State({board}, stores={self._stores}, to_move={self._to_move}, ply={self._ply}, "
            f"max_plies={self.max_plies}{options})"
        )

    def __str__(self) -> str:
        return board_diagram(self)


def _spread(own: int, player: int) -> int:
    """The 64-bit legal-action mask of the per-own-hole bits of :func:`kernels.legal_bits`: own hole ``j``'s nibble
    moves to hole ``2 * j + player``'s four actions (bits ``8 * j + 4 * player`` on), spread by halves."""
    own = (own | own << 16) & 0x0000FFFF0000FFFF
    own = (own | own << 8) & 0x00FF00FF00FF00FF
    own = (own | own << 4) & 0x0F0F0F0F0F0F0F0F
    return own << (core.ACTIONS_PER_HOLE * player)


class TransparentState(EditionState):
    """A position of an edition with transparent seeds (:mod:`awale_env.games.editions.kernels`): 64 actions
    ``4 * (N - 1) + k``, k = 0 ``NR``, 1 ``NB``, 2 ``NTR``, 3 ``NTB``."""

    __slots__ = ()

    num_actions = core.NUM_ACTIONS
    colours = ("red", "blue", "transparent")
    slots = (core.RED, core.BLUE, core.TRANSPARENT)
    move_colours = ("red", "blue", "transparent", "transparent")
    example_move = "12TB"

    format_move = staticmethod(notation.format_move)
    parse_move = staticmethod(notation.parse_move)

    @classmethod
    def _rules_code(cls, **flags: Any) -> int:
        """The kernels' rules code of this edition under its rule flags ``flags`` (ValueError for a bad value)."""
        raise NotImplementedError

    @classmethod
    def initial(cls, max_plies: int | str | None = GAME_DEFAULT, seed: int | None = None, **flags: Any
                ) -> TransparentState:  # fmt: skip
        """The starting position: 2 red, 2 blue and the edition's transparent seeds in every hole, player 0 to move;
        ``max_plies`` the edition's by default, ``flags`` its rule flags (no chance in these games: the seed changes
        nothing)."""
        rules = cls._rules_code(**flags)
        seeds = np.empty(core.BOARD_SIZE, dtype=core.SEED_DTYPE)
        core.reset_board(seeds, rules)
        return cls._settled(seeds, (0, 0), 0, 0, check_max_plies(cls._limit(max_plies)), rules)

    @classmethod
    def from_position(
        cls,
        red: Iterable[int],
        blue: Iterable[int],
        transparent: Iterable[int],
        stores: Iterable[int] = (0, 0),
        to_move: int = 0,
        ply: int = 0,
        max_plies: int | str | None = GAME_DEFAULT,
        **flags: Any,
    ) -> TransparentState:
        """A position from counts per hole (index 0 = hole 1), ``max_plies`` the edition's by default and ``flags``
        its rule flags; the end checks apply at once. The board and stores may hold at most the edition's seeds
        (fewer is allowed, for studies and examples)."""
        rules = cls._rules_code(**flags)
        return cls._from_counts((red, blue, transparent), stores, to_move, ply, cls._limit(max_plies), rules)

    @classmethod
    def _limit(cls, max_plies: int | str | None) -> int | None:
        return cls.default_max_plies if isinstance(max_plies, str) and max_plies == GAME_DEFAULT else max_plies

    @classmethod
    def _end_status(cls, seeds: np.ndarray, stores: tuple[int, int], ply: int, max_plies: int, rules: int) -> int:
        return core.end_status(int(seeds.sum()), stores[0], stores[1], ply, max_plies, rules)

    @classmethod
    def _legal_bits(cls, seeds: np.ndarray, player: int) -> int:
        return _spread(core.legal_bits(seeds, player), player)

    def _step(self, seeds: np.ndarray, action: int) -> tuple[int, int, int]:
        s0, s1 = self._stores
        packed = core.step(seeds, self._to_move, action, self._ply, self._max_plies, s0, s1, self._rules)
        return packed & 0xFF, (packed >> 8) & 0xFF, _spread(packed >> 16, 1 - self._to_move)

    def _observe(self, player: int, out: np.ndarray) -> None:
        stores = np.array(self._stores, dtype=core.STORE_DTYPE)
        core.observe(self._seeds, stores, self._ply, self._max_plies, player, self._rules, out)

    @property
    def move_limit(self) -> int | None:
        return (self._rules >> 24) or None

    @property
    def transparent(self) -> tuple[int, ...]:
        """Transparent seeds per hole, index 0 = hole 1."""
        return self.counts_of("transparent")


# --- the board as text ---------------------------------------------------------------------------------------------

#: Each colour's letter in the pictures.
LETTERS = {"red": "R", "blue": "B", "transparent": "T"}


def cell(state: EditionState, hole: int) -> str:
    """Hole ``hole``'s seeds as ``2R1B1T`` (``.`` when empty)."""
    counts = [(state.counts_of(colour)[hole - 1], LETTERS[colour]) for colour in state.colours]
    return "".join(f"{n}{letter}" for n, letter in counts) if any(n for n, _ in counts) else "."


def status_line(state: EditionState, last_action: int | None = None) -> str:
    """Stores, ply and whose turn it is or the result, and the last move."""
    s0, s1 = state.stores
    limits = [limit for limit in (state.max_plies, state.move_limit) if limit is not None]
    limit = f"of {min(limits)}" if limits else "no limit"
    status = state.result_text() or f"player {state.to_move} ({'odd' if state.to_move == 0 else 'even'} holes) to move"
    last = "" if last_action is None else f" | last move {state.format_move(last_action)}"
    return f"stores: player 0 (odd*) {s0} | player 1 (even) {s1} | ply {state.ply} {limit} | {status}{last}"


def board_diagram(state: EditionState, last_action: int | None = None) -> str:
    """A plain-text board: holes 1-8 on the bottom row, 16-9 above them, so sowing runs round anticlockwise on
    screen. ``*`` marks player 0's (odd) holes; ``last_action``'s hole is bracketed."""
    marked = None if last_action is None else last_action // state.actions_per_hole + 1
    width = 3 * len(state.colours) + 2

    def row(holes: range) -> tuple[str, str]:
        labels = "".join(f"{h}{'*' if h % 2 else ' '}".rjust(width) for h in holes)
        cells = "".join((f"[{cell(state, h)}]" if h == marked else cell(state, h)).rjust(width) for h in holes)
        return labels, cells

    top_labels, top_cells = row(range(16, 8, -1))
    bottom_labels, bottom_cells = row(range(1, 9))
    return "\n".join([top_labels, top_cells, bottom_cells, bottom_labels, status_line(state, last_action)])
