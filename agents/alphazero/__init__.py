"""AlphaZero for every game of the toolkit: a residual ring network, batched PUCT search, self-play and the agent
(``alphazero:pretrained`` plays the games a network is shipped for, :func:`pretrained_games`).

Importing this package imports torch; the agent registry imports it only when an ``alphazero`` agent is built.
"""

from typing import Any

from agents.alphazero import network
from agents.alphazero.agent import AlphaZeroAgent, pretrained_games, pretrained_path
from agents.alphazero.mcts import BatchedSearch, SearchConfig
from agents.alphazero.network import (
    CheckpointError,
    NetworkConfig,
    RingNet,
    build_network,
    load_network,
    save_checkpoint,
)

__all__ = [
    "AlphaZeroAgent",
    "BatchedSearch",
    "build_network",
    "CheckpointError",
    "NetworkConfig",
    "RingNet",
    "SearchConfig",
    "load_network",
    "pretrained_games",
    "pretrained_path",
    "save_checkpoint",
]


def __getattr__(name: str) -> Any:
    """``AwaleNet`` still imports from here (it is :class:`RingNet` now, with a DeprecationWarning)."""
    if name == "AwaleNet":
        return network.AwaleNet
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
