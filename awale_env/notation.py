"""Deprecated: the two-colour Awale's move notation moved to :mod:`awale_env.games.awale16.notation`."""

import warnings

from awale_env.games.awale16.notation import format_move, parse_move  # noqa: F401

warnings.warn(
    "awale_env.notation is deprecated: import from awale_env.games.awale16.notation", DeprecationWarning, stacklevel=2
)
