"""Deprecated: moved to :mod:`awale_env.games.hawalis.batch`."""

import warnings

from awale_env.games.hawalis.batch import *  # noqa: F403

warnings.warn(
    "awale_env.core.batch_hawalis is deprecated: import from awale_env.games.hawalis.batch",
    DeprecationWarning,
    stacklevel=2,
)
