"""Deprecated: the two-colour Awale's State moved to :mod:`awale_env.games.awale16.state`."""

import warnings

from awale_env.games.awale16.state import *  # noqa: F403
from awale_env.games.awale16.state import DEFAULT_MAX_PLIES, GAME_NAME, NUM_ACTIONS, State, board_diagram  # noqa: F401

warnings.warn(
    "awale_env.rules is deprecated: import from awale_env.games.awale16.state (or awale_env.State)",
    DeprecationWarning,
    stacklevel=2,
)
