"""The game protocol: what environments, agents and the arena need to know about a game, so that one code path runs
every game of the toolkit (the two-colour Awale, Oware, Hawalis) with no game-specific branches.

A :class:`Game` names the game, its action and observation sizes, its ``State`` class and default ply limit, and
builds starting positions from validated options; moves and pictures go through it as well. Every ``State`` has the
API of :class:`awale_env.State` (``play``, ``legal_mask``, ``observation_tensor``, ``returns``, ...), and its actions
``0..num_actions-1`` are the moves of the player to move.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
from gymnasium import spaces

from awale_env import render as awale16_render
from awale_env.core import awale16 as awale16_core
from awale_env.errors import IllegalMoveError
from awale_env.games import hawalis, oware
from awale_env.notation import format_move, parse_move
from awale_env.rules import DEFAULT_MAX_PLIES
from awale_env.rules import State as Awale16State

#: The options :meth:`Game.initial` takes for every game, beside the game's own rule flags.
COMMON_OPTIONS = ("max_plies", "seed")
#: ``max_plies=GAME_DEFAULT`` (every environment's default) asks for the game's own ply limit; None means no limit.
GAME_DEFAULT = "default"


@dataclass(frozen=True)
class Game(ABC):
    """One game of the toolkit.

    ``title`` names its environments (``awale_env/{title}-v0`` for Gymnasium, the lower-case one for PettingZoo);
    ``total_seeds`` scales the ``"score_diff"`` rewards (a game's rewards add up to the final store difference
    divided by it); ``rule_options`` are the rule flags :meth:`initial` accepts beside ``max_plies`` and ``seed``.
    """

    name: str
    title: str
    num_actions: int
    obs_size: int
    state_type: type
    default_max_plies: int
    total_seeds: int
    rule_options: tuple[str, ...]
    board_entries: int
    max_board_entry: float

    def observation_space(self) -> spaces.Box:
        """The Box of ``State.observation_tensor``: float32[obs_size], the first ``board_entries`` entries pit
        contents (at most ``max_board_entry``: every seed of the game in one pit), the others fractions in [0, 1]."""
        high = np.ones(self.obs_size, dtype=np.float32)
        high[: self.board_entries] = self.max_board_entry
        return spaces.Box(low=np.zeros(self.obs_size, dtype=np.float32), high=high, dtype=np.float32)

    @property
    def options(self) -> tuple[str, ...]:
        """Every option :meth:`initial` accepts."""
        return (*COMMON_OPTIONS, *self.rule_options)

    def check_options(self, options: dict[str, Any], rule_flags_only: bool = False) -> None:
        """Raise ValueError naming the allowed options if ``options`` holds another one (the values are checked by
        the game's ``State.initial``). ``rule_flags_only``: allow only :attr:`rule_options` (environments take
        ``max_plies`` themselves and the seed from ``reset``)."""
        allowed = self.rule_options if rule_flags_only else self.options
        unknown = sorted(set(options) - set(allowed))
        if rule_flags_only and "seed" in unknown:
            raise ValueError("seed is not an environment option: pass it to reset(seed=...)")
        if unknown:
            what = "rule options" if rule_flags_only else "options"
            raise ValueError(
                f"unknown option(s) {', '.join(map(repr, unknown))} for the game {self.name!r}; "
                f"its {what} are {', '.join(allowed) or 'none'}"
            )

    def ply_limit(self, max_plies: int | str | None) -> int | None:
        """``max_plies`` with :data:`GAME_DEFAULT` replaced by :attr:`default_max_plies` (other values unchecked)."""
        return self.default_max_plies if isinstance(max_plies, str) and max_plies == GAME_DEFAULT else max_plies

    def initial(self, **options: Any) -> Any:
        """The starting position. ``max_plies`` defaults to :attr:`default_max_plies` (None: no limit), ``seed``
        draws whatever the rules leave to chance (Oware's ``"texts"`` first player); the game's rule flags
        (:attr:`rule_options`) pass through to its ``State.initial``."""
        self.check_options(options)
        options.setdefault("max_plies", self.default_max_plies)
        return self._initial(**options)

    @abstractmethod
    def _initial(self, max_plies: int | None, seed: int | None = None, **flags: Any) -> Any:
        """The game's ``State.initial`` with checked option names."""

    def action_shift(self, player: int) -> int:
        """How far ``player``'s actions are turned from the mover's own numbering: the mover's relative action r is
        the game's action ``(r + action_shift(player)) % num_actions``. Oware and Hawalis number actions from the
        mover's side already (0), so one network can play both seats without it."""
        return 0

    def format_move(self, action: int) -> str:
        """How a move is written: the action number itself unless the game has a notation."""
        if isinstance(action, bool) or not isinstance(action, Integral) or not 0 <= action < self.num_actions:
            raise IllegalMoveError(f"action {action!r} out of range: {self.name} actions are 0-{self.num_actions - 1}")
        return str(int(action))

    def parse_move(self, text: str) -> int:
        """The action of a move written as :meth:`format_move` writes it (IllegalMoveError for anything else)."""
        digits = text.strip() if isinstance(text, str) else ""
        if digits.isascii() and digits.isdigit() and int(digits) < self.num_actions:
            return int(digits)
        raise IllegalMoveError(f"malformed move {text!r}: {self.name} moves are numbers 0-{self.num_actions - 1}")

    @abstractmethod
    def render_rgb(self, state: Any, last_action: int | None = None) -> np.ndarray:
        """The position as an RGB image, H x W x 3 uint8."""

    @abstractmethod
    def render_ansi(self, state: Any, last_action: int | None = None) -> str:
        """The position as text (ANSI colours where the game has them)."""


@dataclass(frozen=True)
class Awale16(Game):
    """The two-colour, 16-hole Awale (docs/rules.md): moves are written ``"14B"``; no rule flags."""

    def _initial(self, max_plies: int | None, seed: int | None = None, **flags: Any) -> Awale16State:
        return Awale16State.initial(max_plies)  # no chance in this game: the seed changes nothing

    def action_shift(self, player: int) -> int:
        """Actions are absolute (rule 13); player 1's holes are player 0's turned by one hole (two actions)."""
        return 2 * player

    def format_move(self, action: int) -> str:
        return format_move(action)

    def parse_move(self, text: str) -> int:
        return parse_move(text)

    def render_rgb(self, state: Awale16State, last_action: int | None = None) -> np.ndarray:
        return awale16_render.board_image(state, last_action)

    def render_ansi(self, state: Awale16State, last_action: int | None = None) -> str:
        return awale16_render.ansi_board(state, last_action)


@dataclass(frozen=True)
class Oware(Game):
    """Classic Oware, 2 x 6 (docs/rules_oware.md): ``preset`` ``"texts"`` (default) or ``"openspiel"`` and each
    rule flag of :class:`awale_env.games.oware.Rules`."""

    def _initial(self, max_plies: int | None, seed: int | None = None, **flags: Any) -> oware.State:
        return oware.State.initial(max_plies=max_plies, seed=seed, **flags)

    def render_rgb(self, state: oware.State, last_action: int | None = None) -> np.ndarray:
        return oware.render_rgb(state, last_action)

    def render_ansi(self, state: oware.State, last_action: int | None = None) -> str:
        return oware.board_diagram(state, last_action)


@dataclass(frozen=True)
class Hawalis(Game):
    """Hawalis, 4 x 7 with relay sowing (docs/rules_hawalis.md): rule flags ``first_player`` and
    ``endless_move``. Its pictures mark where the last move ended, which says more than the pit it started from."""

    def _initial(self, max_plies: int | None, seed: int | None = None, **flags: Any) -> hawalis.State:
        return hawalis.State.initial(max_plies=max_plies, seed=seed, **flags)

    def render_rgb(self, state: hawalis.State, last_action: int | None = None) -> np.ndarray:
        return hawalis.render_rgb(state)

    def render_ansi(self, state: hawalis.State, last_action: int | None = None) -> str:
        return hawalis.board_diagram(state)


AWALE16 = Awale16(
    "awale16",
    "Awale",
    awale16_core.NUM_ACTIONS,
    awale16_core.OBS_SIZE,
    Awale16State,
    DEFAULT_MAX_PLIES,
    awale16_core.TOTAL_SEEDS,
    (),
    awale16_core.NUM_ACTIONS,  # both colours of every hole
    awale16_core.TOTAL_SEEDS / awale16_core.SEED_SCALE,
)
OWARE = Oware(
    "oware",
    "Oware",
    oware.NUM_ACTIONS,
    oware.core.OBS_SIZE,
    oware.State,
    oware.DEFAULT_MAX_PLIES,
    oware.core.TOTAL_SEEDS,
    ("preset", "first_player", "grand_slam", "on_repetition", "on_no_move", "stop_at_majority"),
    oware.core.NUM_PITS,
    oware.core.TOTAL_SEEDS / oware.core.SEED_SCALE,
)
HAWALIS = Hawalis(
    "hawalis",
    "Hawalis",
    hawalis.NUM_ACTIONS,
    hawalis.OBS_SIZE,
    hawalis.State,
    hawalis.DEFAULT_MAX_PLIES,
    2 * hawalis.core.SEEDS_PER_SIDE,
    ("first_player", "endless_move"),
    hawalis.core.BOARD_SIZE,
    hawalis.core.SEEDS_PER_SIDE / hawalis.core.SEED_SCALE,  # captured seeds leave the board: a side holds <= 28
)
