"""The course's board of 16 holes (machinery the two-colour Awale and its editions share, not a game): holes 1-16,
player 0 ("player 1" in the handouts) owning the odd ones and moving first, drawn as holes 16..9 above holes 1..8 so
that sowing runs 1 -> 16 anticlockwise on screen, each hole holding seeds of two or three colours.

:class:`EditionState` is what the States of the games on it share (docs/editions.md). Such a State keeps its board in
its kernels' layout (``seeds``) and its rules as the kernels' rules code; it says how to read the board's colours
(``colours``, ``slots``), what its kernels answer (``_end_status``, ``_legal_bits``, ``_step``, ``_observe``) and how
moves are written (``format_move``, ``parse_move``). Actions are absolute: ``actions_per_hole * (N - 1) + k`` for the
``k``-th move of hole ``N``. Here too: the text board and the web page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

import numpy as np

from awale_env.games.base import BoardState, actions_of, read_only
from awale_env.games.validation import check_counts, check_int, check_max_plies, check_ply
from awale_env.games.web_page import page

NUM_HOLES = 16
#: The board's counts as every game's kernels keep them.
SEED_DTYPE = np.int8


class EditionState(BoardState):
    """A position of one of the course's editions, immutable and hashable; :meth:`play` returns a new one.

    Holes are numbered 1-16; player 0 ("player 1" in the handouts) owns the odd holes and moves first. Each edition's
    State fills the class attributes and the methods marked as its kernels' answers.
    """

    __slots__ = ("_seeds", "_rules")

    _seeds: np.ndarray
    _rules: int

    game_name: ClassVar[str]
    #: The board's colours, as ``to_dict`` names them, and each one's slot in a hole of the kernels' board.
    colours: ClassVar[tuple[str, ...]]
    slots: ClassVar[tuple[int, ...]]
    #: The colour each move of a hole takes (``actions_per_hole`` of them), for error messages.
    move_colours: ClassVar[tuple[str, ...]]
    total_seeds: ClassVar[int]
    #: The edition's rule options (keyword arguments of ``initial`` and ``from_position``, keys of ``to_dict``).
    rule_flags: ClassVar[tuple[str, ...]] = ()
    #: How moves are written (the edition's notation: ``format_move``, ``parse_move``, ``example_move``).
    parse_move: ClassVar[Callable[[str], int]]

    @classmethod
    def _make(cls, seeds, stores, to_move, ply, max_plies, rules, status, legal, last_capture) -> EditionState:
        state = cls._new(stores, to_move, ply, max_plies, status, legal, last_capture)
        state._seeds = seeds
        state._rules = rules
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

    def _observe(self, player: int) -> np.ndarray:
        """``player``'s view, a new float32 array (the kernels' ``observe``)."""
        raise NotImplementedError

    # --- construction -----------------------------------------------------------------------------------------

    @classmethod
    def _settled(cls, seeds, stores, to_move, ply, max_plies, rules) -> EditionState:
        """A State from checked values, with the end checks applied at once (status 0: a live game)."""
        status = cls._end_status(seeds, stores, ply, max_plies, rules)
        legal = cls._legal_bits(seeds, to_move) if status == 0 else 0
        if status == 0 and legal == 0:
            raise ValueError(
                f"player {to_move} is to move but has no seed: a live game never reaches this (the starving sweep "
                "empties the board first)"
            )
        return cls._make(seeds, stores, to_move, ply, max_plies, rules, status, legal, 0)

    @classmethod
    def _from_counts(cls, counts: Iterable[Iterable[int]], stores: Iterable[int], to_move: int, ply: int,
                     max_plies: int | None, rules: int) -> EditionState:  # fmt: skip
        """A position from counts per hole of each of ``colours`` (index 0 = hole 1), checked."""
        counts = [check_counts(colour, values, NUM_HOLES) for colour, values in zip(cls.colours, counts)]
        stores = check_counts("stores", stores, 2)
        to_move = check_int("to_move", to_move, 0, 1)
        ply = check_ply(ply)
        limit = check_max_plies(max_plies)
        total = sum(map(sum, counts)) + sum(stores)
        if total > cls.total_seeds:
            raise ValueError(f"the board and stores hold {total} seeds; the game has {cls.total_seeds}")
        seeds = np.empty(len(cls.colours) * NUM_HOLES, dtype=SEED_DTYPE)
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
        return self.num_actions // NUM_HOLES

    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        """Float32 vector drawn from ``player``'s point of view (default: the player to move); the layout is the
        kernels' ``observe``."""
        return self._observe(self._viewer(player))

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

    def _why_illegal(self, action: int) -> str:
        hole, kind = divmod(action, self.actions_per_hole)
        if hole % 2 != self._to_move:
            return f"hole {hole + 1} belongs to player {1 - self._to_move}"
        return f"hole {hole + 1} holds no {self.move_colours[kind]} seed"

    def play(self, move: int | str) -> EditionState:
        """The State after ``move`` (an action index or a move string); this State is left unchanged."""
        action = self.to_action(move)
        seeds = self._seeds.copy()
        gained, status, legal = self._step(seeds, action)
        s0, s1 = self._stores
        stores = (s0 + gained, s1) if self._to_move == 0 else (s0, s1 + gained)
        state = self._new(stores, 1 - self._to_move, self._ply + 1, self._max_plies, status, legal, gained)
        state._seeds = seeds
        state._rules = self._rules
        return state

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

    def _board_fields(self) -> dict[str, Any]:
        return {colour: list(self.counts_of(colour)) for colour in self.colours}

    def _rule_fields(self) -> dict[str, Any]:
        return self.rule_settings()

    def __str__(self) -> str:
        return board_diagram(self)


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


# --- the web page -----------------------------------------------------------------------------------------------------

#: The holes as drawn: the top row, then the bottom row.
TOP, BOTTOM = range(16, 8, -1), range(1, 9)
#: Each colour on the page: the State field of its counts, the dots' style and its name in a hole's tooltip.
#: Transparent seeds are drawn as the toolkit's plain seeds.
COLOURS = {"red": ("red", "red"), "blue": ("blue", "blue"), "transparent": ("seed", "transparent")}
#: Each move of a hole: its letters and the colour of its button (the pattern it sows in).
MOVES = {"R": "red", "B": "blue", "TR": "red", "TB": "blue"}


def hole_page(title: str, *, win: int, few: int, moves_say: str, example: str, draw: int | None = None,
              end_reasons: dict[str, str] | None = None, rule_choices: tuple[dict[str, Any], ...] = (),
              sown_everywhere: str = "red", colours: tuple[str, ...] = tuple(COLOURS),
              moves: tuple[str, ...] = tuple(MOVES)) -> dict[str, Any]:  # fmt: skip
    """The page data of a game on this board whose holes hold ``colours`` (``State.to_dict()`` fields) and offer
    ``moves``: ``win`` seeds win, ``draw`` each is a draw, fewer than ``few`` on the board end the game (and
    ``end_reasons`` its other ends); ``sown_everywhere`` is the colour sown into every hole (the other one only into
    the opponent's), ``moves_say`` what the moves do, in the hint."""

    def hole(number: int) -> dict[str, Any]:
        return {
            "label": str(number),
            "owner": (number - 1) % 2,
            "seeds": [[colour, number - 1] for colour in colours],
            "buttons": [{"move": f"{number}{move}", "text": move, "colour": MOVES[move]} for move in moves],
        }

    board = [[hole(number) for number in TOP], [hole(number) for number in BOTTOM]]
    other = "blue" if sown_everywhere == "red" else "red"
    return page(
        title=title,
        players=("odd holes", "even holes"),
        pit_name="hole",
        colours=tuple({"css": COLOURS[colour][0], "name": COLOURS[colour][1]} for colour in colours),
        views=[board, board],  # the same board from both seats
        hint=f"Sowing runs 1 → 16 (anticlockwise on screen). {sown_everywhere.capitalize()} seeds go into every hole, "
        f"{other} seeds only into the opponent's holes. {moves_say}",
        example=example,
        rule_choices=rule_choices,
        end_reasons={
            "score": f"a player captured {win} seeds or more",
            **({} if draw is None else {"draw": f"both players captured {draw} seeds"}),
            "few_seeds": f"fewer than {few} seeds were left on the board (they count for nobody)",
            "ply_limit": "the ply limit was reached (seeds left on the board count for nobody)",
            **(end_reasons or {}),
        },
    )


#: What the two-colour games' moves do, in their pages' hints.
TAKE_A_COLOUR = "Click R or B under one of your holes to take all its seeds of that colour."
