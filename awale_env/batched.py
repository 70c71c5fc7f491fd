"""Many games of one kind held in arrays, with the compiled kernels that step them: what
:class:`awale_env.vector.AwaleVectorEnv` drives, the same way for every game.

Each game of the toolkit has a :class:`BatchedGames` class here that passes its arrays to its own kernels
(:mod:`awale_env.core.batch` for the two-colour Awale, :mod:`awale_env.core.batch_oware`,
:mod:`awale_env.core.batch_hawalis`); :func:`batched_games` picks it by the game's name. Every game codes a live game
as status 0 and an illegal action as the status after its end reasons (:data:`awale_env.core.batch.ILLEGAL`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from awale_env.core import awale16, batch, batch_hawalis, batch_oware
from awale_env.core import hawalis as hawalis_core
from awale_env.core import oware as oware_core
from awale_env.games import Game, get_game, hawalis, oware
from awale_env.rules import State as Awale16State

#: The status of a live game, in every game.
ONGOING = 0


class BatchedGames(ABC):
    """``n`` games of ``game`` with a ply limit and a reward scheme (:data:`awale_env.core.batch.REWARD_MODES` code).

    ``board`` (n x the game's board size), ``player`` (to move), ``ply`` and ``status`` are the games' arrays;
    ``outcomes[status]`` names a status. The kernels' arguments that say how to step (autoreset, learner seats,
    random generators ``rngs``: uint64[n, 1]) and where to write (observations, masks, rewards) are the vector env's.
    """

    game: Game

    def __init__(self, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]) -> None:
        self.game.check_options(options, rule_flags_only=True)
        self.initial_state = self.game.initial(max_plies=max_plies, **options)  # checks the options' values
        self.max_plies = max_plies
        self.limit = 0 if max_plies is None else int(max_plies)  # every game's kernels read 0 as no limit
        self.reward_mode = reward_mode
        self.outcomes = (*self.end_reasons, "illegal_action")
        if len(self.outcomes) != batch.ILLEGAL + 1:
            raise RuntimeError(f"{self.game.name}'s end reasons do not leave status {batch.ILLEGAL} to illegal actions")

    end_reasons: tuple[str | None, ...]
    board: np.ndarray
    player: np.ndarray
    ply: np.ndarray
    status: np.ndarray

    @abstractmethod
    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        """Restart the games where ``which`` is True (against the built-in random opponent when ``vs_random``) and
        write every game's view."""

    @abstractmethod
    def step_self_play(self, rngs: np.ndarray, same_step: bool, *outputs: np.ndarray) -> None:
        """One move in every game for the side to move (outputs as :func:`awale_env.core.batch.step_self_play`)."""

    @abstractmethod
    def step_vs_random(self, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
                       *outputs: np.ndarray) -> None:  # fmt: skip
        """One learner move and the random reply in every game (as :func:`awale_env.core.batch.step_vs_random`)."""

    @abstractmethod
    def start(self, i: int, rngs: np.ndarray) -> None:
        """Set game ``i`` to the starting position."""

    @abstractmethod
    def play(self, i: int, action: int) -> float:
        """Play ``action`` for the side to move in game ``i``; return the mover's reward (-1 and status ILLEGAL for
        an illegal action, the position left as it was)."""

    @abstractmethod
    def view(self, i: int, viewer: int, obs: np.ndarray, masks: np.ndarray) -> None:
        """Game ``i`` from ``viewer``'s side into ``obs[i]`` and ``masks[i]``."""

    @abstractmethod
    def stores(self, i: int) -> tuple[int, int]:
        """Game ``i``'s stores, player 0's first."""

    @abstractmethod
    def state(self, i: int) -> Any:
        """Game ``i`` as a State of its game (its position: the history the rules may keep, such as Oware's
        repetition set, starts afresh)."""


class Awale16Games(BatchedGames):
    """The two-colour Awale: :mod:`awale_env.core.batch`."""

    game = get_game("awale16")
    end_reasons = awale16.END_REASONS

    def __init__(self, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]) -> None:
        super().__init__(n, max_plies, reward_mode, options)
        self.board = np.zeros((n, awale16.NUM_ACTIONS), dtype=awale16.SEED_DTYPE)
        self.store_array = np.zeros((n, 2), dtype=awale16.STORE_DTYPE)
        self.player = np.zeros(n, dtype=np.int64)
        self.ply = np.zeros(n, dtype=np.int64)
        self.status = np.zeros(n, dtype=np.int64)
        self.arrays = (self.board, self.store_array, self.player, self.ply, self.status)

    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        batch.reset_games(*self.arrays, self.limit, self.reward_mode, vs_random, learner, seat_mode, rngs, which, obs,
                          masks)  # fmt: skip

    def step_self_play(self, rngs: np.ndarray, same_step: bool, *outputs: np.ndarray) -> None:
        batch.step_self_play(*self.arrays, self.limit, self.reward_mode, same_step, *outputs)

    def step_vs_random(self, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
                       *outputs: np.ndarray) -> None:  # fmt: skip
        batch.step_vs_random(*self.arrays, self.limit, self.reward_mode, same_step, learner, seat_mode, rngs, *outputs)

    def start(self, i: int, rngs: np.ndarray) -> None:
        batch.restart(*self.arrays, i)

    def play(self, i: int, action: int) -> float:
        return batch.play(*self.arrays, self.limit, self.reward_mode, i, action)

    def view(self, i: int, viewer: int, obs: np.ndarray, masks: np.ndarray) -> None:
        batch.write_view(*self.arrays, self.limit, i, viewer, obs, masks)

    def stores(self, i: int) -> tuple[int, int]:
        return int(self.store_array[i, 0]), int(self.store_array[i, 1])

    def state(self, i: int) -> Awale16State:
        seeds = self.board[i]
        return Awale16State.from_position(
            seeds[0::2].tolist(), seeds[1::2].tolist(), self.stores(i), int(self.player[i]), int(self.ply[i]),
            self.max_plies,
        )  # fmt: skip


class OwareGames(BatchedGames):
    """Oware: :mod:`awale_env.core.batch_oware`, each game with its fixed-size repetition set (so a ply limit is
    needed: it bounds the positions since the last capture)."""

    game = get_game("oware")
    end_reasons = oware_core.END_REASONS

    def __init__(self, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]) -> None:
        if max_plies is None:
            raise ValueError("the batched Oware games need a ply limit (max_plies) to size their repetition sets")
        super().__init__(n, max_plies, reward_mode, options)
        self.rules: oware.Rules = self.initial_state.rules
        first = self.rules.first_player
        self.first_code = batch_oware.RANDOM_FIRST if first == "random" else int(first)
        self.arrays = batch_oware.new_games(n, self.limit)
        self.board, self.store_array, self.player, self.ply, self.status = self.arrays[:5]
        self.scalars = (self.limit, self.reward_mode, self.rules.code, self.first_code)

    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        batch_oware.reset_games(*self.arrays, *self.scalars, vs_random, learner, seat_mode, rngs, which, obs, masks)

    def step_self_play(self, rngs: np.ndarray, same_step: bool, *outputs: np.ndarray) -> None:
        batch_oware.step_self_play(*self.arrays, *self.scalars, rngs, same_step, *outputs)

    def step_vs_random(self, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
                       *outputs: np.ndarray) -> None:  # fmt: skip
        batch_oware.step_vs_random(*self.arrays, *self.scalars, same_step, learner, seat_mode, rngs, *outputs)

    def start(self, i: int, rngs: np.ndarray) -> None:
        batch_oware.start(*self.arrays, *self.scalars, rngs, i)

    def play(self, i: int, action: int) -> float:
        return batch_oware.play(*self.arrays, *self.scalars, i, action)

    def view(self, i: int, viewer: int, obs: np.ndarray, masks: np.ndarray) -> None:
        batch_oware.view(*self.arrays, *self.scalars, i, viewer, obs, masks)

    def stores(self, i: int) -> tuple[int, int]:
        return int(self.store_array[i, 0]), int(self.store_array[i, 1])

    def state(self, i: int) -> oware.State:
        return oware.State.from_position(
            self.board[i].tolist(), self.stores(i), int(self.player[i]), int(self.ply[i]), self.rules, self.max_plies
        )


class HawalisGames(BatchedGames):
    """Hawalis: :mod:`awale_env.core.batch_hawalis` (the stores are the captured seeds, read off the board)."""

    game = get_game("hawalis")
    end_reasons = hawalis_core.END_REASONS

    def __init__(self, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]) -> None:
        super().__init__(n, max_plies, reward_mode, options)
        self.rules: hawalis.Rules = self.initial_state.rules
        first = self.rules.first_player
        self.first_code = batch_hawalis.RANDOM_FIRST if first == "random" else int(first)
        self.arrays = batch_hawalis.new_games(n)
        self.board, self.player, self.ply, self.status = self.arrays[:4]
        self.scalars = (self.limit, self.reward_mode, self.rules.endless_code, self.first_code)
        self._scratch = hawalis_core.new_scratch()

    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        batch_hawalis.reset_games(*self.arrays, *self.scalars, vs_random, learner, seat_mode, rngs, which, obs, masks)

    def step_self_play(self, rngs: np.ndarray, same_step: bool, *outputs: np.ndarray) -> None:
        batch_hawalis.step_self_play(*self.arrays, *self.scalars, rngs, same_step, *outputs)

    def step_vs_random(self, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
                       *outputs: np.ndarray) -> None:  # fmt: skip
        batch_hawalis.step_vs_random(*self.arrays, *self.scalars, same_step, learner, seat_mode, rngs, *outputs)

    def start(self, i: int, rngs: np.ndarray) -> None:
        batch_hawalis.start(*self.arrays, *self.scalars, rngs, self._scratch, i)

    def play(self, i: int, action: int) -> float:
        return batch_hawalis.play(*self.arrays, *self.scalars, self._scratch, i, action)

    def view(self, i: int, viewer: int, obs: np.ndarray, masks: np.ndarray) -> None:
        batch_hawalis.view(*self.arrays, *self.scalars, i, viewer, obs, masks)

    def stores(self, i: int) -> tuple[int, int]:
        return (batch_hawalis.captured(self.board, i, 0), batch_hawalis.captured(self.board, i, 1))

    def state(self, i: int) -> hawalis.State:
        side = hawalis_core.SIDE
        board = self.board[i].tolist()
        flags = {"first_player": self.rules.first_player, "endless_move": self.rules.endless_move}
        return hawalis.State.from_position(
            board[:side], board[side:], int(self.player[i]), int(self.ply[i]), max_plies=self.max_plies, **flags
        )


_BATCHED = {cls.game.name: cls for cls in (Awale16Games, OwareGames, HawalisGames)}


def batched_games(
    game: str | Game, n: int, max_plies: int | None, reward_mode: int, options: dict[str, Any]
) -> BatchedGames:
    """``n`` games of ``game`` in arrays (the game's rule flags in ``options``), not started yet."""
    return _BATCHED[get_game(game).name](n, max_plies, reward_mode, options)
