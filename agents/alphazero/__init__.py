"""AlphaZero for every game of the toolkit: residual networks, batched PUCT search, self-play and the agent (a
network is shipped for the two-colour Awale only).

Importing this package imports torch; the agent registry imports it only when an ``alphazero`` agent is built.
"""

from agents.alphazero.agent import AlphaZeroAgent, pretrained_path
from agents.alphazero.mcts import BatchedSearch, SearchConfig
from agents.alphazero.network import (
    AwaleNet,
    CheckpointError,
    NetworkConfig,
    RingNet,
    build_network,
    load_network,
    save_checkpoint,
)

__all__ = [
    "AlphaZeroAgent",
    "AwaleNet",
    "BatchedSearch",
    "build_network",
    "CheckpointError",
    "NetworkConfig",
    "RingNet",
    "SearchConfig",
    "load_network",
    "pretrained_path",
    "save_checkpoint",
]
