"""The toy game with another turn: the toy mancala of tests/toy_game/, except that a move whose last seed lands in an
empty pit of the mover's own row gives the mover another turn (captures only ever end on the other row; the first
move of a game never does: every pit holds seeds). Registered from the tests
alone (the ``toy_turns`` fixture), it tests that the compiled searches follow the mover through the search kernels'
``next_player`` rather than assume that the players alternate.

It is the toy game's package with what the rule changes: :mod:`.rules` (who moves next, random playouts),
:meth:`State.play`, the State's name in its dict, and the search kernels (:mod:`.search`) with their env class.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from toy_game import GAME as TOY
from toy_game import kernels
from toy_game.state import State as ToyState

from awale_env.games import register

from .rules import mover_after

GAME_NAME = "toy_turns"


class State(ToyState):
    """A position of the toy game with another turn."""

    __slots__ = ()

    def play(self, move: int | str) -> State:
        """The State after ``move``, the mover to move again when its last seed lands in an empty own pit."""
        action = self.to_action(move)
        after = int(mover_after(self._board, self._to_move, action))
        board, stores = self._board.copy(), np.array(self._stores, dtype=kernels.STORE_DTYPE)
        captured = int(kernels.sow(board, stores, self._to_move, action))
        return type(self)._make(board, stores, after, self._ply + 1, self._max_plies, captured)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "game": GAME_NAME}  # from_dict, the toy game's, checks the name of State.game


GAME = register(dataclasses.replace(TOY, name=GAME_NAME, title="ToyTurns", state_type=State, package=__name__))
