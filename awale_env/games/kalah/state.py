"""Kalah (6 x 4 by default): the rule flags and the immutable ``State`` (rules: docs/rules_kalah.md).

The ``State`` has the API of every game's State (:class:`~awale_env.games.base.BoardState`) plus ``board``; the rules
live in the compiled kernels of :mod:`awale_env.games.kalah.kernels`. Unlike the other games, a move can give its
mover another turn: :attr:`~awale_env.games.base.BoardState.to_move` says who moves next, which is not always the
other player.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from functools import cached_property
from typing import Any

import numpy as np

from awale_env.errors import IllegalMoveError
from awale_env.games.base import BoardState, read_only
from awale_env.games.kalah import kernels as core
from awale_env.games.validation import check_counts, check_int, check_max_plies, check_ply, digit_index, is_int

NUM_ACTIONS = core.NUM_ACTIONS
DEFAULT_MAX_PLIES = 1000  # OpenSpiel's mancala's game length
GAME_NAME = "kalah"


@dataclasses.dataclass(frozen=True)
class Rules:
    """Kalah's rule flags; the defaults are OpenSpiel's ``mancala``.

    ``seeds_per_pit``: the seeds in every pit at the start, 1-6 (Kalah(6, n)). ``capture_empty_opposite``: the last
    seed sown into an own empty pit is captured alone when the opposite pit is empty (some rule books; off: it stays).
    """

    seeds_per_pit: int = core.DEFAULT_SEEDS_PER_PIT
    capture_empty_opposite: bool = False

    def __post_init__(self) -> None:
        seeds = check_int("seeds_per_pit", self.seeds_per_pit, 1, core.MAX_SEEDS_PER_PIT)
        object.__setattr__(self, "seeds_per_pit", seeds)  # frozen: normalise numpy integers once
        if not isinstance(self.capture_empty_opposite, bool):
            raise ValueError(f"capture_empty_opposite must be True or False, got {self.capture_empty_opposite!r}")

    @classmethod
    def of(cls, **flags: Any) -> Rules:
        """The rules of ``flags`` (ValueError naming an unknown flag)."""
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(flags) - set(known))
        if unknown:
            raise ValueError(f"unknown rule flag(s) {', '.join(unknown)}; the flags are {', '.join(known)}")
        return cls(**flags)

    @cached_property
    def code(self) -> int:
        """The flags packed into the small integer the compiled kernels take."""
        return self.seeds_per_pit | (core.CAPTURE_EMPTY_OPPOSITE_BIT if self.capture_empty_opposite else 0)

    @property
    def total_seeds(self) -> int:
        return core.NUM_PITS * self.seeds_per_pit

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class State(BoardState):
    """A position of Kalah (rules: docs/rules_kalah.md). Pits 0..5 are player 0's, 6..11 player 1's; action ``a`` of
    the player to move is their pit ``6 * to_move + a``. States are immutable and hashable; :meth:`play` returns a
    new one."""

    __slots__ = ("_board", "_stores", "_to_move", "_ply", "_max_plies", "_rules", "_status", "_legal", "_last_capture")

    num_actions = NUM_ACTIONS
    end_reasons = core.END_REASONS

    @classmethod
    def _make(cls, board: np.ndarray, stores: np.ndarray, to_move: int, ply: int, max_plies: int, rules: Rules,
              gained: int) -> State:  # fmt: skip
        """The State of a position whose board and stores the end rules may settle (rules 8-9)."""
        status = int(core.status(board, stores, ply, max_plies))
        legal = int(core.legal_bits(board, to_move)) if status == core.ONGOING else 0
        state = object.__new__(cls)
        state._board = board
        state._stores = (int(stores[0]), int(stores[1]))
        state._to_move = to_move
        state._ply = ply
        state._max_plies = max_plies
        state._rules = rules
        state._status = status
        state._legal = legal
        state._last_capture = gained
        return state

    # --- construction -----------------------------------------------------------------------------------------

    @classmethod
    def initial(cls, max_plies: int | None = DEFAULT_MAX_PLIES, seed: int | None = None, **flags: Any) -> State:
        """The starting position: ``seeds_per_pit`` seeds in every pit, player 0 to move (nothing is left to chance:
        ``seed`` is accepted as every game's is)."""
        rules = Rules.of(**flags)
        board = np.full(core.NUM_PITS, rules.seeds_per_pit, dtype=core.PIT_DTYPE)
        stores = np.zeros(2, dtype=core.STORE_DTYPE)
        return cls._make(board, stores, 0, 0, check_max_plies(max_plies), rules, 0)

    @classmethod
    def from_position(
        cls,
        board: Iterable[int],
        stores: Iterable[int] = (0, 0),
        to_move: int = 0,
        ply: int = 0,
        max_plies: int | None = DEFAULT_MAX_PLIES,
        **flags: Any,
    ) -> State:
        """A position from 12 pit counts and the two stores, holding at most the game's seeds (fewer is allowed, for
        studies). The end rule applies at once: with a row empty the game is over and the seeds are counted."""
        board = check_counts("board", board, core.NUM_PITS)
        stores = check_counts("stores", stores, 2)
        to_move = check_int("to_move", to_move, 0, 1)
        ply = check_ply(ply)
        limit = check_max_plies(max_plies)
        rules = Rules.of(**flags)
        total = sum(board) + sum(stores)
        if total > rules.total_seeds:
            raise ValueError(f"the board and stores hold {total} seeds; the game has {rules.total_seeds}")
        pits = np.array(board, dtype=core.PIT_DTYPE)
        return cls._make(pits, np.array(stores, dtype=core.STORE_DTYPE), to_move, ply, limit, rules, 0)

    def at_position(self, board: np.ndarray, stores: tuple[int, int], to_move: int, ply: int) -> State:
        return self.from_position(board.tolist(), stores, to_move, ply, self.max_plies, **self._rules.to_dict())

    # --- reading ------------------------------------------------------------------------------------------------

    @property
    def board(self) -> tuple[int, ...]:
        """Seeds per pit, pits 0..5 player 0's and 6..11 player 1's (empty once the game is over: the seeds left
        are counted in the stores)."""
        return tuple(self._board.tolist())

    @property
    def pits(self) -> np.ndarray:
        """The board as the compiled core sees it: a read-only ``int8[12]`` view."""
        return read_only(self._board)

    @property
    def rules(self) -> Rules:
        """The rule flags this game is played with (``rules.code`` for the kernels)."""
        return self._rules

    @property
    def total_seeds(self) -> int:
        """The seeds of this game: 12 pits of ``rules.seeds_per_pit``."""
        return self._rules.total_seeds

    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        """float32[16] from ``player``'s point of view (default: the player to move): own row, opponent's row, own
        and opponent's store, ply fraction, and whether ``player`` is to move (layout:
        :func:`awale_env.games.kalah.kernels.observe`)."""
        player = self._to_move if player is None else player
        if isinstance(player, bool) or player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        out = np.empty(core.OBS_SIZE, dtype=np.float32)
        stores = np.array(self._stores, dtype=core.STORE_DTYPE)
        core.observe(self._board, stores, self._ply, self._max_plies, int(player), self._to_move,
                     self._rules.total_seeds, out)  # fmt: skip
        return out

    # --- playing ------------------------------------------------------------------------------------------------

    def to_action(self, move: int | str) -> int:
        """The legal action of ``move`` (an int or a digit string ``"0"``-``"5"``), or IllegalMoveError."""
        if type(move) is int and 0 <= move < NUM_ACTIONS and (self._legal >> move) & 1:
            return move  # fast path for the common case
        action = digit_index(move, NUM_ACTIONS) if isinstance(move, str) else None
        if action is None and is_int(move):
            action = int(move) if 0 <= move < NUM_ACTIONS else None
        if action is None:
            raise IllegalMoveError(
                f"malformed move {move!r}: a move is an action 0-{NUM_ACTIONS - 1}, as an int or a digit string"
            )
        if (self._legal >> action) & 1:
            return action
        if self.is_terminal:
            raise IllegalMoveError(f"cannot play {action}: the game is over ({self.end_reason})")
        raise IllegalMoveError(
            f"illegal move {action} for player {self._to_move}: pit {core.ROW * self._to_move + action} is empty; "
            f"legal moves: {' '.join(map(str, self.legal_actions()))}"
        )

    def play(self, move: int | str) -> State:
        """The State after ``move`` (an action 0-5 or a digit string), the same player to move again when the last
        seed lands in its store; this State is left unchanged."""
        action = self.to_action(move)
        board = self._board.copy()
        stores = np.array(self._stores, dtype=core.STORE_DTYPE)
        after = int(core.next_player(board, self._to_move, action))
        gained = int(core.sow(board, stores, self._to_move, action, self._rules.code))
        return State._make(board, stores, after, self._ply + 1, self._max_plies, self._rules, gained)

    # --- conversion -----------------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict that :meth:`from_dict` turns back into an equal State."""
        return {
            "game": GAME_NAME,
            "board": list(self.board),
            "stores": list(self._stores),
            "to_move": self._to_move,
            "ply": self._ply,
            "max_plies": self.max_plies,
            "rules": self._rules.to_dict(),
            "end_reason": self.end_reason,
            "last_capture": self._last_capture,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> State:
        """Rebuild a State from :meth:`to_dict`, validating every field."""
        data = cls._dict_fields(data, ("board", "stores", "to_move", "ply"))
        rules = data.get("rules", {})
        if not isinstance(rules, dict) or not all(isinstance(flag, str) for flag in rules):
            raise ValueError(f"rules must be a dict of rule flags, got {rules!r}")
        state = cls.from_position(data["board"], data["stores"], data["to_move"], data["ply"],
                                  data.get("max_plies", DEFAULT_MAX_PLIES), **rules)  # fmt: skip
        reason = data.get("end_reason")
        if reason is not None:  # a finished game's board is empty whatever ended it: the dict says what did
            if reason not in core.END_REASONS or any(state.board):
                raise ValueError(f"end_reason {reason!r} needs a known reason and an empty board (all seeds counted)")
            state._status, state._legal = core.END_REASONS.index(reason), 0
        elif state.is_terminal:
            raise ValueError(f"the position is over ({state.end_reason}) but end_reason is None")
        state._last_capture = check_int("last_capture", data.get("last_capture", 0), 0, core.MAX_TOTAL_SEEDS)
        return state

    def _key(self) -> tuple:
        """Equal positions: board, stores, player to move, ply, ply limit and rules; not ``last_capture``."""
        return (self._board.tobytes(), self._stores, self._to_move, self._ply, self._max_plies, self._rules)

    def __repr__(self) -> str:
        return (
            f"kalah.State(board={list(self.board)}, stores={self._stores}, to_move={self._to_move}, ply={self._ply}, "
            f"max_plies={self.max_plies}, rules={self._rules})"
        )

    def __str__(self) -> str:
        return board_diagram(self)


# --- the board as text (the image: :mod:`awale_env.games.kalah.render`) ------------------------------------------


def status_line(state: State) -> str:
    """Stores, ply, and whose turn it is or the result."""
    s0, s1 = state.stores
    limit = "no limit" if state.max_plies is None else f"of {state.max_plies}"
    if state.is_terminal:
        result = "draw" if state.winner is None else f"player {state.winner} wins"
        status = f"game over ({state.end_reason}): {result}"
    else:
        status = f"player {state.to_move} to move, legal {state.legal_actions()}"
    return f"stores: player 0 {s0} | player 1 {s1} | ply {state.ply} {limit} | {status}"


def board_diagram(state: State, last_action: int | None = None) -> str:
    """The board as its players see it across the table: player 1's row (pits 11..6) above player 0's (0..5), the
    stores at the ends (player 1's on the left, player 0's on the right: sowing runs anticlockwise). ``last_action``
    is named in the status line (who played it cannot be told from the position: a move can give another turn)."""

    def line(label: str, cells: Iterable[str]) -> str:
        return f"{label:<8}" + "".join(f"{c:>4}" for c in cells)

    s0, s1 = state.stores
    last = "" if last_action is None else f" | last move {last_action}"
    return "\n".join(
        [
            line("pit", (str(p) for p in range(11, 5, -1))) + "   player 1, actions 5..0",
            line("seeds", (str(state.board[p]) for p in range(11, 5, -1))),
            f"store 1 {s1:>3}{'':>20}store 0 {s0:>3}",
            line("seeds", (str(state.board[p]) for p in range(core.ROW))),
            line("pit", (str(p) for p in range(core.ROW))) + "   player 0, actions 0..5",
            status_line(state) + last,
        ]
    )
