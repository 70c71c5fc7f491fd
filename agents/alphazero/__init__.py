"""AlphaZero for every game of the toolkit: a residual ring network, batched PUCT search, self-play and the agent
(``alphazero:pretrained`` plays the games a network is shipped for, :func:`pretrained_games`).

Each name below loads its module when first asked for: the agent plays without torch (its network's forward pass
is numpy's, :mod:`agents.alphazero.inference`), while the network's torch module (:mod:`agents.alphazero.network`)
and with it torch load only for what needs them (training, a network given in memory).
"""

import importlib
from typing import Any

#: Each public name and the module that defines it.
_HOMES = {
    "AlphaZeroAgent": "agent",
    "pretrained_games": "agent",
    "pretrained_path": "agent",
    "BatchedSearch": "mcts",
    "SearchConfig": "search_config",
    "CheckpointError": "architecture",
    "NetworkConfig": "architecture",
    "RingNet": "network",
    "AwaleNet": "network",
    "build_network": "network",
    "load_network": "network",
    "save_checkpoint": "network",
}

__all__ = [name for name in _HOMES if name != "AwaleNet"]


def __getattr__(name: str) -> Any:
    """The public names, each loaded from its module when first asked for (``AwaleNet`` is :class:`RingNet` now,
    with a DeprecationWarning)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
