"""What the batch kernels of every game agree on (:class:`awale_env.batched.BatchedGames`): the reward schemes and
the learner-seat code. A live game is status 0 in every game; an illegal action is the status after the game's own
end reasons, ``len(game.end_reasons)``."""

from __future__ import annotations

#: The status of a live game, in every game.
ONGOING = 0

WIN_LOSS = 0
SCORE_DIFF = 1
#: Reward schemes by their constructor name; the index is the code the kernels take.
REWARD_MODES = ("win_loss", "score_diff")

#: ``seat_mode`` for a learner whose seat is drawn at random every game (otherwise the seat, 0 or 1).
RANDOM_SEAT = -1
