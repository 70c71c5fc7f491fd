"""The SB3 policy of a ring PPO policy (:mod:`agents.ppo.ring`): sb3-contrib's MaskableActorCriticPolicy whose
actor and critic are the two heads of one :class:`agents.alphazero.network.RingNet`, its trunk shared.

SB3 puts a linear action layer and a linear value layer after its "MLP extractor"; here the extractor is the whole
network (its outputs already the logits and the value) and those layers are identities, so the network trained is
exactly the one saved and played. Its batch norms stay in evaluation mode (see :mod:`agents.ppo.ring`).
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from agents.alphazero.network import NetworkConfig, RingNet, build_network

#: Where the ring network's tensors sit in the SB3 policy's state dict (under its MLP extractor, :class:`RingHeads`).
RING_PREFIX = "mlp_extractor.net."


class RingHeads(nn.Module):
    """SB3's MLP extractor: the network's logits for the actor, its value (B, 1) for the critic."""

    def __init__(self, net: RingNet) -> None:
        super().__init__()
        self.net = net
        self.latent_dim_pi = net.num_actions
        self.latent_dim_vf = 1

    def train(self, mode: bool = True) -> RingHeads:
        super().train(mode)
        self.net.eval()  # frozen batch-norm statistics, in training too
        return self

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value = self.net(features)
        return logits, value.unsqueeze(-1)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features)[0]

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features)[1].unsqueeze(-1)


class RingActorCriticPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy over a ring network of shape ``network`` (a :class:`NetworkConfig`'s fields)."""

    def __init__(self, *args: Any, network: dict[str, Any], **kwargs: Any) -> None:
        self.network_config = NetworkConfig(**network)
        super().__init__(*args, **{**kwargs, "ortho_init": False})  # the network's own initialisation

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = RingHeads(build_network(self.network_config))

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()
        self.value_net = nn.Identity()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
