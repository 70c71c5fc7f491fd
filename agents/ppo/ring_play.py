"""A ring policy (``awale train ppo --network ring``) as it plays: its network's forward pass in numpy, AlphaZero's
player (:class:`agents.alphazero.inference.NumpyNet`), so that playing one needs neither torch nor SB3, as the
default MLP needs neither. A plain install (no ``train`` extra) plays the shipped policy, and a fresh process (a
course referee's bot) plays it without paying torch's seconds of import.

Training holds the same network in torch (:class:`agents.ppo.ring.RingPolicyNet`), which writes the ``policy.npz``
member read here; :func:`ring_arrays` checks every array of it against the network its shape describes before
anything is built.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from agents.alphazero.architecture import NetworkConfig, check_arrays, state_shapes
from agents.alphazero.inference import NumpyNet, set_threads
from agents.ppo.policy import FEATURES, RING_SHAPE, Policy
from awale_env.errors import CheckpointError
from awale_env.games import get_game

#: The prefix of the network's tensors among the file's arrays.
STATE = "state."


def ring_config(options: dict[str, Any]) -> NetworkConfig:
    """The network of a run's ``options`` (``game``, its shape: ``channels``, ``blocks``, ``value_hidden``, and
    ``features``; under this version's names: :func:`agents.ppo.checkpoint.network_options`); ValueError for bad
    ones."""
    shape = {name: options[name] for name in RING_SHAPE}
    return NetworkConfig(**shape, game=options["game"], tactics=options.get("features") == "tactics")


def parameter_count(config: NetworkConfig) -> int:
    """The network's weights (counted from their shapes: nothing is allocated)."""
    return sum(int(np.prod(shape)) for shape, _ in state_shapes(config).values())


def ring_arrays(arrays: dict[str, np.ndarray], source: str) -> tuple[NetworkConfig, dict[str, np.ndarray]]:
    """The network (its shape and game) and its tensors of a ring policy's ``policy.npz`` arrays; CheckpointError
    naming ``source`` for an array that is missing, unexpected or not what the network needs."""
    allowed = f"kind, features, game, {', '.join(RING_SHAPE)} and the network's tensors ({STATE}*)"
    named = ("kind", "features", "game", *RING_SHAPE)
    unexpected = [n for n in arrays if not n.startswith(STATE) and n not in named]
    missing = [n for n in ("game", *RING_SHAPE) if n not in arrays]
    if unexpected or missing:
        wrong = f"array {unexpected[0]!r} is not part" if unexpected else f"array {missing[0]!r} is missing"
        raise CheckpointError(f"{source}: {wrong} of a ring policy (it holds {allowed})")
    features = str(arrays.get("features", "board"))
    if features not in FEATURES:
        raise CheckpointError(f"{source}: a ring policy sees {' or '.join(map(repr, FEATURES))}, not {features!r}")
    try:
        shape = {name: int(arrays[name]) for name in RING_SHAPE}
        config = NetworkConfig(**shape, game=str(arrays["game"]), tactics=features == "tactics")
    except (TypeError, ValueError) as error:
        raise CheckpointError(f"{source}: its network's shape is not one this toolkit builds: {error}") from None
    state = {name[len(STATE) :]: array for name, array in arrays.items() if name.startswith(STATE)}
    check_arrays(state, config, source)
    return config, state


class RingPlayer(Policy):
    """A ring policy read from its file member, played with numpy (:class:`NumpyNet`)."""

    def __init__(self, arrays: dict[str, np.ndarray], source: str) -> None:
        self.config, state = ring_arrays(arrays, source)
        self.features = "tactics" if self.config.tactics else "board"
        self.game = get_game(self.config.game)
        self.net = NumpyNet(state, self.config)
        self.arrays = dict(arrays)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        return self.net(observations)[0]

    def to_npz(self) -> bytes:
        buffer = io.BytesIO()
        np.savez(buffer, **self.arrays)
        return buffer.getvalue()

    def set_up_play(self) -> None:
        """One BLAS thread, as the AlphaZero agent plays: a move's small products run fastest there."""
        set_threads(1)
