"""A PPO policy whose network is the AlphaZero agent's (``awale train ppo --network ring``): the residual circular
convolutions of :class:`agents.alphazero.network.RingNet`, its policy head the actor and its value head the critic.

It starts from random weights or from an AlphaZero network (``--init-from alphazero:pretrained``), whose prior it
then plays, and PPO trains it like the default MLP. It sees the board (``features="board"``: the convolutions over
the ring work out what each move captures), or the board and the tactical features (``"tactics"``: each move's
capture and the opponent's best reply capture, :func:`agents.ppo.policy.tactics`, as more input channels at the
move's position; :func:`with_tactics` adds them to a board network, their weights zero, so it plays as before and
PPO learns to use them). It plays through the network's folded forward pass
(:class:`agents.alphazero.folded.FoldedNet`), so it needs torch, unlike the MLP. Its batch norms stay frozen in
training (their statistics are the starting network's; their scale and shift learn like any weight), so the saved
network is an AlphaZero checkpoint's network too.
"""

from __future__ import annotations

import copy
import io
from dataclasses import replace
from typing import Any

import numpy as np
import torch

from agents.alphazero.folded import FoldedNet
from agents.alphazero.network import NetworkConfig, RingNet, build_network, check_state_dict
from agents.ppo.policy import FEATURES, RING_KIND, RING_SHAPE, Policy
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


def with_tactics(net: RingNet) -> RingNet:
    """A copy of the board network ``net`` that also sees the tactical features: the same weights, and zero weights
    from the new input channels (the last ones of the stem), so its outputs are ``net``'s until training moves them."""
    if net.config.tactics:
        raise ValueError("the network already sees the tactical features")
    wider = build_network(replace(net.config, tactics=True))
    state = net.state_dict()
    stem = torch.zeros_like(wider.stem.weight)
    stem[:, : state["stem.weight"].shape[1]] = state["stem.weight"]
    wider.load_state_dict({**state, "stem.weight": stem})
    return wider.train(net.training)


def parameter_count(config: NetworkConfig) -> int:
    """The network's weights (built on the meta device: nothing is allocated)."""
    with torch.device("meta"):
        return sum(tensor.numel() for tensor in RingNet(config).state_dict().values())


class RingPolicyNet(Policy):
    """A ring network's policy head as a PPO policy; holds its own copy of the weights."""

    def __init__(self, net: RingNet) -> None:
        self.net = copy.deepcopy(net).eval()
        self.config = net.config
        self.features = "tactics" if net.config.tactics else "board"
        self.game = get_game(net.config.game)
        self._forward = FoldedNet(self.net)

    @classmethod
    def from_sb3(cls, policy: Any) -> RingPolicyNet:
        """The network of an SB3 policy of :mod:`agents.ppo.ring_sb3`."""
        return cls(policy.mlp_extractor.net)

    def set_up_play(self) -> None:
        """One torch thread, as the AlphaZero agent plays: a move's small products run fastest there, and several
        threads on a busy machine make them hundreds of times slower."""
        torch.set_num_threads(1)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        return self._forward(observations)[0]

    def to_npz(self) -> bytes:
        buffer = io.BytesIO()
        shape = {name: np.array(getattr(self.config, name)) for name in (*RING_SHAPE, "game")}
        tensors = {STATE + name: t.detach().cpu().numpy() for name, t in self.net.state_dict().items()}
        np.savez(buffer, kind=np.array(RING_KIND), features=np.array(self.features), **shape, **tensors)
        return buffer.getvalue()

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], source: str) -> RingPolicyNet:
        """The policy of :meth:`to_npz`'s arrays (:func:`agents.ppo.checkpoint.policy_from_npz` reads them);
        CheckpointError naming ``source`` for anything else, its tensors checked against the network its shape
        describes before anything is built."""
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
        state = {name[len(STATE) :]: torch.from_numpy(a) for name, a in arrays.items() if name.startswith(STATE)}
        check_state_dict(state, config, source)
        net = build_network(config)
        net.load_state_dict(state)
        return cls(net)
