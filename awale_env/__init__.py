"""awale_env: the two-colour, 16-hole Awale for reinforcement learning.

``State`` is the rules engine every environment, agent and trainer uses; moves are action indices 0-31
(``2 * (hole - 1) + colour``) or strings like ``"14B"``.
"""

from awale_env.env import env, raw_env
from awale_env.errors import IllegalMoveError, RecordError
from awale_env.notation import format_move, parse_move
from awale_env.record import GameRecord
from awale_env.rules import NUM_ACTIONS, State

__all__ = [
    "GameRecord",
    "IllegalMoveError",
    "NUM_ACTIONS",
    "RecordError",
    "State",
    "env",
    "format_move",
    "parse_move",
    "raw_env",
]
__version__ = "0.1.0"


def _register_environments() -> None:
    """Register the Gymnasium and PettingZoo environments by entry-point strings: nothing is built or compiled
    until ``gymnasium.make`` / ``pettingzoo.make`` is called."""
    import gymnasium
    import pettingzoo

    if "awale_env/Awale-v0" not in gymnasium.registry:
        gymnasium.register(
            id="awale_env/Awale-v0",
            entry_point="awale_env.gym_env:AwaleEnv",
            vector_entry_point="awale_env.vector:AwaleVectorEnv",
        )
    if "awale_env/awale-v0" not in pettingzoo.env_registry.registration.aec_registry:
        pettingzoo.register("aec", "awale_env/awale-v0", entry_point="awale_env.env:env")


_register_environments()
