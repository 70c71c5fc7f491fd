"""Deprecated: moved to :mod:`awale_env.games.oware.kernels` (the random generator to :mod:`awale_env.kernels.rng`)."""

import warnings

from awale_env.games.oware.kernels import *  # noqa: F403
from awale_env.kernels.rng import make_rng, random_below  # noqa: F401

warnings.warn(
    "awale_env.core.oware is deprecated: import from awale_env.games.oware.kernels (make_rng: awale_env.kernels.rng)",
    DeprecationWarning,
    stacklevel=2,
)
