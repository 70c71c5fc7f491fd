"""AlphaZero for the two-colour Awale: residual network, batched PUCT search, self-play and the agent.

Importing this package imports torch; the agent registry imports it only when an ``alphazero`` agent is built.
"""

from agents.alphazero.agent import AlphaZeroAgent, pretrained_path
from agents.alphazero.mcts import BatchedSearch, SearchConfig
from agents.alphazero.network import AwaleNet, CheckpointError, NetworkConfig, load_network, save_checkpoint

__all__ = [
    "AlphaZeroAgent",
    "AwaleNet",
    "BatchedSearch",
    "CheckpointError",
    "NetworkConfig",
    "SearchConfig",
    "load_network",
    "pretrained_path",
    "save_checkpoint",
]
