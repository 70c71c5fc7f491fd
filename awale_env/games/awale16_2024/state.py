"""The 2024 edition's State (docs/editions.md): the 2021 game with the colours swapped, blue seeds sown into every
hole and red ones into the opponent's holes only.

It is the 2021 game's State (:class:`awale_env.games.awale16.state.State`) on a relabelled board: the kernels' first
colour of a hole, the one sown everywhere, holds this edition's blue seeds, their second its red ones. So the
edition's action ``2 * (N - 1) + c`` (c = 0 red, 1 blue, as in 2021) is the kernels' action ``a ^ 1``, and its legal
bits are the kernels' with each hole's two bits exchanged; that relabelling happens here, in the search kernels and
in the batch, nowhere else.
"""

from __future__ import annotations

import numpy as np

from awale_env.games.awale16 import kernels as core
from awale_env.games.awale16 import state as classic
from awale_env.games.holes import EditionState, board_diagram

GAME_NAME = "awale16_2024"
DEFAULT_MAX_PLIES = classic.DEFAULT_MAX_PLIES
_LOW_BITS = 0x55555555  # the first colour of every hole


def swap_colours(bits: int) -> int:
    """Legal bits with each hole's two colours exchanged: the kernels' actions to the edition's, and back."""
    return ((bits & _LOW_BITS) << 1) | ((bits >> 1) & _LOW_BITS)


class State(classic.State):
    """A position of the 2024 edition (64 seeds, 32 actions ``2 * (N - 1) + c``, c = 0 red, 1 blue): blue seeds
    go into every hole, red ones into the opponent's holes only; everything else is the 2021 game."""

    __slots__ = ()

    game_name = GAME_NAME
    slots = (1, 0)  # the kernels' first colour is the one sown into every hole: blue in this edition
    example_move = "14R"

    @classmethod
    def _legal_bits(cls, seeds: np.ndarray, player: int) -> int:
        return swap_colours(core.legal_bits(seeds, player))

    def _step(self, seeds: np.ndarray, action: int) -> tuple[int, int, int]:
        gained, status, legal = super()._step(seeds, action ^ 1)
        return gained, status, swap_colours(legal)

    def legal_mask(self) -> np.ndarray:
        """Boolean mask of shape (32,), True for legal actions (from the legal bits: the kernel's mask is of the
        relabelled board)."""
        return EditionState.legal_mask(self)

    def __str__(self) -> str:
        return board_diagram(self)
