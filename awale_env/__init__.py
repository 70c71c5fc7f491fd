"""awale_env: the two-colour, 16-hole Awale for reinforcement learning.

``State`` is the rules engine every environment, agent and trainer uses; moves are action indices 0-31
(``2 * (hole - 1) + colour``) or strings like ``"14B"``.
"""

from awale_env.errors import IllegalMoveError, RecordError
from awale_env.notation import format_move, parse_move
from awale_env.record import GameRecord
from awale_env.rules import NUM_ACTIONS, State

__all__ = ["GameRecord", "IllegalMoveError", "NUM_ACTIONS", "RecordError", "State", "format_move", "parse_move"]
__version__ = "0.1.0"
