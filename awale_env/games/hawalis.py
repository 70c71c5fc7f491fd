"""Hawalis (Oman, 4 x 7, relay sowing): its rule flags and immutable State (rules: docs/rules_hawalis.md).

The State has the API of the two-colour :class:`awale_env.State` so that environments and agents can drive either
game; the rules themselves live in the compiled kernels of :mod:`awale_env.core.hawalis`. Players are 0 = South and
1 = North; an action is a pit ``k = 0..13`` in the mover's local indexing (rule 2), so it means the same for both.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from numbers import Integral
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from awale_env.core import hawalis as core
from awale_env.errors import IllegalMoveError
from awale_env.render import (
    _HOLE,
    _LAST,
    _OWN_HOLE,
    _TEXT,
    _WOOD,
    CELL,
    DOT_RADIUS,
    DOTS_PER_ROW,
    MARGIN,
    MAX_DOTS,
    STORE_WIDTH,
    TEXT_HEIGHT,
)

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
        if first != "random" and not (_is_int(first) and first in (0, 1)):
            raise ValueError(f"first_player must be 0 (South), 1 (North) or 'random', got {first!r}")
        if self.endless_move not in core.ENDLESS_MODES:
            raise ValueError(f"endless_move must be 'loses' or 'illegal', got {self.endless_move!r}")
        limit = self.max_plies
        if limit is not None and not (_is_int(limit) and limit >= 1):
            raise ValueError(f"max_plies must be a positive integer or None, got {limit!r}")
        # numpy integers become ints, so that to_dict stays JSON-safe and equal Rules hash alike
        if first != "random":
            object.__setattr__(self, "first_player", int(first))
        if limit is not None:
            object.__setattr__(self, "max_plies", int(limit))

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


@cache
def _actions_of(bits: int) -> tuple[int, ...]:
    return tuple(k for k in range(NUM_ACTIONS) if (bits >> k) & 1)


@cache
def _mask_of(bits: int) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    mask[list(_actions_of(bits))] = True
    mask.flags.writeable = False
    return mask


def _is_int(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _check_side(name: str, values: Iterable[Any]) -> list[int]:
    values = list(values)
    if len(values) != core.SIDE:
        raise ValueError(f"{name} must hold {core.SIDE} pit counts, got {len(values)}")
    for i, v in enumerate(values):
        if not _is_int(v):
            raise ValueError(f"{name}[{i}] must be an integer, got {v!r}")
        if v < 0:
            raise ValueError(f"{name}[{i}] must not be negative, got {v}")
    if sum(values) > core.SEEDS_PER_SIDE:
        raise ValueError(
            f"{name} holds {sum(values)} seeds; a side holds at most its owner's {core.SEEDS_PER_SIDE} (seeds never "
            "cross sides)"
        )
    return [int(v) for v in values]


def _check_player(name: str, player: Any) -> int:
    if not (_is_int(player) and player in (0, 1)):
        raise ValueError(f"{name} must be 0 (South) or 1 (North), got {player!r}")
    return int(player)


def grid_position(player: int, k: int) -> tuple[int, int]:
    """(row, column) of ``player``'s local pit ``k`` on the 4 x 7 board (rule 3): rows 0..3 from South's outer row
    to North's, columns 0..6 west to east as South sees them."""
    if player == 0:
        return (0, k) if k < core.INNER else (1, 13 - k)
    return (3, 6 - k) if k < core.INNER else (2, k - 7)


_GRID = {grid_position(p, k): (p, k) for p in (0, 1) for k in range(core.SIDE)}  # (row, column) -> (player, pit)


class State:
    """A Hawalis position and how it came to be (rules: docs/rules_hawalis.md).

    Immutable and hashable; :meth:`play` returns a new State. ``board`` lists South's 14 pits then North's 14, each
    side in its owner's local indexing: ``k = 0..6`` the outer row from the owner's left to right, ``k = 7..13`` the
    inner row from the owner's right to left (rule 2).
    """

    __slots__ = ("_pits", "_to_move", "_ply", "_rules", "_status", "_legal", "_last_pit", "_laps", "_last_capture")

    _pits: np.ndarray
    _to_move: int
    _ply: int
    _rules: Rules
    _status: int
    _legal: int
    _last_pit: int | None
    _laps: int | None
    _last_capture: int

    def __init__(self) -> None:
        raise TypeError("use State.initial() or State.from_position(...) to make a State")

    @classmethod
    def _make(cls, pits, to_move, ply, rules, status, legal, last_pit=None, laps=None, last_capture=0) -> State:
        state = object.__new__(cls)
        state._pits = pits
        state._to_move = to_move
        state._ply = ply
        state._rules = rules
        state._status = status
        state._legal = legal
        state._last_pit = last_pit
        state._laps = laps
        state._last_capture = last_capture
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
        rules = Rules(first_player, endless_move, max_plies)
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
        if not (_is_int(ply) and ply >= 0):
            raise ValueError(f"ply must be a non-negative integer, got {ply!r}")
        rules = Rules(first_player, endless_move, max_plies)
        if sum((north, south)[to_move]) == 0:
            raise ValueError(
                f"{PLAYER_NAMES[1 - to_move]} has no seed, yet moved last: a player's own seeds never leave their side"
            )
        return cls._settled(np.array(south + north, dtype=core.SEED_DTYPE), to_move, int(ply), rules)

    # --- reading ------------------------------------------------------------------------------------------------

    @property
    def board(self) -> tuple[int, ...]:
        """28 pit counts: South's 14 then North's 14, each in its owner's local indexing (rule 2)."""
        return tuple(self._pits.tolist())

    @property
    def pits(self) -> np.ndarray:
        """The board as the compiled core sees it: a read-only ``int8[28]`` laid out like :attr:`board`."""
        view = self._pits.view()
        view.flags.writeable = False
        return view

    @property
    def captured(self) -> tuple[int, int]:
        """Seeds each player has captured: ``28 - seeds left on the other side`` (rule 12)."""
        south, north = self._side_totals()
        return (core.SEEDS_PER_SIDE - north, core.SEEDS_PER_SIDE - south)

    @property
    def stores(self) -> tuple[int, int]:
        """:attr:`captured`, under the two-colour State's name."""
        return self.captured

    @property
    def to_move(self) -> int:
        """The player whose turn it is: 0 (South) or 1 (North). Still alternates once the game is over."""
        return self._to_move

    @property
    def ply(self) -> int:
        """Moves played so far, by either player."""
        return self._ply

    @property
    def rules(self) -> Rules:
        """The rule flags this game is played with."""
        return self._rules

    @property
    def max_plies(self) -> int | None:
        """The ply limit of rule 11, or None for no limit."""
        return self._rules.max_plies

    @property
    def is_terminal(self) -> bool:
        return self._status != core.ONGOING

    @property
    def end_reason(self) -> str | None:
        """``"opponent_empty"``, ``"no_legal_move"``, ``"endless_move"`` or ``"ply_limit"``; None while live."""
        return core.END_REASONS[self._status]

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

    @property
    def last_capture(self) -> int:
        """Seeds the move that led here captured."""
        return self._last_capture

    def _side_totals(self) -> tuple[int, int]:
        return int(self._pits[: core.SIDE].sum()), int(self._pits[core.SIDE :].sum())

    def returns(self) -> tuple[float, float]:
        """+1 / -1 / 0 for each player once the game is over; (0.0, 0.0) before."""
        winner = self.winner
        if winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def legal_actions(self) -> list[int]:
        """Legal pits of the player to move, sorted; empty once the game is over."""
        return list(_actions_of(self._legal))

    def legal_mask(self) -> np.ndarray:
        """Boolean mask of shape (14,), True for legal actions."""
        return _mask_of(self._legal).copy()

    def is_legal(self, action: Any) -> bool:
        return _is_int(action) and 0 <= action < NUM_ACTIONS and bool((self._legal >> int(action)) & 1)

    def observation_tensor(self, player: int | None = None) -> np.ndarray:
        """Float32 vector of length 29 from ``player``'s point of view (default: the player to move): own pits, the
        opponent's pits, ply fraction; the layout is documented in :func:`awale_env.core.hawalis.observe`."""
        player = self._to_move if player is None else _check_player("player", player)
        out = np.empty(OBS_SIZE, dtype=np.float32)
        core.observe(self._pits, self._ply, self._rules.ply_limit, player, out)
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

    def to_action(self, action: Any) -> int:
        """``action`` as a legal pit index, or IllegalMoveError naming it and the legal moves."""
        if type(action) is int and 0 <= action < NUM_ACTIONS and (self._legal >> action) & 1:
            return action  # fast path for the common case
        if not _is_int(action):
            raise IllegalMoveError(f"a Hawalis move is a pit index 0-{NUM_ACTIONS - 1}, got {action!r}")
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalMoveError(f"action {action} out of range: a move is a pit index 0-{NUM_ACTIONS - 1}")
        if (self._legal >> action) & 1:
            return action
        if self._status != core.ONGOING:
            raise IllegalMoveError(f"cannot play {action}: the game is over ({self.end_reason})")
        legal = " ".join(map(str, self.legal_actions()))
        raise IllegalMoveError(
            f"illegal move {action} for {PLAYER_NAMES[self._to_move]} (player {self._to_move}): "
            f"{self._why_illegal(action)}; legal moves: {legal}"
        )

    def play(self, action: int) -> State:
        """The State after the mover sows from pit ``action``; this State is left unchanged.

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

    def clone(self) -> State:
        """States are immutable, so a clone is the State itself (kept for OpenSpiel-style code)."""
        return self

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
        if not isinstance(data, dict):
            raise ValueError(f"a State dict must be a dict, got {type(data).__name__}")
        if data.get("game", GAME_NAME) != GAME_NAME:
            raise ValueError(f"this is a {data.get('game')!r} position, not {GAME_NAME!r}")
        missing = [k for k in ("south", "north", "to_move", "ply") if k not in data]
        if missing:
            raise ValueError(f"State dict lacks {', '.join(missing)}")
        flags = {k: data[k] for k in ("first_player", "endless_move", "max_plies") if k in data}
        state = cls.from_position(data["south"], data["north"], data["to_move"], data["ply"], **flags)
        if "captured" in data and list(data["captured"]) != list(state.captured):
            raise ValueError(f"captured {data['captured']!r} disagrees with the board, which gives {state.captured}")
        reason = data.get("end_reason", state.end_reason)
        if reason == "endless_move" and state._ply > 0:
            state._status, state._legal = core.ENDLESS_MOVE, 0
        elif reason != state.end_reason:
            raise ValueError(f"end_reason {reason!r} disagrees with the position, which gives {state.end_reason!r}")
        last_pit, laps, last_capture = data.get("last_pit"), data.get("laps"), data.get("last_capture", 0)
        if (last_pit is None) != (laps is None) or (reason == "endless_move" and last_pit is not None):
            raise ValueError("last_pit and laps are both given for a finite move or both None")
        if last_pit is not None and not (_is_int(last_pit) and 0 <= last_pit < core.SIDE):
            raise ValueError(f"last_pit must be a pit 0-13 or None, got {last_pit!r}")
        if laps is not None and not (_is_int(laps) and 1 <= laps <= core.MAX_LAPS):
            raise ValueError(f"laps must be a positive integer or None, got {laps!r}")
        if not (_is_int(last_capture) and 0 <= last_capture <= core.SEEDS_PER_SIDE):
            raise ValueError(f"last_capture must be an integer 0-{core.SEEDS_PER_SIDE}, got {last_capture!r}")
        state._last_pit = None if last_pit is None else int(last_pit)
        state._laps = None if laps is None else int(laps)
        state._last_capture = int(last_capture)
        return state

    def _key(self) -> tuple:
        return (self._pits.tobytes(), self._to_move, self._ply, self._rules, self._status)

    def __eq__(self, other: object) -> bool:
        """Equal positions: board, player to move, ply, rules and status (not the last move's details)."""
        if not isinstance(other, State):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        board = self.board
        return (
            f"hawalis.State(south={list(board[: core.SIDE])}, north={list(board[core.SIDE :])}, "
            f"to_move={self._to_move}, ply={self._ply}, rules={self._rules})"
        )

    def __str__(self) -> str:
        return board_diagram(self)

    def _repr_png_(self) -> bytes:
        """The board as a PNG image, so a notebook shows the position."""
        buffer = io.BytesIO()
        Image.fromarray(render_rgb(self)).save(buffer, format="PNG")
        return buffer.getvalue()


# --- pictures ------------------------------------------------------------------------------------------------------

_ROWS = (  # screen rows top to bottom: (grid row, owner, label)
    (3, 1, "N outer  6..0"),
    (2, 1, "N inner 7..13"),
    (1, 0, "S inner 13..7"),
    (0, 0, "S outer  0..6"),
)


def _last_cell(state: State) -> tuple[int, int] | None:
    """(row, column) of the pit where the last move ended, if there is one."""
    return None if state.last_pit is None else grid_position(1 - state.to_move, state.last_pit)


def status_line(state: State) -> str:
    """Captures, ply and whose turn it is or the result."""
    south, north = state.captured
    limit = "no limit" if state.max_plies is None else f"of {state.max_plies}"
    if state.is_terminal:
        result = "draw" if state.winner is None else f"{PLAYER_NAMES[state.winner]} wins"
        status = f"game over ({state.end_reason}): {result}"
    else:
        status = f"{PLAYER_NAMES[state.to_move]} ({state.to_move}) to move"
    return f"captured: South {south} | North {north} | ply {state.ply} {limit} | {status}"


def board_diagram(state: State) -> str:
    """The 4 x 7 board as text, laid out as rule 3 (North's rows on top, columns west to east as South sees them),
    each row labelled with the local indices of its pits; the pit where the last move ended is bracketed."""
    last = _last_cell(state)
    lines = [(" " * 15 + "".join(f"{c:>4} " for c in range(7))).rstrip()]
    for row, _, label in _ROWS:
        cells = []
        for col in range(7):
            player, k = _GRID[row, col]
            count = str(int(state.pits[core.SIDE * player + k]))
            cells.append(f"[{count}]".rjust(5) if (row, col) == last else f"{count} ".rjust(5))
        lines.append((f"{label} |" + "".join(cells)).rstrip())
        if row == 2:
            lines.append(" " * 14 + "+" + "-" * 35)
    return "\n".join([*lines, status_line(state)])


_SEED = (235, 222, 190)
_GAP = 10  # pixels between North's rows and South's


def render_rgb(state: State) -> np.ndarray:
    """The 4 x 7 board as an RGB image (H x W x 3 uint8) in the style of the two-colour game's pictures: North's
    rows on top, South's (lighter holes) below, each pit's seeds drawn and counted with its local index, the
    captured seeds at the sides (North's left, South's right), the pit where the last move ended ringed in yellow."""
    font = ImageFont.load_default()
    row_height = CELL + TEXT_HEIGHT
    board_height = 4 * row_height + _GAP
    width = 2 * MARGIN + 2 * STORE_WIDTH + 7 * CELL
    height = 2 * MARGIN + board_height + 2 * TEXT_HEIGHT
    image = Image.new("RGB", (width, height), _WOOD)
    draw = ImageDraw.Draw(image)
    last = _last_cell(state)
    left = MARGIN + STORE_WIDTH
    for screen_row, (row, owner, _) in enumerate(_ROWS):
        top = MARGIN + screen_row * row_height + (_GAP if owner == 0 else 0)
        for col in range(7):
            player, k = _GRID[row, col]
            seeds = int(state.pits[core.SIDE * player + k])
            x0, y0 = left + col * CELL, top + TEXT_HEIGHT
            outline = _LAST if (row, col) == last else None
            box = (x0 + 4, y0 + 4, x0 + CELL - 4, y0 + CELL - 4)
            draw.ellipse(box, fill=_OWN_HOLE if owner == 0 else _HOLE, outline=outline, width=4)
            _draw_seeds(draw, x0 + CELL // 2, y0 + CELL // 2, seeds)
            draw.text((x0 + 6, top + 3), f"{'SN'[player]}{k}", fill=_TEXT, font=font)
            draw.text((x0 + CELL - 22, top + 3), str(seeds), fill=_TEXT, font=font)
    for player, x0 in ((1, MARGIN), (0, width - MARGIN - STORE_WIDTH)):
        draw.rounded_rectangle((x0 + 4, MARGIN + 4, x0 + STORE_WIDTH - 4, MARGIN + board_height - 4), 16, fill=_HOLE)
        draw.text((x0 + 12, MARGIN + board_height // 2 - 12), PLAYER_NAMES[player], fill=_TEXT, font=font)
        draw.text((x0 + 12, MARGIN + board_height // 2 + 4), str(state.captured[player]), fill=_TEXT, font=font)
    draw.text((MARGIN, MARGIN + board_height + 6), status_line(state), fill=_TEXT, font=font)
    return np.asarray(image, dtype=np.uint8).copy()


def _draw_seeds(draw: ImageDraw.ImageDraw, cx: int, cy: int, seeds: int) -> None:
    """Up to ``MAX_DOTS`` dots in a small grid centred on the pit."""
    shown = min(seeds, MAX_DOTS)
    step = 2 * DOT_RADIUS + 3
    rows = -(-shown // DOTS_PER_ROW)
    for i in range(shown):
        x = cx + (i % DOTS_PER_ROW - (DOTS_PER_ROW - 1) / 2) * step
        y = cy + (i // DOTS_PER_ROW - (rows - 1) / 2) * step
        draw.ellipse((x - DOT_RADIUS, y - DOT_RADIUS, x + DOT_RADIUS, y + DOT_RADIUS), fill=_SEED)
