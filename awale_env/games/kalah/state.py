"""Kalah (6 x 4 by default): the rule flags and the immutable ``State`` (rules: docs/rules_kalah.md).

The ``State`` has the API of every game's State (:class:`~awale_env.games.base.BoardState`) plus ``board``; the rules
live in the compiled kernels of :mod:`awale_env.games.kalah.kernels`. Unlike the other games, a move can give its
mover another turn: :attr:`~awale_env.games.base.BoardState.to_move` says who moves next, which is not always the
other player.
"""

from __future__ import annotations

import dataclasses
from functools import cached_property
from typing import Any

import numpy as np

from awale_env.games import two_rows
from awale_env.games.kalah import kernels as core
from awale_env.games.two_rows import RowsState
from awale_env.games.validation import check_int, check_max_plies

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


class State(RowsState):
    """A position of Kalah (rules: docs/rules_kalah.md). Pits 0..5 are player 0's, 6..11 player 1's; action ``a`` of
    the player to move is their pit ``6 * to_move + a``. States are immutable and hashable; :meth:`play` returns a
    new one."""

    __slots__ = ()

    _rules: Rules

    num_actions = NUM_ACTIONS
    end_reasons = core.END_REASONS
    default_max_plies = DEFAULT_MAX_PLIES
    max_capture = core.MAX_TOTAL_SEEDS

    @classmethod
    def _make(cls, board: np.ndarray, stores: np.ndarray, to_move: int, ply: int, max_plies: int, rules: Rules,
              gained: int) -> State:  # fmt: skip
        """The State of a position whose board and stores the end rules may settle (rules 8-9)."""
        status = int(core.status(board, stores, ply, max_plies))
        legal = int(core.legal_bits(board, to_move)) if status == core.ONGOING else 0
        state = cls._new((int(stores[0]), int(stores[1])), to_move, ply, max_plies, status, legal, gained)
        state._pits = board
        state._rules = rules
        return state

    @classmethod
    def _rules_of(cls, flags: dict[str, Any]) -> Rules:
        return Rules.of(**flags)

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
    def _settled(cls, board: list[int], stores: tuple[int, int], to_move: int, ply: int, max_plies: int,
                 rules: Rules) -> State:  # fmt: skip
        """A State from checked values; with a row empty the game is over and the seeds are counted."""
        pits = np.array(board, dtype=core.PIT_DTYPE)
        return cls._make(pits, np.array(stores, dtype=core.STORE_DTYPE), to_move, ply, max_plies, rules, 0)

    # --- reading ------------------------------------------------------------------------------------------------

    @property
    def total_seeds(self) -> int:
        """The seeds of this game: 12 pits of ``rules.seeds_per_pit``."""
        return self._rules.total_seeds

    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        """float32[16] from ``player``'s point of view (default: the player to move): own row, opponent's row, own
        and opponent's store, ply fraction, and whether ``player`` is to move (layout:
        :func:`awale_env.games.kalah.kernels.observe`)."""
        out = np.empty(core.OBS_SIZE, dtype=np.float32)
        stores = np.array(self._stores, dtype=core.STORE_DTYPE)
        core.observe(self._pits, stores, self._ply, self._max_plies, self._viewer(player), self._to_move,
                     self._rules.total_seeds, out)  # fmt: skip
        return out

    # --- playing ------------------------------------------------------------------------------------------------

    def _why_illegal(self, action: int) -> str:
        return f"pit {core.ROW * self._to_move + action} is empty"

    def play(self, move: int | str) -> State:
        """The State after ``move`` (an action 0-5 or a digit string), the same player to move again when the last
        seed lands in its store; this State is left unchanged."""
        action = self.to_action(move)
        board = self._pits.copy()
        stores = np.array(self._stores, dtype=core.STORE_DTYPE)
        after = int(core.next_player(board, self._to_move, action))
        gained = int(core.sow(board, stores, self._to_move, action, self._rules.code))
        return State._make(board, stores, after, self._ply + 1, self._max_plies, self._rules, gained)

    def __str__(self) -> str:
        return board_diagram(self)


# --- the board as text (the image: :mod:`awale_env.games.kalah.render`) ------------------------------------------


def status_line(state: State, last_action: int | None = None) -> str:
    """Stores, ply, and whose turn it is or the result, and the last move (who played it cannot be told from the
    position: a move can give another turn)."""
    return two_rows.status_line(state) + ("" if last_action is None else f" | last move {last_action}")


def board_diagram(state: State, last_action: int | None = None) -> str:
    """The board as its players see it across the table: player 1's row (pits 11..6) above player 0's (0..5), the
    stores at the ends (player 1's on the left, player 0's on the right: sowing runs anticlockwise). ``last_action``
    is named in the status line (who played it cannot be told from the position: a move can give another turn)."""

    s0, s1 = state.stores
    return "\n".join(
        [
            two_rows.text_line("pit", map(str, two_rows.TOP), 4) + "   player 1, actions 5..0",
            two_rows.text_line("seeds", (str(state.board[p]) for p in two_rows.TOP), 4),
            f"store 1 {s1:>3}{'':>20}store 0 {s0:>3}",
            two_rows.text_line("seeds", (str(state.board[p]) for p in two_rows.BOTTOM), 4),
            two_rows.text_line("pit", map(str, two_rows.BOTTOM), 4) + "   player 0, actions 0..5",
            status_line(state, last_action),
        ]
    )
