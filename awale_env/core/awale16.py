"""Deprecated: moved to :mod:`awale_env.games.awale16.kernels` (the random generator to
:mod:`awale_env.kernels.rng`)."""

import warnings

from awale_env.games.awale16.kernels import *  # noqa: F403
from awale_env.kernels.rng import make_rng, next_random, random_below  # noqa: F401

warnings.warn(
    "awale_env.core.awale16 is deprecated: import from awale_env.games.awale16.kernels (make_rng, random_below: "
    "awale_env.kernels.rng)",
    DeprecationWarning,
    stacklevel=2,
)
