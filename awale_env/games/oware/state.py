"""Classic Oware (2 x 6): the rule flags with their two presets, and the immutable ``State`` (rules:
docs/rules_oware.md).

The ``State`` has the API of the two-colour :class:`awale_env.State` (``initial``, ``from_position``, ``play``,
``legal_actions``, ``legal_mask``, ``is_terminal``, ``winner``, ``returns``, ...; :class:`~awale_env.games.base.
BoardState`) plus ``board``. The rules themselves live in the compiled kernels of
:mod:`awale_env.games.oware.kernels`; this module validates input and keeps the repetition set of rule 9 (a
frozenset of :func:`~awale_env.games.oware.kernels.position_key` values since the last capture).
"""

from __future__ import annotations

import dataclasses
from functools import cached_property
from numbers import Integral
from typing import Any

import numpy as np

from awale_env.games import two_rows
from awale_env.games.oware import kernels as core
from awale_env.games.two_rows import RowsState
from awale_env.games.validation import check_counts, check_int, check_max_plies, check_seed

NUM_ACTIONS = core.NUM_ACTIONS
DEFAULT_MAX_PLIES = 1000
GAME_NAME = "oware"
PRESETS = ("texts", "openspiel")

_GRAND_SLAM = ("forbidden", "no_capture")
_DISPOSAL = ("discard", "own_side")


@dataclasses.dataclass(frozen=True)
class Rules:
    """Every rule flag of the spec; the defaults are the ``"texts"`` preset, :meth:`preset` gives either preset.

    ``grand_slam``: ``"forbidden"`` (such a move is illegal) or ``"no_capture"`` (legal, captures nothing).
    ``on_repetition``: what happens to the seeds left at a repetition or at the ply limit, ``"discard"`` (count for
    nobody) or ``"own_side"`` (each player adds their row). ``on_no_move``: the same when the player to move has no
    legal move (the spec uses ``"own_side"`` in both presets). ``stop_at_majority``: a store of 25, or 24 each, ends
    the game (own rows collected). ``first_player``: 0, 1 or ``"random"`` (drawn from ``State.initial``'s seed).
    """

    grand_slam: str = "forbidden"
    on_repetition: str = "discard"
    on_no_move: str = "own_side"
    stop_at_majority: bool = False
    first_player: int | str = "random"

    def __post_init__(self) -> None:
        for name, allowed in (("grand_slam", _GRAND_SLAM), ("on_repetition", _DISPOSAL), ("on_no_move", _DISPOSAL)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {getattr(self, name)!r}")
        if not isinstance(self.stop_at_majority, bool):
            raise ValueError(f"stop_at_majority must be True or False, got {self.stop_at_majority!r}")
        first = self.first_player
        if isinstance(first, bool) or not (first == "random" or (isinstance(first, Integral) and first in (0, 1))):
            raise ValueError(f"first_player must be 0, 1 or 'random', got {self.first_player!r}")
        if first != "random":
            object.__setattr__(self, "first_player", int(first))  # frozen: normalise numpy integers once

    @classmethod
    def preset(cls, preset: str | Rules = "texts", **flags: Any) -> Rules:
        """The rules of a preset (``"texts"`` or ``"openspiel"``) or of a Rules object, with ``flags`` overridden."""
        if isinstance(preset, Rules):
            base = preset
        elif preset == "texts":
            base = cls()
        elif preset == "openspiel":
            base = cls("no_capture", "own_side", "own_side", True, 0)
        else:
            raise ValueError(f"preset must be 'texts', 'openspiel' or a Rules object, got {preset!r}")
        unknown = sorted(set(flags) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            known = ", ".join(f.name for f in dataclasses.fields(cls))
            raise ValueError(f"unknown rule flag(s) {', '.join(unknown)}; the flags are {known}")
        return dataclasses.replace(base, **flags) if flags else base

    @cached_property
    def name(self) -> str:
        """The preset whose move and end rules these are (whoever moves first), or ``"custom"``."""
        for preset in PRESETS:
            if self == Rules.preset(preset, first_player=self.first_player):
                return preset
        return "custom"

    @cached_property
    def code(self) -> int:
        """The flags packed into the small integer the compiled kernels take (``core.*_BIT``)."""
        return (
            (core.NO_CAPTURE_GRAND_SLAM_BIT if self.grand_slam == "no_capture" else 0)
            | (core.OWN_SIDE_ON_REPETITION_BIT if self.on_repetition == "own_side" else 0)
            | (core.DISCARD_ON_NO_MOVE_BIT if self.on_no_move == "discard" else 0)
            | (core.STOP_AT_MAJORITY_BIT if self.stop_at_majority else 0)
        )

    @property
    def total_seeds(self) -> int:
        return core.TOTAL_SEEDS

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _pits_of(board: list[int]) -> np.ndarray:
    return np.array(board, dtype=core.PIT_DTYPE)


def key_position(key: int) -> tuple[tuple[int, ...], int]:
    """The (board, player to move) of a :func:`~awale_env.games.oware.kernels.position_key`: the inverse of the
    ranking."""
    rank, player = divmod(int(key), 2)
    budget, board = core.TOTAL_SEEDS, []
    for i in range(core.NUM_PITS):
        k = core.NUM_PITS - 1 - i
        n = 0
        # skip the boards with fewer seeds here while the rank is past them
        while rank >= int(core.BINOM[budget - n + k, k]):
            rank -= int(core.BINOM[budget - n + k, k])
            n += 1
        board.append(n)
        budget -= n
    return tuple(board), player


class State(RowsState):
    """A position of Oware, its rules and the positions since the last capture (rules: docs/rules_oware.md).

    Pits 0..5 are player 0's, 6..11 player 1's (OpenSpiel's indexing); action ``a`` of the player to move is their
    pit ``6 * to_move + a``. States are immutable and hashable; :meth:`play` returns a new one. A position from
    ``from_position`` (rule flags: a ``preset`` and the flags overriding it) has a repetition set of itself alone, and
    the end checks of rules 10-12 apply to it at once: a player to move without a legal move ends the game and the
    seeds are collected as the rules say (worked example O6).
    """

    __slots__ = ("_seen",)

    _rules: Rules
    _seen: frozenset[int]

    num_actions = NUM_ACTIONS
    end_reasons = core.END_REASONS
    default_max_plies = DEFAULT_MAX_PLIES
    max_capture = core.TOTAL_SEEDS

    @classmethod
    def _make(cls, pits, stores, to_move, ply, max_plies, rules, packed, seen, last) -> State:
        status = packed & ((1 << core.STATUS_BITS) - 1)
        state = cls._new(stores, to_move, ply, max_plies, status, packed >> core.STATUS_BITS, last)
        state._pits = pits
        state._rules = rules
        # once the game is over the repetition set no longer matters; dropping it keeps equal results equal
        state._seen = seen if status == core.ONGOING else frozenset()
        return state

    @classmethod
    def _rules_of(cls, flags: dict[str, Any]) -> Rules:
        return Rules.preset(**flags)

    @classmethod
    def _settled(cls, board, stores, to_move, ply, max_plies, rules) -> State:
        """A State from checked values, its repetition set itself only, with the end checks of rules 10-12 applied
        at once (seeds collected)."""
        pits = _pits_of(board)
        seen = frozenset((int(core.position_key(pits, to_move)),))
        store_arr = np.array(stores, dtype=core.STORE_DTYPE)
        packed = core.finish(pits, store_arr, to_move, ply, max_plies, False, rules.code)
        return cls._make(pits, (int(store_arr[0]), int(store_arr[1])), to_move, ply, max_plies, rules, packed, seen, 0)

    # --- construction -----------------------------------------------------------------------------------------

    @classmethod
    def initial(
        cls,
        preset: str | Rules = "texts",
        max_plies: int | None = DEFAULT_MAX_PLIES,
        first_player: int | str | None = None,
        seed: int | None = None,
        **flags: Any,
    ) -> State:
        """The starting position: 4 seeds per pit. ``first_player`` (default: the preset's, ``"random"`` for
        ``"texts"``) is drawn from ``seed`` when ``"random"``; ``flags`` override the preset's rule flags."""
        if first_player is not None:
            flags["first_player"] = first_player
        rules = Rules.preset(preset, **flags)
        first = rules.first_player
        if first == "random":
            first = int(np.random.default_rng(check_seed(seed)).integers(2))
        board = [core.SEEDS_PER_PIT] * core.NUM_PITS
        return cls._settled(board, (0, 0), first, 0, check_max_plies(max_plies), rules)

    @property
    def first_player_drawn(self) -> bool:
        return self._rules.first_player == "random"

    # --- reading ------------------------------------------------------------------------------------------------

    @property
    def repetition_keys(self) -> np.ndarray:
        """The keys of rule 9's set (positions since the last capture, this one included) as a sorted int64 array,
        for :func:`awale_env.games.oware.kernels.key_set_from` in compiled search; empty once the game is over."""
        return np.array(sorted(self._seen), dtype=core.KEY_DTYPE)

    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        """Float32 vector of length 15 from ``player``'s point of view (default: the player to move): own row,
        opponent's row, own and opponent's store, ply fraction (layout:
        :func:`awale_env.games.oware.kernels.observe`)."""
        out = np.empty(core.OBS_SIZE, dtype=np.float32)
        stores = np.array(self._stores, dtype=core.STORE_DTYPE)
        core.observe(self._pits, stores, self._ply, self._max_plies, self._viewer(player), out)
        return out

    # --- playing ------------------------------------------------------------------------------------------------

    def _why_illegal(self, action: int) -> str:
        player = self._to_move
        pit = core.ROW * player + action
        seeds = int(self._pits[pit])
        if seeds == 0:
            return f"pit {pit} is empty"
        if core.row_total(self._pits, 1 - player) == 0 and seeds < core.ROW - action:
            return f"player {1 - player}'s row is empty and the {seeds} seed(s) of pit {pit} cannot reach it"
        return f"it would capture every seed of player {1 - player}'s row (a grand slam, forbidden by these rules)"

    def play(self, move: int | str) -> State:
        """The State after ``move`` (an action 0-5 or a digit string); this State is left unchanged."""
        action = self.to_action(move)
        pits = self._pits.copy()
        stores = np.array(self._stores, dtype=core.STORE_DTYPE)
        player, code = self._to_move, self._rules.code
        packed = core.step(pits, stores, player, action, code)
        captured, key = int(packed & 0xFF), int(packed >> 8)
        if captured:
            seen, repeated = frozenset((key,)), False
        else:
            repeated = key in self._seen
            seen = self._seen if repeated else self._seen | {key}
        ply = self._ply + 1
        packed = core.finish(pits, stores, 1 - player, ply, self._max_plies, repeated, code)
        new_stores = (int(stores[0]), int(stores[1]))
        return State._make(pits, new_stores, 1 - player, ply, self._max_plies, self._rules, packed, seen, captured)

    # --- conversion -----------------------------------------------------------------------------------------------

    def _history_fields(self) -> dict[str, Any]:
        """Rule 9's set as ``since_capture``: ``[board, to_move]`` pairs."""
        return {"since_capture": [[list(b), p] for b, p in map(key_position, sorted(self._seen))]}

    def _read_history(self, data: dict[str, Any]) -> None:
        self._seen = self._seen_from(data.get("since_capture"), self)

    @staticmethod
    def _seen_from(entries: Any, state: State) -> frozenset[int]:
        """The repetition set of a ``since_capture`` list: positions of the same seed count, this one included."""
        if entries is None:
            return state._seen
        if not isinstance(entries, list):
            raise ValueError(f"since_capture must be a list of [board, to_move] pairs, got {entries!r}")
        seen = set()
        for i, entry in enumerate(entries):
            if not isinstance(entry, (list, tuple)) or len(entry) != 2:
                raise ValueError(f"since_capture[{i}] must be a [board, to_move] pair, got {entry!r}")
            board = check_counts(f"since_capture[{i}] board", entry[0], core.NUM_PITS)
            if sum(board) != sum(state.board):
                raise ValueError(
                    f"since_capture[{i}] holds {sum(board)} seeds, the board {sum(state.board)}: a capture in between"
                )
            seen.add(int(core.position_key(_pits_of(board), check_int(f"since_capture[{i}] to_move", entry[1], 0, 1))))
        if not state._seen <= seen:
            raise ValueError("since_capture must include the position itself")
        return frozenset(seen)

    def _key(self) -> tuple:
        """Equal positions: board, stores, player to move, ply, ply limit, rules, end reason and the repetition set
        (a move can end one position by repetition and not the other); not ``last_capture``."""
        return (*super()._key(), self._status, self._seen)

    def _rule_fields(self) -> dict[str, Any]:
        return {"rules": self._rules.name}

    def __str__(self) -> str:
        """The board as its players see it across the table: player 1's row (pits 11..6) above player 0's."""
        return board_diagram(self)


# --- the board as text (the image: :mod:`awale_env.games.oware.render`) ------------------------------------------


def last_pit(state: State, last_action: int | None) -> int | None:
    """The pit ``last_action`` was played from: the player who moved to reach ``state`` is not the one to move."""
    return None if last_action is None else core.ROW * (1 - state.to_move) + int(last_action)


def status_line(state: State, last_action: int | None = None) -> str:
    """Stores, ply, rules and whose turn it is or the result, and the last move."""
    last = "" if last_action is None else f" | last move {last_action} (pit {last_pit(state, last_action)})"
    return two_rows.status_line(state, f" | rules {state.rules.name}") + last


def board_diagram(state: State, last_action: int | None = None) -> str:
    """The board as text, as its players see it across the table: player 1's row (pits 11..6) above player 0's
    (0..5), so sowing runs anticlockwise; the pit ``last_action`` was played from is bracketed."""
    marked = last_pit(state, last_action)

    def counts(pits: range) -> list[str]:
        return [f"[{state.board[p]}]" if p == marked else f"{state.board[p]} " for p in pits]

    return "\n".join(
        [
            two_rows.text_line("pit", (f"{p} " for p in two_rows.TOP), 5) + "   player 1, actions 5..0",
            two_rows.text_line("seeds", counts(two_rows.TOP), 5),
            two_rows.text_line("seeds", counts(two_rows.BOTTOM), 5),
            two_rows.text_line("pit", (f"{p} " for p in two_rows.BOTTOM), 5) + "   player 0, actions 0..5",
            status_line(state, last_action),
        ]
    )
