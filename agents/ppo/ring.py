"""A PPO policy whose network is the AlphaZero agent's (``awale train ppo --network ring``): the residual circular
convolutions of :class:`agents.alphazero.network.RingNet`, its policy head the actor and its value head the critic.

It starts from random weights or from an AlphaZero network (``--init-from alphazero:pretrained``), whose prior it
then plays, and PPO trains it like the default MLP. It sees the board (``features="board"``: the convolutions over
the ring work out what each move captures), or the board and the tactical features (``"tactics"``: each move's
capture and the opponent's best reply capture, :func:`agents.ppo.policy.tactics`, as more input channels at the
move's position; :func:`with_tactics` adds them to a board network, their weights zero, so it plays as before and
PPO learns to use them). In memory (training's snapshots) it plays through the network's folded forward pass
(:class:`agents.alphazero.folded.FoldedNet`); read from a file it plays with numpy alone
(:class:`agents.ppo.ring_play.RingPlayer`). Its batch norms stay frozen in
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
from agents.alphazero.network import RingNet, build_network
from agents.ppo.policy import RING_KIND, RING_SHAPE, Policy
from agents.ppo.ring_play import STATE
from awale_env.games import get_game


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
