"""Hawalis (Oman, 4 x 7, relay sowing): its rule flags and immutable State (rules: docs/rules_hawalis.md).

The State has the API of the two-colour :class:`awale_env.State` (:class:`~awale_env.games.base.BoardState`) so that
environments and agents can drive any game; the rules themselves live in the compiled kernels of
:mod:`awale_env.games.hawalis.kernels`. Players are 0 = South and
1 = North; an action is a pit ``k = 0..13`` in the mover's local indexing (rule 2), so it means the same for both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from awale_env.games.base import BoardState, read_only
from awale_env.games.hawalis import kernels as core
from awale_env.games.validation import check_counts, check_max_plies, check_ply, check_seed, is_int

NUM_ACTIONS = core.NUM_ACTIONS
OBS_SIZE = core.OBS_SIZE
DEFAULT_MAX_PLIES = 1000
GAME_NAME = "hawalis"
PLAYER_NAMES = ("South", "North")

_SCRATCH = core.new_scratch()  # kernels hold the GIL, so one work buffer serves every State


@dataclass(frozen=True)
class Rules:
    """The rule flags of Hawalis, validated: who moves first (rule 4: 0, 1 or ``"random"``), what choosing an
    endless move does (rule 8: ``"loses"`` or ``"illegal"``) and the ply limit (rule 11; None for none)."""

    first_player: int | str = 0
    endless_move: str = "loses"
    max_plies: int | None = DEFAULT_MAX_PLIES

    def __post_init__(self) -> None:
        first = self.first_player
        if first != "random" and not (is_int(first) and first in (0, 1)):
            raise ValueError(f"first_player must be 0 (South), 1 (North) or 'random', got {first!r}")
        if self.endless_move not in core.ENDLESS_MODES:
            raise ValueError(f"endless_move must be 'loses' or 'illegal', got {self.endless_move!r}")
        # numpy integers become ints, so that to_dict stays JSON-safe and equal Rules hash alike
        if first != "random":
            object.__setattr__(self, "first_player", int(first))
        if self.max_plies is not None:
            object.__setattr__(self, "max_plies", check_max_plies(self.max_plies))

    @property
    def endless_code(self) -> int:
        """``endless_move`` as the kernels' flag (``core.ENDLESS_LOSES`` / ``core.ENDLESS_ILLEGAL``)."""
        return core.ENDLESS_MODES.index(self.endless_move)

    @property
    def ply_limit(self) -> int:
        """``max_plies`` as the kernels take it (``core.NO_LIMIT`` for None)."""
        return core.NO_LIMIT if self.max_plies is None else int(self.max_plies)

    def to_dict(self) -> dict[str, Any]:
        return {"first_player": self.first_player, "endless_move": self.endless_move, "max_plies": self.max_plies}


def _check_side(name: str, values: Iterable[Any]) -> list[int]:
    values = check_counts(name, values, core.SIDE, "pit counts")
    if sum(values) > core.SEEDS_PER_SIDE:
        raise ValueError(
            f"{name} holds {sum(values)} seeds; a side holds at most its owner's {core.SEEDS_PER_SIDE} (seeds never "
            "cross sides)"
        )
    return values


def _check_player(name: str, player: Any) -> int:
    if not (is_int(player) and player in (0, 1)):
        raise ValueError(f"{name} must be 0 (South) or 1 (North), got {player!r}")
    return int(player)


def grid_position(player: int, k: int) -> tuple[int, int]:
    """(row, column) of ``player``'s local pit ``k`` on the 4 x 7 board (rule 3): rows 0..3 from South's outer row
    to North's, columns 0..6 west to east as South sees them."""
    if player == 0:
        return (0, k) if k < core.INNER else (1, 13 - k)
    return (3, 6 - k) if k < core.INNER else (2, k - 7)


GRID = {grid_position(p, k): (p, k) for p in (0, 1) for k in range(core.SIDE)}  # (row, column) -> (player, pit)


class State(BoardState):
    """A Hawalis position and how it came to be (rules: docs/rules_hawalis.md).

    Immutable and hashable; :meth:`play` returns a new State. ``board`` lists South's 14 pits then North's 14, each
    side in its owner's local indexing: ``k = 0..6`` the outer row from the owner's left to right, ``k = 7..13`` the
    inner row from the owner's right to left (rule 2).
    """

    __slots__ = ("_pits", "_rules", "_last_pit", "_laps")

    _pits: np.ndarray
    _rules: Rules
    _last_pit: int | None
    _laps: int | None

    num_actions = NUM_ACTIONS
    end_reasons = core.END_REASONS
    move_noun = "a pit index"

    @classmethod
    def _make(cls, pits, to_move, ply, rules, status, legal, last_pit=None, laps=None, last_capture=0) -> State:
        # no stores: the captures follow from the board (:attr:`captured`)
        state = cls._new(None, to_move, ply, rules.ply_limit, status, legal, last_capture)
        state._pits = pits
        state._rules = rules
        state._last_pit = last_pit
        state._laps = laps
        return state

    @classmethod
    def _settled(cls, pits: np.ndarray, to_move: int, ply: int, rules: Rules) -> State:
        """A State whose end checks (rules 9-11) are made on its board."""
        packed = core.end_status(pits, to_move, ply, rules.ply_limit, rules.endless_code, _SCRATCH)
        return cls._make(pits, to_move, ply, rules, packed & 7, packed >> 3)

    # --- construction -----------------------------------------------------------------------------------------

    @classmethod
    def initial(
        cls,
        *,
        first_player: int | str = 0,
        endless_move: str = "loses",
        max_plies: int | None = DEFAULT_MAX_PLIES,
        seed: int | None = None,
    ) -> State:
        """The starting position, 2 seeds in every pit; ``seed`` draws the first player when it is ``"random"``."""
        rules, seed = Rules(first_player, endless_move, max_plies), check_seed(seed)
        to_move = int(np.random.default_rng(seed).integers(2)) if first_player == "random" else int(first_player)
        return cls._settled(core.initial_pits(), to_move, 0, rules)

    @classmethod
    def from_position(
        cls,
        south: Iterable[int],
        north: Iterable[int],
        to_move: int = 0,
        ply: int = 0,
        *,
        first_player: int | str = 0,
        endless_move: str = "loses",
        max_plies: int | None = DEFAULT_MAX_PLIES,
    ) -> State:
        """A position from each side's 14 pit counts in local indexing; the end checks of rules 9-11 apply at once.

        ``captured[p]`` follows from the board (``28 - seeds on the other side``), so a side may hold at most 28.
        A position in which the player who just moved has no seed cannot arise (own seeds never leave one's side)
        and is rejected.
        """
        south = _check_side("south", south)
        north = _check_side("north", north)
        to_move = _check_player("to_move", to_move)
        ply = check_ply(ply)
        rules = Rules(first_player, endless_move, max_plies)
        if sum((north, south)[to_move]) == 0:
            raise ValueError(
                f"{PLAYER_NAMES[1 - to_move]} has no seed, yet moved last: a player's own seeds never leave their side"
            )
        return cls._settled(np.array(south + north, dtype=core.SEED_DTYPE), to_move, int(ply), rules)

    def at_position(self, board: np.ndarray, stores: tuple[int, int], to_move: int, ply: int) -> State:
        rules = self._rules
        board = board.tolist()
        return self.from_position(board[: core.SIDE], board[core.SIDE :], to_move, ply, first_player=rules.first_player,
                                  endless_move=rules.endless_move, max_plies=rules.max_plies)  # fmt: skip

    @property
    def first_player_drawn(self) -> bool:
        return self._rules.first_player == "random"

    # --- reading ------------------------------------------------------------------------------------------------

    @property
    def board(self) -> tuple[int, ...]:
        """28 pit counts: South's 14 then North's 14, each in its owner's local indexing (rule 2)."""
        return tuple(self._pits.tolist())

    @property
    def pits(self) -> np.ndarray:
        """The board as the compiled core sees it: a read-only ``int8[28]`` laid out like :attr:`board`."""
        return read_only(self._pits)

    @property
    def captured(self) -> tuple[int, int]:
        """Seeds each player has captured: ``28 - seeds left on the other side`` (rule 12)."""
        south, north = self._side_totals()
        return (core.SEEDS_PER_SIDE - north, core.SEEDS_PER_SIDE - south)

    #: :attr:`captured`, under the name every game's State gives it.
    stores = captured

    @property
    def rules(self) -> Rules:
        """The rule flags this game is played with."""
        return self._rules

    @property
    def winner(self) -> int | None:
        """0 or 1 once the game is over and someone won; None for a draw or a live game."""
        winner = core.winner(self._pits, self._status, self._to_move)
        return None if winner == core.NO_WINNER else int(winner)

    @property
    def last_pit(self) -> int | None:
        """Where the move that led here ended (the mover's local pit); None at the start or after an endless move."""
        return self._last_pit

    @property
    def laps(self) -> int | None:
        """Sowing rounds of the move that led here (1 + pick-ups); None at the start or after an endless move."""
        return self._laps

    def _side_totals(self) -> tuple[int, int]:
        return int(self._pits[: core.SIDE].sum()), int(self._pits[core.SIDE :].sum())

    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        """Float32 vector of length 29 from ``player``'s point of view (default: the player to move): own pits, the
        opponent's pits, ply fraction; the layout is documented in :func:`awale_env.games.hawalis.kernels.observe`."""
        out = np.empty(OBS_SIZE, dtype=np.float32)
        core.observe(self._pits, self._ply, self._rules.ply_limit, self._viewer(player), out)
        return out

    # --- playing ------------------------------------------------------------------------------------------------

    def _why_illegal(self, action: int) -> str:
        side = self._pits[core.SIDE * self._to_move : core.SIDE * (self._to_move + 1)]
        seeds, following = int(side[action]), int(side[(action + 1) % core.SIDE])
        if seeds == 0:
            return f"pit {action} is empty"
        if seeds == 1 and int(side.max()) >= 2:
            return f"pit {action} holds a single seed while a pit holds 2 or more"
        if seeds == 1 and following:
            return f"pit {action} holds a single seed and the next pit {(action + 1) % core.SIDE} is occupied"
        return f"pit {action} starts an endless move (endless_move='illegal')"

    def _mover(self) -> str:
        return f"{PLAYER_NAMES[self._to_move]} (player {self._to_move})"

    def play(self, action: int | str) -> State:
        """The State after the mover sows from pit ``action`` (an int or a digit string); this State is left
        unchanged.

        An endless move under ``endless_move="loses"`` ends the game, the mover losing and the board as it was.
        """
        action = self.to_action(action)
        pits = self._pits.copy()
        rules = self._rules
        packed = core.step(pits, self._to_move, action, self._ply, rules.ply_limit, rules.endless_code, _SCRATCH)
        laps = packed >> 27
        if laps == 0:
            return State._make(self._pits, 1 - self._to_move, self._ply + 1, rules, core.ENDLESS_MOVE, 0)
        return State._make(
            pits,
            1 - self._to_move,
            self._ply + 1,
            rules,
            packed & 7,
            (packed >> 3) & 0x3FFF,
            (packed >> 23) & 15,
            laps,
            (packed >> 17) & 63,
        )

    # --- conversion -----------------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict that :meth:`from_dict` turns back into an equal State."""
        board = self.board
        return {
            "game": GAME_NAME,
            "south": list(board[: core.SIDE]),
            "north": list(board[core.SIDE :]),
            "to_move": self._to_move,
            "ply": self._ply,
            **self._rules.to_dict(),
            "captured": list(self.captured),
            "end_reason": self.end_reason,
            "last_pit": self._last_pit,
            "laps": self._laps,
            "last_capture": self._last_capture,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> State:
        """Rebuild a State from :meth:`to_dict`, validating every field.

        The board decides every end of the game but one: ``"endless_move"`` leaves the board as it was, so it is
        taken from ``end_reason``.
        """
        data = cls._dict_fields(data, ("south", "north", "to_move", "ply"))
        flags = {k: data[k] for k in ("first_player", "endless_move", "max_plies") if k in data}
        state = cls.from_position(data["south"], data["north"], data["to_move"], data["ply"], **flags)
        captured = data.get("captured", state.captured)
        if not isinstance(captured, (list, tuple)) or list(captured) != list(state.captured):
            raise ValueError(f"captured {captured!r} disagrees with the board, which gives {state.captured}")
        reason = data.get("end_reason", state.end_reason)
        if reason == "endless_move" and state._ply > 0:
            state._status, state._legal = core.ENDLESS_MOVE, 0
        elif reason != state.end_reason:
            raise ValueError(f"end_reason {reason!r} disagrees with the position, which gives {state.end_reason!r}")
        last_pit, laps, last_capture = data.get("last_pit"), data.get("laps"), data.get("last_capture", 0)
        if (last_pit is None) != (laps is None) or (reason == "endless_move" and last_pit is not None):
            raise ValueError("last_pit and laps are both given for a finite move or both None")
        if last_pit is not None and not (is_int(last_pit) and 0 <= last_pit < core.SIDE):
            raise ValueError(f"last_pit must be a pit 0-13 or None, got {last_pit!r}")
        if laps is not None and not (is_int(laps) and 1 <= laps <= core.MAX_LAPS):
            raise ValueError(f"laps must be a positive integer or None, got {laps!r}")
        if not (is_int(last_capture) and 0 <= last_capture <= core.SEEDS_PER_SIDE):
            raise ValueError(f"last_capture must be an integer 0-{core.SEEDS_PER_SIDE}, got {last_capture!r}")
        state._last_pit = None if last_pit is None else int(last_pit)
        state._laps = None if laps is None else int(laps)
        state._last_capture = int(last_capture)
        return state

    def _key(self) -> tuple:
        """Equal positions: board, player to move, ply, rules and status (not the last move's details)."""
        return (self._pits.tobytes(), self._to_move, self._ply, self._rules, self._status)

    def _board_fields(self) -> dict[str, Any]:
        return {"south": list(self.board[: core.SIDE]), "north": list(self.board[core.SIDE :])}

    def _rule_fields(self) -> dict[str, Any]:
        return {"rules": self._rules}

    def __str__(self) -> str:
        return board_diagram(self)


# --- the board as text (the image: :mod:`awale_env.games.hawalis.render`) ----------------------------------------

ROWS = (  # screen rows top to bottom: (grid row, owner, label)
    (3, 1, "N outer  6..0"),
    (2, 1, "N inner 7..13"),
    (1, 0, "S inner 13..7"),
    (0, 0, "S outer  0..6"),
)


def last_cell(state: State) -> tuple[int, int] | None:
    """(row, column) of the pit where the last move ended, if there is one."""
    return None if state.last_pit is None else grid_position(1 - state.to_move, state.last_pit)


def status_line(state: State) -> str:
    """Captures, ply and whose turn it is or the result."""
    south, north = state.captured
    limit = "no limit" if state.max_plies is None else f"of {state.max_plies}"
    status = state.result_text(PLAYER_NAMES) or f"{PLAYER_NAMES[state.to_move]} ({state.to_move}) to move"
    return f"captured: South {south} | North {north} | ply {state.ply} {limit} | {status}"


def board_diagram(state: State) -> str:
    """The 4 x 7 board as text, laid out as rule 3 (North's rows on top, columns west to east as South sees them),
    each row labelled with the local indices of its pits; the pit where the last move ended is bracketed."""
    last = last_cell(state)
    lines = [(" " * 15 + "".join(f"{c:>4} " for c in range(7))).rstrip()]
    for row, _, label in ROWS:
        cells = []
        for col in range(7):
            player, k = GRID[row, col]
            count = str(int(state.pits[core.SIDE * player + k]))
            cells.append(f"[{count}]".rjust(5) if (row, col) == last else f"{count} ".rjust(5))
        lines.append((f"{label} |" + "".join(cells)).rstrip())
        if row == 2:
            lines.append(" " * 14 + "+" + "-" * 35)
    return "\n".join([*lines, status_line(state)])
