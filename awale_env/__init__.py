"""awale_env: the two-colour, 16-hole Awale for reinforcement learning, with Oware and Hawalis beside it.

``State`` is the rules engine of the two-colour Awale, the default game of every environment, agent and trainer;
moves are action indices 0-31 (``2 * (hole - 1) + colour``) or strings like ``"14B"``. The other games live in
:mod:`awale_env.games` (``GAMES``, ``get_game``; ``from awale_env.games import oware, hawalis``).
"""

from awale_env.env import env, hawalis_env, oware_env, raw_env
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
    "hawalis_env",
    "oware_env",
    "parse_move",
    "raw_env",
]
__version__ = "0.1.0"


def _register_environments() -> None:
    """Register the Gymnasium and PettingZoo environments of every game by entry-point strings: nothing is built or
    compiled until ``gymnasium.make`` / ``pettingzoo.make`` is called."""
    import gymnasium
    import pettingzoo

    if "awale_env/Awale-v0" not in gymnasium.registry:
        gymnasium.register(
            id="awale_env/Awale-v0",
            entry_point="awale_env.gym_env:AwaleEnv",
            vector_entry_point="awale_env.vector:AwaleVectorEnv",
        )
    for title in ("Oware", "Hawalis"):
        if f"awale_env/{title}-v0" not in gymnasium.registry:
            gymnasium.register(
                id=f"awale_env/{title}-v0",
                entry_point="awale_env.gym_env:AwaleEnv",
                vector_entry_point="awale_env.vector:AwaleVectorEnv",
                kwargs={"game": title.lower()},
            )
    aec_registry = pettingzoo.env_registry.registration.aec_registry
    for name, factory in (("awale", "env"), ("oware", "oware_env"), ("hawalis", "hawalis_env")):
        if f"awale_env/{name}-v0" not in aec_registry:
            pettingzoo.register("aec", f"awale_env/{name}-v0", entry_point=f"awale_env.env:{factory}")


_register_environments()
