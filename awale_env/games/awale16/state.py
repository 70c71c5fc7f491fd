"""The State API: one immutable position of the two-colour Awale, used by every environment, agent and trainer.

Modelled on OpenSpiel's ``State`` (``legal_actions``, ``returns``, ``clone``-free immutability: ``play`` returns a
new State). The rules themselves live in the compiled kernels of :mod:`awale_env.games.awale16.kernels`; what
every game's State shares is :class:`awale_env.games.base.BoardState`.
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral
from typing import Any

import numpy as np

from awale_env.errors import IllegalMoveError
from awale_env.games.awale16 import kernels as core
from awale_env.games.awale16.notation import format_move, parse_move
from awale_env.games.base import BoardState, actions_of, read_only
from awale_env.games.validation import check_counts, check_max_plies, check_ply

NUM_ACTIONS = core.NUM_ACTIONS
DEFAULT_MAX_PLIES = 400
GAME_NAME = "awale16"


class State(BoardState):
    """A position of the two-colour Awale and how it came to be (rules: docs/rules.md).

    Holes are numbered 1-16; player 0 ("player 1" in the rules) owns the odd holes and moves first. Actions are
    ``2 * (hole - 1) + colour`` with colour 0 = red, 1 = blue (rule 13). States are immutable and hashable;
    :meth:`play` returns a new one.
    """

    __slots__ = ("_seeds", "_stores", "_to_move", "_ply", "_max_plies", "_status", "_legal", "_last_capture")

    _seeds: np.ndarray
    _stores: tuple[int, int]
    _to_move: int
    _ply: int
    _max_plies: int
    _status: int
    _legal: int
    _last_capture: int

    num_actions = NUM_ACTIONS
    end_reasons = core.END_REASONS

    @classmethod
    def _make(cls, seeds, stores, to_move, ply, max_plies, status, legal, last_capture) -> State:
        state = object.__new__(cls)
        state._seeds = seeds
        state._stores = stores
        state._to_move = to_move
        state._ply = ply
        state._max_plies = max_plies
        state._status = status
        state._legal = legal
        state._last_capture = last_capture
        return state

    # --- construction -----------------------------------------------------------------------------------------

    @classmethod
    def initial(cls, max_plies: int | None = DEFAULT_MAX_PLIES, seed: int | None = None) -> State:
        """The starting position: 2 red + 2 blue seeds in every hole, player 0 to move (no chance in this game: the
        seed changes nothing)."""
        seeds = core.initial_seeds()
        limit = check_max_plies(max_plies)
        return cls._make(seeds, (0, 0), 0, 0, limit, core.ONGOING, core.legal_bits(seeds, 0), 0)

    @classmethod
    def from_position(
        cls,
        red: Iterable[int],
        blue: Iterable[int],
        stores: Iterable[int] = (0, 0),
        to_move: int = 0,
        ply: int = 0,
        max_plies: int | None = DEFAULT_MAX_PLIES,
    ) -> State:
        """A position from counts per hole (index 0 = hole 1); the end-of-game checks of rule 11 apply at once.

        The board and stores together may hold at most 64 seeds (fewer is allowed, as in the rules' examples).
        A live position whose player to move has no seed cannot arise (rule 10 sweeps first) and is rejected.
        """
        red = check_counts("red", red, core.NUM_HOLES)
        blue = check_counts("blue", blue, core.NUM_HOLES)
        stores = check_counts("stores", stores, 2)
        if isinstance(to_move, bool) or not isinstance(to_move, Integral) or to_move not in (0, 1):
            raise ValueError(f"to_move must be 0 (odd holes) or 1 (even holes), got {to_move!r}")
        ply = check_ply(ply)
        limit = check_max_plies(max_plies)
        total = sum(red) + sum(blue) + sum(stores)
        if total > core.TOTAL_SEEDS:
            raise ValueError(f"the board and stores hold {total} seeds; the game has {core.TOTAL_SEEDS}")
        seeds = np.empty(NUM_ACTIONS, dtype=core.SEED_DTYPE)
        seeds[0::2] = red
        seeds[1::2] = blue
        status = core.end_status(sum(red) + sum(blue), stores[0], stores[1], int(ply), limit)
        legal = core.legal_bits(seeds, int(to_move)) if status == core.ONGOING else 0
        if status == core.ONGOING and legal == 0:
            raise ValueError(
                f"player {to_move} is to move but has no seed: a live game never reaches this (rule 10 sweeps first)"
            )
        return cls._make(seeds, (stores[0], stores[1]), int(to_move), int(ply), limit, status, legal, 0)

    def at_position(self, board: np.ndarray, stores: tuple[int, int], to_move: int, ply: int) -> State:
        return self.from_position(board[0::2].tolist(), board[1::2].tolist(), stores, to_move, ply, self.max_plies)

    # --- reading ------------------------------------------------------------------------------------------------

    @property
    def red(self) -> tuple[int, ...]:
        """Red seeds per hole, index 0 = hole 1."""
        return tuple(self._seeds[0::2].tolist())

    @property
    def blue(self) -> tuple[int, ...]:
        """Blue seeds per hole, index 0 = hole 1."""
        return tuple(self._seeds[1::2].tolist())

    @property
    def seeds(self) -> np.ndarray:
        """The board as the compiled core sees it: read-only ``int8[32]``, ``seeds[action]`` = seeds of that colour
        in that hole (``seeds[2 * (hole - 1) + colour]``)."""
        return read_only(self._seeds)

    @property
    def seeds_on_board(self) -> int:
        return int(self._seeds.sum())

    def legal_mask(self) -> np.ndarray:
        """Boolean mask of shape (32,), True for legal actions. Drawn by the compiled kernel: a position's mask is
        rarely seen twice, so a cache of masks would mostly miss (and a miss costs several kernel calls)."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if self._legal:
            core.legal_mask(self._seeds, self._to_move, mask)
        return mask

    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        """Float32 vector of length 35 drawn from ``player``'s point of view (default: the player to move); the
        layout is documented in :func:`awale_env.games.awale16.kernels.observe`."""
        player = self._to_move if player is None else player
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        out = np.empty(core.OBS_SIZE, dtype=np.float32)
        core.observe(self._seeds, np.array(self._stores), self._ply, self._max_plies, int(player), out)
        return out

    def legal_moves(self) -> list[str]:
        """Legal moves in notation, e.g. ``['1R', '1B', '3R', ...]``."""
        return [format_move(a) for a in actions_of(self._legal)]

    # --- playing ------------------------------------------------------------------------------------------------

    def to_action(self, move: int | str) -> int:
        """The legal action index of ``move`` (an index or a string like ``"14B"``), or IllegalMoveError."""
        if type(move) is int and 0 <= move < NUM_ACTIONS and (self._legal >> move) & 1:
            return move  # fast path for the common case
        if isinstance(move, str):
            action = parse_move(move)
        elif isinstance(move, Integral) and not isinstance(move, bool):
            action = int(move)
            if not 0 <= action < NUM_ACTIONS:
                raise IllegalMoveError(f"action {move!r} out of range: actions are integers 0-{NUM_ACTIONS - 1}")
        else:
            raise IllegalMoveError(f"a move is an action index 0-31 or a string like '14B', got {move!r}")
        if (self._legal >> action) & 1:
            return action
        if self._status != core.ONGOING:
            raise IllegalMoveError(f"cannot play {format_move(action)}: the game is over ({self.end_reason})")
        hole, colour = (action >> 1) + 1, "red" if action & 1 == 0 else "blue"
        why = (
            f"hole {hole} belongs to player {1 - self._to_move}"
            if (action >> 1) % 2 != self._to_move
            else f"hole {hole} holds no {colour} seed"
        )
        raise IllegalMoveError(
            f"illegal move {format_move(action)} for player {self._to_move}: {why}; "
            f"legal moves: {' '.join(self.legal_moves())}"
        )

    def play(self, move: int | str) -> State:
        """The State after ``move`` (an action index or a string like ``"14B"``); this State is left unchanged."""
        action = self.to_action(move)
        seeds = self._seeds.copy()
        player = self._to_move
        store0, store1 = self._stores
        packed = core.step(seeds, player, action, self._ply, self._max_plies, store0, store1)
        gained = packed & 0xFF
        return State._make(
            seeds,
            (store0 + gained, store1) if player == 0 else (store0, store1 + gained),
            1 - player,
            self._ply + 1,
            self._max_plies,
            (packed >> 8) & 0xFF,
            packed >> 16,
            gained,
        )

    # --- conversion -----------------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict that :meth:`from_dict` turns back into an equal State."""
        return {
            "game": GAME_NAME,
            "red": list(self.red),
            "blue": list(self.blue),
            "stores": list(self._stores),
            "to_move": self._to_move,
            "ply": self._ply,
            "max_plies": self.max_plies,
            "last_capture": self._last_capture,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> State:
        """Rebuild a State from :meth:`to_dict`, validating every field."""
        data = cls._dict_fields(data, ("red", "blue", "stores", "to_move", "ply"))
        state = cls.from_position(
            data["red"],
            data["blue"],
            data["stores"],
            data["to_move"],
            data["ply"],
            data.get("max_plies", DEFAULT_MAX_PLIES),
        )
        last = data.get("last_capture", 0)
        if isinstance(last, bool) or not isinstance(last, Integral) or not 0 <= last <= core.TOTAL_SEEDS:
            raise ValueError(f"last_capture must be an integer 0-{core.TOTAL_SEEDS}, got {last!r}")
        state._last_capture = int(last)
        return state

    def _key(self) -> tuple:
        """Equal positions: board, stores, player to move, ply and ply limit (not ``last_capture``)."""
        return (self._seeds.tobytes(), self._stores, self._to_move, self._ply, self._max_plies)

    def __repr__(self) -> str:
        return (
            f"State(red={list(self.red)}, blue={list(self.blue)}, stores={self._stores}, "
            f"to_move={self._to_move}, ply={self._ply}, max_plies={self.max_plies})"
        )

    def __str__(self) -> str:
        return board_diagram(self)


def _cell(state: State, hole: int) -> str:
    r, b = int(state.seeds[2 * (hole - 1)]), int(state.seeds[2 * hole - 1])
    return f"{r}R{b}B" if r or b else "."


def board_diagram(state: State, last_action: int | None = None) -> str:
    """A plain-text board: holes 1-8 on the bottom row, 16-9 above them, so sowing runs round anticlockwise on
    screen. ``*`` marks player 0's (odd) holes; ``last_action``'s hole is bracketed."""

    def row(holes: range) -> tuple[str, str]:
        labels, cells = [], []
        for h in holes:
            mark = "*" if h % 2 else " "
            label = f"{h}{mark}"
            cell = _cell(state, h)
            if last_action is not None and (last_action >> 1) + 1 == h:
                cell = f"[{cell}]"
            labels.append(f"{label:>7}")
            cells.append(f"{cell:>7}")
        return "".join(labels), "".join(cells)

    top_labels, top_cells = row(range(16, 8, -1))
    bottom_cells_labels = row(range(1, 9))
    s0, s1 = state.stores
    limit = "no limit" if state.max_plies is None else f"of {state.max_plies}"
    status = state.result_text() or f"player {state.to_move} ({'odd' if state.to_move == 0 else 'even'} holes) to move"
    return "\n".join(
        [
            top_labels,
            top_cells,
            bottom_cells_labels[1],
            bottom_cells_labels[0],
            f"stores: player 0 (odd*) {s0} | player 1 (even) {s1} | ply {state.ply} {limit} | {status}",
        ]
    )
