"""Deprecated: moved to :mod:`awale_env.games.awale16.batch` (what every game's batch shares to
:mod:`awale_env.kernels.batch`)."""

import warnings

from awale_env.games.awale16.batch import *  # noqa: F403
from awale_env.games.awale16.batch import END_REASONS, ILLEGAL  # noqa: F401
from awale_env.kernels.batch import RANDOM_SEAT, REWARD_MODES, SCORE_DIFF, WIN_LOSS  # noqa: F401

#: ``OUTCOMES[status]``: why a game ended (None while it goes on); extends ``END_REASONS``.
OUTCOMES = (*END_REASONS, "illegal_action")

warnings.warn(
    "awale_env.core.batch is deprecated: import from awale_env.games.awale16.batch (RANDOM_SEAT, REWARD_MODES, "
    "SCORE_DIFF, WIN_LOSS: awale_env.kernels.batch)",
    DeprecationWarning,
    stacklevel=2,
)
