"""The State of the course's editions with transparent seeds (docs/editions.md): :class:`TransparentState`, an
:class:`~awale_env.games.holes.EditionState` around the kernels of :mod:`awale_env.games.editions.kernels`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from awale_env.games.base import GAME_DEFAULT
from awale_env.games.editions import kernels as core
from awale_env.games.editions import notation
from awale_env.games.holes import EditionState
from awale_env.games.validation import check_max_plies


def _spread(own: int, player: int) -> int:
    """The 64-bit legal-action mask of the per-own-hole bits of :func:`kernels.legal_bits`: own hole ``j``'s nibble
    moves to hole ``2 * j + player``'s four actions (bits ``8 * j + 4 * player`` on), spread by halves."""
    own = (own | own << 16) & 0x0000FFFF0000FFFF
    own = (own | own << 8) & 0x00FF00FF00FF00FF
    own = (own | own << 4) & 0x0F0F0F0F0F0F0F0F
    return own << (core.ACTIONS_PER_HOLE * player)


class TransparentState(EditionState):
    """A position of an edition with transparent seeds (:mod:`awale_env.games.editions.kernels`): 64 actions
    ``4 * (N - 1) + k``, k = 0 ``NR``, 1 ``NB``, 2 ``NTR``, 3 ``NTB``."""

    __slots__ = ()

    num_actions = core.NUM_ACTIONS
    colours = ("red", "blue", "transparent")
    slots = (core.RED, core.BLUE, core.TRANSPARENT)
    move_colours = ("red", "blue", "transparent", "transparent")
    example_move = "12TB"

    format_move = staticmethod(notation.format_move)
    parse_move = staticmethod(notation.parse_move)

    @classmethod
    def _rules_code(cls, **flags: Any) -> int:
        """The kernels' rules code of this edition under its rule flags ``flags`` (ValueError for a bad value)."""
        raise NotImplementedError

    @classmethod
    def initial(cls, max_plies: int | str | None = GAME_DEFAULT, seed: int | None = None, **flags: Any
                ) -> TransparentState:  # fmt: skip
        """The starting position: 2 red, 2 blue and the edition's transparent seeds in every hole, player 0 to move;
        ``max_plies`` the edition's by default, ``flags`` its rule flags (no chance in these games: the seed changes
        nothing)."""
        rules = cls._rules_code(**flags)
        seeds = np.empty(core.BOARD_SIZE, dtype=core.SEED_DTYPE)
        core.reset_board(seeds, rules)
        return cls._settled(seeds, (0, 0), 0, 0, check_max_plies(cls._limit(max_plies)), rules)

    @classmethod
    def from_position(
        cls,
        red: Iterable[int],
        blue: Iterable[int],
        transparent: Iterable[int],
        stores: Iterable[int] = (0, 0),
        to_move: int = 0,
        ply: int = 0,
        max_plies: int | str | None = GAME_DEFAULT,
        **flags: Any,
    ) -> TransparentState:
        """A position from counts per hole (index 0 = hole 1), ``max_plies`` the edition's by default and ``flags``
        its rule flags; the end checks apply at once. The board and stores may hold at most the edition's seeds
        (fewer is allowed, for studies and examples)."""
        rules = cls._rules_code(**flags)
        return cls._from_counts((red, blue, transparent), stores, to_move, ply, cls._limit(max_plies), rules)

    @classmethod
    def _end_status(cls, seeds: np.ndarray, stores: tuple[int, int], ply: int, max_plies: int, rules: int) -> int:
        return core.end_status(int(seeds.sum()), stores[0], stores[1], ply, max_plies, rules)

    @classmethod
    def _legal_bits(cls, seeds: np.ndarray, player: int) -> int:
        return _spread(core.legal_bits(seeds, player), player)

    def _step(self, seeds: np.ndarray, action: int) -> tuple[int, int, int]:
        s0, s1 = self._stores
        packed = core.step(seeds, self._to_move, action, self._ply, self._max_plies, s0, s1, self._rules)
        return packed & 0xFF, (packed >> 8) & 0xFF, _spread(packed >> 16, 1 - self._to_move)

    def _observe(self, player: int) -> np.ndarray:
        out = np.empty(core.OBS_SIZE, dtype=np.float32)
        stores = np.array(self._stores, dtype=core.STORE_DTYPE)
        core.observe(self._seeds, stores, self._ply, self._max_plies, player, self._rules, out)
        return out

    @property
    def move_limit(self) -> int | None:
        return (self._rules >> 24) or None

    @property
    def transparent(self) -> tuple[int, ...]:
        """Transparent seeds per hole, index 0 = hole 1."""
        return self.counts_of("transparent")
