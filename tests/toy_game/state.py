"""The toy game's State: the State API of every game (:class:`awale_env.games.base.BoardState`) around the compiled
rules of :mod:`.kernels`. Actions 0-2 are the mover's pits, left to right; moves are also written ``A``-``C``."""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral
from typing import Any

import numpy as np

from awale_env.errors import IllegalMoveError
from awale_env.games.base import NO_LIMIT, BoardState, read_only

from . import kernels
from .notation import format_move, parse_move

GAME_NAME = "toy"
DEFAULT_MAX_PLIES = 100


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def _limit(max_plies: int | None) -> int:
    if max_plies is None:
        return NO_LIMIT
    if isinstance(max_plies, bool) or not isinstance(max_plies, Integral) or max_plies < 1:
        raise ValueError(f"max_plies must be a positive integer or None, got {max_plies!r}")
    return int(max_plies)


class State(BoardState):
    """A toy position (rules: :mod:`.kernels`): immutable and hashable; :meth:`play` returns a new State."""

    __slots__ = ("_board", "_stores", "_to_move", "_ply", "_max_plies", "_status", "_legal", "_last_capture")

    num_actions = kernels.NUM_ACTIONS
    end_reasons = kernels.END_REASONS

    @classmethod
    def _make(cls, board: np.ndarray, stores: np.ndarray, to_move: int, ply: int, max_plies: int, last_capture: int
              ) -> State:  # fmt: skip
        """The State of a position whose board and stores the rules may settle (a game without moves left)."""
        status = int(kernels.status(board, stores, to_move, ply, max_plies))
        legal = kernels.legal_bits(board, to_move) if status == kernels.ONGOING else 0
        state = object.__new__(cls)
        state._status = status
        state._legal = legal
        state._board = board
        state._stores = (int(stores[0]), int(stores[1]))
        state._to_move = to_move
        state._ply = ply
        state._max_plies = max_plies
        state._last_capture = last_capture
        return state

    @classmethod
    def initial(cls, max_plies: int | None = DEFAULT_MAX_PLIES, seed: int | None = None) -> State:
        """Two seeds in every pit, player 0 to move (no chance: the seed changes nothing)."""
        stores = np.zeros(2, dtype=kernels.STORE_DTYPE)
        return cls._make(kernels.initial_board(), stores, 0, 0, _limit(max_plies), 0)

    @classmethod
    def from_position(
        cls,
        board: Iterable[int],
        stores: Iterable[int] = (0, 0),
        to_move: int = 0,
        ply: int = 0,
        max_plies: int | None = DEFAULT_MAX_PLIES,
    ) -> State:
        """A position from its six pits (player 0's three first) and two stores, holding the game's 12 seeds."""
        board = [_count(f"board[{i}]", v) for i, v in enumerate(board)]
        stores = [_count(f"stores[{i}]", v) for i, v in enumerate(stores)]
        if len(board) != kernels.NUM_PITS or len(stores) != 2:
            raise ValueError(f"a position has {kernels.NUM_PITS} pits and 2 stores, got {len(board)} and {len(stores)}")
        if sum(board) + sum(stores) != kernels.TOTAL_SEEDS:
            raise ValueError(f"the pits and stores hold {sum(board) + sum(stores)} seeds, not {kernels.TOTAL_SEEDS}")
        if isinstance(to_move, bool) or to_move not in (0, 1):
            raise ValueError(f"to_move must be 0 or 1, got {to_move!r}")
        return cls._make(np.array(board, dtype=kernels.SEED_DTYPE), np.array(stores, dtype=kernels.STORE_DTYPE),
                         int(to_move), _count("ply", ply), _limit(max_plies), 0)  # fmt: skip

    def at_position(self, board: np.ndarray, stores: tuple[int, int], to_move: int, ply: int) -> State:
        return self.from_position(board.tolist(), stores, to_move, ply, self.max_plies)

    @property
    def board(self) -> tuple[int, ...]:
        """Seeds per pit: player 0's row, then player 1's, each left to right."""
        return tuple(self._board.tolist())

    @property
    def pits(self) -> np.ndarray:
        """The board as the kernels see it (read-only ``int8[6]``)."""
        return read_only(self._board)

    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        """float32[9] from ``player``'s side (default: the player to move), laid out by :func:`.kernels.observe`."""
        player = self._to_move if player is None else player
        if isinstance(player, bool) or player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        out = np.empty(kernels.OBS_SIZE, dtype=np.float32)
        kernels.observe(self._board, np.array(self._stores), self._ply, self._max_plies, int(player), out)
        return out

    def to_action(self, move: int | str) -> int:
        """The legal action of ``move`` (an action 0-2 or a letter ``A``-``C``), or IllegalMoveError saying why not."""
        if isinstance(move, str):
            action = parse_move(move)
        elif isinstance(move, Integral) and not isinstance(move, bool) and 0 <= move < kernels.NUM_ACTIONS:
            action = int(move)
        else:
            raise IllegalMoveError(f"a toy move is an action 0-{kernels.NUM_ACTIONS - 1} or a letter, got {move!r}")
        if self.is_legal(action):
            return action
        if self.is_terminal:
            raise IllegalMoveError(f"cannot play {format_move(action)}: the game is over ({self.end_reason})")
        raise IllegalMoveError(f"illegal move {format_move(action)}: player {self._to_move}'s pit is empty")

    def play(self, move: int | str) -> State:
        """The State after ``move``; this State is left unchanged."""
        action = self.to_action(move)
        board, stores = self._board.copy(), np.array(self._stores, dtype=kernels.STORE_DTYPE)
        captured = int(kernels.sow(board, stores, self._to_move, action))
        return type(self)._make(board, stores, 1 - self._to_move, self._ply + 1, self._max_plies, captured)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict that :meth:`from_dict` turns back into an equal State."""
        return {
            "game": GAME_NAME,
            "board": list(self.board),
            "stores": list(self._stores),
            "to_move": self._to_move,
            "ply": self._ply,
            "max_plies": self.max_plies,
            "last_capture": self._last_capture,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> State:
        """Rebuild a State from :meth:`to_dict`, validating every field."""
        data = cls._dict_fields(data, ("board", "stores", "to_move", "ply"))
        state = cls.from_position(data["board"], data["stores"], data["to_move"], data["ply"],
                                  data.get("max_plies", DEFAULT_MAX_PLIES))  # fmt: skip
        state._last_capture = _count("last_capture", data.get("last_capture", 0))
        return state

    def _key(self) -> tuple:
        return (self._board.tobytes(), self._stores, self._to_move, self._ply, self._max_plies)

    def __repr__(self) -> str:
        return f"State(board={list(self.board)}, stores={self._stores}, to_move={self._to_move}, ply={self._ply})"
