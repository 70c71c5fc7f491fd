"""Deprecated: the two-colour Awale's pictures moved to :mod:`awale_env.games.awale16.render`, the shared drawing
style to :mod:`awale_env.drawing` and the environments' ``render`` to :func:`awale_env.gym_env.render_frame`."""

import warnings

from awale_env.drawing import *  # noqa: F403
from awale_env.games.awale16.render import *  # noqa: F403
from awale_env.games.awale16.render import ansi_board, board_image, png_bytes, status_line  # noqa: F401
from awale_env.games.awale16.state import State, board_diagram  # noqa: F401
from awale_env.gym_env import render_frame as render  # noqa: F401

warnings.warn(
    "awale_env.render is deprecated: import from awale_env.games.awale16.render, awale_env.drawing or "
    "awale_env.gym_env (render_frame)",
    DeprecationWarning,
    stacklevel=2,
)
