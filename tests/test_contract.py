"""Every game of the registry, and the toy game registered from the tests, keeps the contract of
:func:`awale_env.testing.check_game`; and the checker catches games that break it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np
import pytest
from conftest import SHARED_KERNEL_CHECKS

from awale_env.games import GAMES, Game, register
from awale_env.testing import CHECKS, check_game


@pytest.mark.parametrize("check", CHECKS)
def test_every_game_keeps_the_contract(game_config, check):
    game, options = game_config
    check_game(game, checks=[check], **options)


#: The checks run here on a game registered from the tests; those compiling shared kernels for it run in
#: tests/toy_game_search.py (conftest.SHARED_KERNEL_CHECKS says why).
IN_PROCESS = tuple(check for check in CHECKS if check not in SHARED_KERNEL_CHECKS)


@pytest.mark.parametrize("check", IN_PROCESS)
def test_the_toy_game_keeps_the_contract(toy_game, check):
    check_game(toy_game, checks=[check])


def test_bad_arguments_are_named(toy_game):
    with pytest.raises(ValueError, match="unknown check\\(s\\) 'speed'; the checks are state_api, notation"):
        check_game(toy_game, checks=["speed"])
    with pytest.raises(ValueError, match="games must be a positive integer, got 0"):
        check_game(toy_game, games=0)
    with pytest.raises(ValueError, match="unknown option\\(s\\) 'preset' for the game 'toy'"):
        check_game(toy_game, preset="openspiel")
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        check_game("chess")


# --- games that break the contract ----------------------------------------------------------------------------------


@pytest.fixture
def mutant(toy_game: Game) -> Iterator:
    """``mutant(state_type=..., game_type=...)``: the toy game with a broken State class or Game class, registered in
    the toy game's place (its name, so its States' dicts name it); the registry is put back afterwards."""
    saved = dict(GAMES)

    def make(state_type: type | None = None, game_type: type | None = None) -> Game:
        fields = {field.name: getattr(toy_game, field.name) for field in dataclasses.fields(toy_game) if field.init}
        fields["state_type"] = state_type or type("State", (toy_game.state_type,), {"__slots__": ()})
        del GAMES[toy_game.name]
        return register((game_type or type(toy_game))(**fields))

    yield make
    GAMES.clear()
    GAMES.update(saved)


def broken_states(toy_state: type) -> dict[str, tuple[type, str]]:
    """State classes that each break one promise of the State API, with what the checker says."""

    class MaskAllLegal(toy_state):
        __slots__ = ()

        def legal_mask(self) -> np.ndarray:
            return np.ones(self.num_actions, dtype=bool)

    class PlayChangesTheState(toy_state):
        __slots__ = ()

        def play(self, move):
            self._last_capture += 1
            return super().play(move)

    class DictOfNumpyNumbers(toy_state):
        __slots__ = ()

        def to_dict(self) -> dict:
            return {**super().to_dict(), "ply": np.int64(self.ply)}

    class FromDictForgetsThePly(toy_state):
        __slots__ = ()

        @classmethod
        def from_dict(cls, data: dict):
            return super().from_dict({**data, "ply": 0} if isinstance(data, dict) else data)

    class ObservationOutOfSpace(toy_state):
        __slots__ = ()

        def observation_tensor(self, player=None) -> np.ndarray:
            return super().observation_tensor(player) * 20

    class PlaysAnyPit(toy_state):
        __slots__ = ()

        def to_action(self, move) -> int:
            return "ABC".index(move) if isinstance(move, str) else int(move)

    return {
        "mask": (MaskAllLegal, "legal_actions .* != flatnonzero\\(legal_mask\\)"),
        "play": (PlayChangesTheState, "a State changed after play or an illegal move"),
        "json": (DictOfNumpyNumbers, "to_dict\\(\\) is not JSON-safe"),
        "round trip": (FromDictForgetsThePly, "from_dict\\(to_dict\\(\\)\\) is another State"),
        "space": (ObservationOutOfSpace, "observation of player 0 not in space"),
        "illegal": (PlaysAnyPit, "play\\(-?\\d\\) at ply \\d+ raised no IllegalMoveError"),
    }


@pytest.mark.parametrize("label", ["mask", "play", "json", "round trip", "space", "illegal"])
def test_the_checker_catches_a_broken_state(toy_game, mutant, label):
    state_type, message = broken_states(toy_game.state_type)[label]
    with pytest.raises(AssertionError, match=f"toy: {message}"):
        check_game(mutant(state_type=state_type), checks=["state_api"])


def test_the_checker_catches_a_notation_that_writes_two_moves_alike(toy_game, mutant):
    @dataclasses.dataclass(frozen=True)
    class OneLetter(type(toy_game)):
        def format_move(self, action: int) -> str:
            return "A"

    with pytest.raises(AssertionError, match="toy: two actions are written alike"):
        check_game(mutant(game_type=OneLetter), checks=["notation"])


def test_the_checker_catches_seeds_that_vanish(toy_game, mutant):
    class LeakyPits(toy_game.state_type):
        __slots__ = ()

        @property
        def pits(self) -> np.ndarray:
            return np.array([0, *self.board[1:]], dtype=np.int8)  # the first pit's seeds are gone

    with pytest.raises(AssertionError, match="toy: 10 seeds at ply 0, not 12"):
        check_game(mutant(state_type=LeakyPits), checks=["random_games"])
