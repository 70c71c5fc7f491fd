"""Deprecated: moved to :mod:`awale_env.games.oware.batch`."""

import warnings

from awale_env.games.oware.batch import *  # noqa: F403

warnings.warn(
    "awale_env.core.batch_oware is deprecated: import from awale_env.games.oware.batch",
    DeprecationWarning,
    stacklevel=2,
)
