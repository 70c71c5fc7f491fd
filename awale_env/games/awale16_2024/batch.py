"""The 2024 edition's batch: the 2021 game's (:mod:`awale_env.games.awale16.batch`) on the relabelled board, the
actions going in and the legal masks coming out exchanged between each hole's two colours (see
:mod:`awale_env.games.awale16_2024.state`)."""

from __future__ import annotations

import numpy as np

from awale_env.games.awale16.batch import Awale16Games
from awale_env.games.awale16.kernels import NUM_ACTIONS
from awale_env.games.awale16_2024.state import State

#: ``mask[SWAPPED]`` exchanges each hole's two colours.
SWAPPED = np.arange(NUM_ACTIONS) ^ 1


def swap_colours(masks: np.ndarray) -> None:
    """Exchange each hole's two colours in a batch of masks, in place."""
    masks[:] = masks[..., SWAPPED]


class Awale2024Games(Awale16Games):
    """2021's batch with the actions and masks relabelled; observations are 2021's of the relabelled board, as the
    State's."""

    def reset(self, vs_random: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray, which: np.ndarray,
              obs: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
        super().reset(vs_random, learner, seat_mode, rngs, which, obs, masks)
        swap_colours(masks)

    def step_self_play(self, rngs: np.ndarray, same_step: bool, actions: np.ndarray, *outputs: np.ndarray) -> None:
        super().step_self_play(rngs, same_step, actions ^ 1, *outputs)
        swap_colours(outputs[-3])  # the masks
        swap_colours(outputs[-1])  # the final masks

    def step_vs_random(self, same_step: bool, learner: np.ndarray, seat_mode: int, rngs: np.ndarray,
                       actions: np.ndarray, *outputs: np.ndarray) -> None:  # fmt: skip
        super().step_vs_random(same_step, learner, seat_mode, rngs, actions ^ 1, *outputs)
        swap_colours(outputs[-3])
        swap_colours(outputs[-1])

    def play(self, i: int, action: int) -> float:
        return super().play(i, action ^ 1)

    def view(self, i: int, viewer: int, obs: np.ndarray, masks: np.ndarray) -> None:
        super().view(i, viewer, obs, masks)
        swap_colours(masks[i])

    def state(self, i: int) -> State:
        seeds = self.board[i]
        return State.from_position(
            seeds[1::2].tolist(), seeds[0::2].tolist(), self.stores(i), int(self.player[i]), int(self.ply[i]),
            self.max_plies,
        )  # fmt: skip


BATCHED = Awale2024Games
