"""What the games on two rows of pits with a store each share (machinery, not a game): :class:`RowsState`, a State
whose board is ``2 * ROW`` pit counts (pits ``0..ROW-1`` player 0's, the next ``ROW`` player 1's; action ``a`` of the
player to move is their pit ``ROW * to_move + a``) and whose rules are a frozen dataclass of flags; the text board's
lines, the picture and the web page's pits of that layout.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np

from awale_env.games.base import GAME_DEFAULT, BoardState, read_only
from awale_env.games.validation import check_counts, check_int, check_max_plies, check_ply

#: Pits per row.
ROW = 6


class RowsState(BoardState):
    """A position on two rows of pits with stores, its rule flags a frozen dataclass (``rules``, with ``to_dict``).

    A game's State gives ``from_position(board, stores, to_move, ply, max_plies=..., **flags)``, ``_rules_of(flags)``
    (its Rules from flags, ValueError naming a bad one), ``default_max_plies`` and ``max_capture``; it may keep a
    history of its own beside the position (:meth:`_history_fields`, :meth:`_read_history`).
    """

    __slots__ = ("_pits", "_rules")

    _pits: np.ndarray
    _rules: Any

    #: The most seeds one move can capture (``last_capture``'s bound in ``from_dict``).
    max_capture: ClassVar[int]

    @classmethod
    def _rules_of(cls, flags: dict[str, Any]) -> Any:
        raise NotImplementedError

    @classmethod
    def _settled(cls, board: list[int], stores: tuple[int, int], to_move: int, ply: int, max_plies: int,
                 rules: Any) -> RowsState:  # fmt: skip
        """A State from checked values, with the end checks of its rules applied at once."""
        raise NotImplementedError

    @classmethod
    def from_position(cls, board: Iterable[int], stores: Iterable[int] = (0, 0), to_move: int = 0, ply: int = 0,
                      max_plies: int | str | None = GAME_DEFAULT, **flags: Any) -> RowsState:  # fmt: skip
        """A position from 12 pit counts and the two stores, under the rules of ``flags`` (``max_plies`` the
        game's by default); the end checks apply at once. The board and stores hold at most the game's seeds (fewer
        is allowed, for studies)."""
        board = check_counts("board", board, 2 * ROW)
        stores = check_counts("stores", stores, 2)
        to_move = check_int("to_move", to_move, 0, 1)
        ply = check_ply(ply)
        limit = check_max_plies(cls._limit(max_plies))
        rules = cls._rules_of(flags)
        total = sum(board) + sum(stores)
        if total > rules.total_seeds:
            raise ValueError(f"the board and stores hold {total} seeds; the game has {rules.total_seeds}")
        return cls._settled(board, (stores[0], stores[1]), to_move, ply, limit, rules)

    def at_position(self, board: np.ndarray, stores: tuple[int, int], to_move: int, ply: int) -> RowsState:
        return self.from_position(board.tolist(), stores, to_move, ply, max_plies=self.max_plies,
                                  **self._rules.to_dict())  # fmt: skip

    # --- reading ------------------------------------------------------------------------------------------------

    @property
    def board(self) -> tuple[int, ...]:
        """Seeds per pit, pits 0..5 player 0's and 6..11 player 1's (empty once the game is over: the seeds left are
        settled as the rules say)."""
        return tuple(self._pits.tolist())

    @property
    def pits(self) -> np.ndarray:
        """The board as the compiled core sees it: a read-only ``int8[12]`` view."""
        return read_only(self._pits)

    @property
    def rules(self) -> Any:
        """The rule flags this game is played with (``rules.code`` for the kernels)."""
        return self._rules

    # --- conversion -----------------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict that :meth:`from_dict` turns back into an equal State."""
        return {
            "game": self.game.name,
            "board": list(self.board),
            "stores": list(self._stores),
            "to_move": self._to_move,
            "ply": self._ply,
            "max_plies": self.max_plies,
            "rules": self._rules.to_dict(),
            "end_reason": self.end_reason,
            **self._history_fields(),
            "last_capture": self._last_capture,
        }

    def _history_fields(self) -> dict[str, Any]:
        """What the game keeps beside the position, as ``to_dict`` fields (none by default)."""
        return {}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RowsState:
        """Rebuild a State from :meth:`to_dict`, validating every field."""
        data = cls._dict_fields(data, ("board", "stores", "to_move", "ply"))
        flags = data.get("rules", {})
        if not isinstance(flags, dict) or not all(isinstance(flag, str) for flag in flags):
            raise ValueError(f"rules must be a dict of rule flags, got {flags!r}")
        state = cls.from_position(data["board"], data["stores"], data["to_move"], data["ply"],
                                  max_plies=data.get("max_plies", cls.default_max_plies),
                                  **cls._rules_of(flags).to_dict())  # fmt: skip
        reason = data.get("end_reason")
        if reason is not None:  # a finished game's board is empty whatever ended it: the dict says what did
            if reason not in cls.end_reasons or any(state.board):
                raise ValueError(f"end_reason {reason!r} needs a known reason and an empty board (all seeds settled)")
            state._status, state._legal = cls.end_reasons.index(reason), 0
        elif state.is_terminal:
            raise ValueError(f"the position is over ({state.end_reason}) but end_reason is None")
        else:
            state._read_history(data)
        state._last_capture = check_int("last_capture", data.get("last_capture", 0), 0, cls.max_capture)
        return state

    def _read_history(self, data: dict[str, Any]) -> None:
        """Take what the game keeps beside the position from ``data`` (a live game's), checked."""

    def _board_fields(self) -> dict[str, Any]:
        return {"board": list(self.board)}

    def _rule_fields(self) -> dict[str, Any]:
        return {"rules": self._rules}

    def _key(self) -> tuple:
        """Equal positions: board, stores, player to move, ply, ply limit and rules; not ``last_capture``."""
        return (self._pits.tobytes(), self._stores, self._to_move, self._ply, self._max_plies, self._rules)


# --- the board as text and as a picture ----------------------------------------------------------------------------

#: Player 1's pits as drawn, on top (right to left, so that sowing runs anticlockwise), and player 0's.
TOP, BOTTOM = range(2 * ROW - 1, ROW - 1, -1), range(ROW)


def text_line(label: str, cells: Iterable[str], width: int) -> str:
    """One line of the text board: a label, then the cells right-aligned in ``width`` characters."""
    return f"{label:<8}" + "".join(f"{c:>{width}}" for c in cells)


def status_line(state: RowsState, extra: str = "") -> str:
    """Stores, ply (and ``extra``), and whose turn it is or the result."""
    s0, s1 = state.stores
    limit = "no limit" if state.max_plies is None else f"of {state.max_plies}"
    status = state.result_text() or f"player {state.to_move} to move, legal {state.legal_actions()}"
    return f"stores: player 0 {s0} | player 1 {s1} | ply {state.ply} {limit}{extra} | {status}"


def render_rgb(state: RowsState, marked: int | None, status: str) -> np.ndarray:
    """The board as an RGB image (H x W x 3 uint8): player 1's row on top, player 0's (lighter holes) below, each
    pit's seeds drawn and counted, the stores at the sides (player 1's left, player 0's right), pit ``marked``
    ringed in yellow, ``status`` under the board."""
    from awale_env import drawing  # here: Pillow loads when a picture is drawn

    board = state.board

    def draw_board(draw: Any, font: Any) -> None:
        for x0, y0, label_y, pit in drawing.two_row_cells((TOP, BOTTOM)):
            drawing.draw_hole(draw, x0, y0, pit < ROW, pit == marked, [drawing.SEED] * board[pit])
            draw.text((x0 + 6, label_y + 3), str(pit), fill=drawing.TEXT, font=font)
            draw.text((x0 + drawing.CELL - 22, label_y + 3), str(board[pit]), fill=drawing.TEXT, font=font)

    return drawing.board_picture(ROW, drawing.TWO_ROWS_HEIGHT, draw_board, ("P0", "P1"), state.stores, status)


# --- the web page's board ------------------------------------------------------------------------------------------


def _page_pit(index: int) -> dict[str, Any]:
    """Board pit ``index``, labelled and played as its owner's move ``index % ROW``."""
    move = str(index % ROW)
    return {"label": move, "owner": index // ROW, "seeds": [["board", index]], "move": move}


#: The board on the web page from each seat, the person's row at the bottom, numbered from its owner's left.
PAGE_VIEWS = [
    [[_page_pit(index) for index in row] for row in rows]
    for rows in ((TOP, BOTTOM), (range(ROW - 1, -1, -1), range(ROW, 2 * ROW)))
]
