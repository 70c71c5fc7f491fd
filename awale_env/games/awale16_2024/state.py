"""The 2024 edition's State (docs/editions.md): the 2021 game with the colours swapped, blue seeds sown into every
hole and red ones into the opponent's holes only.

It is the 2021 kernels (:mod:`awale_env.games.awale16.kernels`) on a relabelled board: the kernels' first colour of
a hole, the one sown everywhere, holds this edition's blue seeds, their second its red ones. So the edition's action
``2 * (N - 1) + c`` (c = 0 red, 1 blue, as in 2021) is the kernels' action ``a ^ 1``, and its legal bits are the
kernels' with each hole's two bits exchanged; that relabelling happens here, in the search kernels and in the batch,
nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from awale_env.games.awale16 import kernels as core
from awale_env.games.awale16 import notation
from awale_env.games.editions.state import EditionState
from awale_env.games.validation import check_max_plies

GAME_NAME = "awale16_2024"
DEFAULT_MAX_PLIES = 400
#: The edition has no rule variants: its rules code is 0.
RULES = 0
_LOW_BITS = 0x55555555  # the first colour of every hole


def swap_colours(bits: int) -> int:
    """Legal bits with each hole's two colours exchanged: the kernels' actions to the edition's, and back."""
    return ((bits & _LOW_BITS) << 1) | ((bits >> 1) & _LOW_BITS)


class State(EditionState):
    """A position of the 2024 edition (64 seeds, 32 actions ``2 * (N - 1) + c``, c = 0 red, 1 blue): blue seeds
    go into every hole, red ones into the opponent's holes only; everything else is the 2021 game."""

    __slots__ = ()

    game_name = GAME_NAME
    num_actions = core.NUM_ACTIONS
    end_reasons = core.END_REASONS
    total_seeds = core.TOTAL_SEEDS
    default_max_plies = DEFAULT_MAX_PLIES
    colours = ("red", "blue")
    slots = (1, 0)  # the kernels' first colour is the one sown into every hole: blue in this edition
    move_colours = ("red", "blue")
    example_move = "14R"
    format_move = staticmethod(notation.format_move)
    parse_move = staticmethod(notation.parse_move)

    @classmethod
    def initial(cls, max_plies: int | None = DEFAULT_MAX_PLIES) -> State:
        """The starting position: 2 red + 2 blue seeds in every hole, player 0 to move."""
        return cls._settled(core.initial_seeds(), (0, 0), 0, 0, check_max_plies(max_plies), RULES)

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
        """A position from counts per hole (index 0 = hole 1); the end checks apply at once. The board and stores
        may hold at most 64 seeds (fewer is allowed, as in the rules' examples)."""
        return cls._from_counts((red, blue), stores, to_move, ply, max_plies, RULES)

    @classmethod
    def _end_status(cls, seeds: np.ndarray, stores: tuple[int, int], ply: int, max_plies: int, rules: int) -> int:
        return core.end_status(int(seeds.sum()), stores[0], stores[1], ply, max_plies)

    @classmethod
    def _legal_bits(cls, seeds: np.ndarray, player: int) -> int:
        return swap_colours(core.legal_bits(seeds, player))

    def _step(self, seeds: np.ndarray, action: int) -> tuple[int, int, int]:
        s0, s1 = self._stores
        packed = core.step(seeds, self._to_move, action ^ 1, self._ply, self._max_plies, s0, s1)
        return packed & 0xFF, (packed >> 8) & 0xFF, swap_colours(packed >> 16)

    def _observe(self, player: int, out: np.ndarray) -> None:
        """2021's observation of the relabelled board: entry ``2 * k`` counts the colour sown into every hole (blue
        here), ``2 * k + 1`` the other (red), so each entry means what it means in 2021."""
        core.observe(self._seeds, np.array(self._stores), self._ply, self._max_plies, player, out)
