"""The AlphaZero networks: small residual 1-D convolutional nets over each game's circular board.

The input is the agent-relative observation of :func:`awale_env.core.awale16.observe` (length 35): its 32 board
entries become 2 channels (red, blue) over the 16 relative holes, the 3 scalars (own store, opponent's store, ply
fraction) are broadcast as constant channels, and one more constant channel marks the viewer's holes (the even
relative holes). Every convolution pads circularly, the policy head is a 1x1 convolution (one logit per relative
hole and colour) and the value head pools the viewer's and the opponent's holes separately, so the network is
exactly equivariant under the 8 rotations of the board by two holes (:func:`rotate_samples`), which are exact
symmetries of the rules.

Oware and Hawalis get :class:`RingNet`, the same residual trunk over their own ring of pits (see its docstring):
Oware's 12 pits in sowing order, Hawalis's 14-pit side of the player to move with the opponent's pits of the same
grid columns as a second channel. A :class:`NetworkConfig` names its game; :func:`build_network` builds the right
net and checkpoints record the game (checkpoints without one are the two-colour game's).
"""

from __future__ import annotations

import copy
import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from awale_env.core import awale16 as core
from awale_env.games import DEFAULT_GAME, GAMES, get_game

NUM_HOLES = core.NUM_HOLES
NUM_ACTIONS = core.NUM_ACTIONS
OBS_SIZE = core.OBS_SIZE
NUM_ROTATIONS = NUM_HOLES // 2
INPUT_CHANNELS = 2 + 3 + 1


@dataclass(frozen=True)
class NetworkConfig:
    """Game and shape of the network (saved in checkpoints so they rebuild the same net)."""

    channels: int = 64
    """convolution channels of the residual trunk"""
    blocks: int = 4
    """residual blocks (two 3-wide circular convolutions each)"""
    value_hidden: int = 64
    """hidden units of the value head"""
    game: str = DEFAULT_GAME
    """the game it plays (``awale_env.games.GAMES``)"""

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"NetworkConfig.game must be one of {', '.join(GAMES)}, got {self.game!r}")
        for name in ("channels", "blocks", "value_hidden"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"NetworkConfig.{name} must be a positive integer, got {value!r}")

    def to_dict(self) -> dict[str, int | str]:
        return asdict(self)


def _conv(in_channels: int, out_channels: int, kernel: int) -> nn.Conv1d:
    return nn.Conv1d(in_channels, out_channels, kernel, padding=kernel // 2, padding_mode="circular", bias=False)


class ResidualBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = _conv(channels, channels, 3)
        self.bn1 = nn.BatchNorm1d(channels)
        self.conv2 = _conv(channels, channels, 3)
        self.bn2 = nn.BatchNorm1d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class _ResidualNet(nn.Module, ABC):
    """The trunk and heads every game's network shares: a circular convolution stem, residual blocks, a 1x1
    convolution policy head and a value head over pooled 1x1 features. A game's net says how observations become
    input planes (:meth:`planes`), policy maps become logits (:meth:`logits`) and value features are pooled
    (:meth:`pool`, 8 features per group of ``pooled_groups``)."""

    def __init__(self, config: NetworkConfig, in_channels: int, policy_channels: int, pooled_groups: int) -> None:
        super().__init__()
        self.config = config
        c = config.channels
        self.stem = _conv(in_channels, c, 3)
        self.stem_bn = nn.BatchNorm1d(c)
        self.trunk = nn.Sequential(*(ResidualBlock(c) for _ in range(config.blocks)))
        self.policy_conv = nn.Conv1d(c, policy_channels, 1)
        self.value_conv = nn.Conv1d(c, 8, 1, bias=False)
        self.value_bn = nn.BatchNorm1d(8)
        self.value_fc1 = nn.Linear(8 * pooled_groups, config.value_hidden)
        self.value_fc2 = nn.Linear(config.value_hidden, 1)

    @abstractmethod
    def planes(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, obs_size) observations -> (B, in_channels, positions) input planes."""

    @abstractmethod
    def logits(self, policy: torch.Tensor) -> torch.Tensor:
        """(B, policy_channels, positions) policy map -> (B, num_actions) logits over relative actions."""

    @abstractmethod
    def pool(self, v: torch.Tensor) -> torch.Tensor:
        """(B, 8, positions) value features -> (B, 8 * pooled_groups)."""

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = F.relu(self.stem_bn(self.stem(self.planes(obs))))
        x = self.trunk(x)
        logits = self.logits(self.policy_conv(x))
        v = F.relu(self.value_bn(self.value_conv(x)))
        value = torch.tanh(self.value_fc2(F.relu(self.value_fc1(self.pool(v))))).squeeze(-1)
        return logits, value


class AwaleNet(_ResidualNet):
    """Observation (B, 35) -> (policy logits over the 32 *relative* actions (B, 32), value in [-1, 1] (B,))."""

    def __init__(self, config: NetworkConfig | None = None) -> None:
        config = config or NetworkConfig()
        if config.game != "awale16":
            raise ValueError(f"AwaleNet plays awale16, not {config.game!r}: use build_network")
        super().__init__(config, INPUT_CHANNELS, 2, 2)
        own = torch.zeros(1, 1, NUM_HOLES)
        own[..., 0::2] = 1.0
        self.register_buffer("own_holes", own, persistent=False)

    def planes(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, 35) observations -> (B, 6, 16) input planes."""
        batch = obs.shape[0]
        board = obs[:, :NUM_ACTIONS].reshape(batch, NUM_HOLES, 2).transpose(1, 2)
        scalars = obs[:, NUM_ACTIONS:].unsqueeze(-1).expand(batch, 3, NUM_HOLES)
        return torch.cat([board, scalars, self.own_holes.expand(batch, 1, NUM_HOLES)], dim=1)

    def logits(self, policy: torch.Tensor) -> torch.Tensor:
        """(B, 2, 16) colour x relative hole -> (B, 32) relative actions."""
        return policy.transpose(1, 2).reshape(policy.shape[0], NUM_ACTIONS)

    def pool(self, v: torch.Tensor) -> torch.Tensor:
        """The viewer's and the opponent's holes pooled apart (which keeps the rotation equivariance)."""
        return torch.cat([v[..., 0::2].mean(-1), v[..., 1::2].mean(-1)], dim=1)


class RingNet(_ResidualNet):
    """Oware's or Hawalis's network: observation (B, obs_size) -> (logits (B, num_actions), value (B,)).

    The positions are a ring the convolutions pad circularly, so every pit sees its sowing neighbours:

    * Oware: the 12 pits in sowing order from the mover's first pit (the observation's own order), one channel;
      action ``a`` is position ``a``.
    * Hawalis: the mover's 14 pits (local indices, sowing ``k -> k + 1``), plus a second channel holding at
      position ``k`` the opponent's pit in the same grid column and row kind, local ``(6 - k) % 14``: an inner
      pit faces what its sowing would capture (rule 3) and the opponent's ring is mirrored onto the mover's, so
      neighbours stay neighbours. Action ``k`` is position ``k``.

    The scalars of the observation (stores, ply fraction) are constant channels, and one more marks the first
    half of the ring (Oware: the mover's row; Hawalis: the outer row, which never captures). The value head pools
    the two halves apart. Neither game has a board symmetry, so there is no augmentation.
    """

    def __init__(self, config: NetworkConfig) -> None:
        game = get_game(config.game)
        if game.name == "oware":
            index = [list(range(game.board_entries))]
        elif game.name == "hawalis":
            side = game.num_actions
            index = [list(range(side)), [side + (6 - k) % side for k in range(side)]]
        else:
            raise ValueError(f"RingNet plays oware and hawalis, not {game.name!r}")
        scalars = game.obs_size - game.board_entries
        super().__init__(config, len(index) + scalars + 1, 1, 2)
        self.positions = len(index[0])
        self.num_actions = game.num_actions
        self.register_buffer("board_index", torch.tensor(index), persistent=False)
        first_half = torch.zeros(1, 1, self.positions)
        first_half[..., : self.positions // 2] = 1.0
        self.register_buffer("first_half", first_half, persistent=False)
        self.board_entries = game.board_entries

    def planes(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, obs_size) observations -> (B, channels, positions) input planes."""
        batch = obs.shape[0]
        board = obs[:, self.board_index]
        scalars = obs[:, self.board_entries :].unsqueeze(-1).expand(batch, -1, self.positions)
        return torch.cat([board, scalars, self.first_half.expand(batch, 1, self.positions)], dim=1)

    def logits(self, policy: torch.Tensor) -> torch.Tensor:
        """Action ``a`` is position ``a``."""
        return policy[:, 0, : self.num_actions]

    def pool(self, v: torch.Tensor) -> torch.Tensor:
        """The two halves of the ring pooled apart."""
        half = self.positions // 2
        return torch.cat([v[..., :half].mean(-1), v[..., half:].mean(-1)], dim=1)


def build_network(config: NetworkConfig | None = None) -> AwaleNet | RingNet:
    """A fresh network for ``config.game``."""
    config = config or NetworkConfig()
    return AwaleNet(config) if config.game == "awale16" else RingNet(config)


def rotate_samples(obs: np.ndarray, policy: np.ndarray, shifts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotate each (observation, relative policy) pair by ``2 * shifts[i]`` relative holes (``shifts`` in 0-7).

    Relative hole ``k`` moves to ``k + 2 * shift (mod 16)``; the viewer's holes stay the viewer's, sowing, capture
    and starving are the same everywhere, so a rotated sample is as true as the original.
    """
    obs = np.asarray(obs)
    policy = np.asarray(policy)
    if obs.ndim != 2 or obs.shape[1] != OBS_SIZE or policy.shape != (obs.shape[0], NUM_ACTIONS):
        raise ValueError(f"expected obs (B, {OBS_SIZE}) and policy (B, {NUM_ACTIONS}), got {obs.shape}, {policy.shape}")
    shifts = np.asarray(shifts, dtype=np.int64)
    if shifts.shape != (obs.shape[0],) or shifts.min(initial=0) < 0 or shifts.max(initial=0) >= NUM_ROTATIONS:
        raise ValueError(f"shifts must be {obs.shape[0]} integers in 0-{NUM_ROTATIONS - 1}")
    # new[(r + 4 * s) % 32] = old[r]  <=>  new[j] = old[(j - 4 * s) % 32]
    source = (np.arange(NUM_ACTIONS)[None, :] - 4 * shifts[:, None]) % NUM_ACTIONS
    rows = np.arange(obs.shape[0])[:, None]
    new_obs = obs.copy()
    new_obs[:, :NUM_ACTIONS] = obs[rows, source]
    return new_obs, policy[rows, source]


def _fold(conv: nn.Conv1d, bn: nn.BatchNorm1d) -> tuple[torch.Tensor, torch.Tensor]:
    """The weight and bias of one convolution that does ``bn(conv(x))`` with the batch norm's running statistics."""
    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    bias = bn.bias - bn.running_mean * scale
    if conv.bias is not None:
        bias = bias + conv.bias * scale
    return (conv.weight * scale[:, None, None]).detach().clone(), bias.detach().clone()


class FoldedNet:
    """``net``'s forward pass in evaluation mode with each batch norm folded into its convolution and plain
    functional calls: the same outputs (to float rounding) at a fraction of the per-call overhead, which dominates
    the small batches of a one-game search. Holds a copy of the weights: later changes to ``net`` do not reach it."""

    def __init__(self, net: _ResidualNet) -> None:
        with torch.no_grad():
            shape = copy.deepcopy(net).eval()
            self.planes, self.logits, self.pool = shape.planes, shape.logits, shape.pool
            self.stem = _fold(net.stem, net.stem_bn)
            self.blocks = [(_fold(b.conv1, b.bn1), _fold(b.conv2, b.bn2)) for b in net.trunk]
            self.policy = (net.policy_conv.weight.detach().clone(), net.policy_conv.bias.detach().clone())
            self.value = _fold(net.value_conv, net.value_bn)
            self.value_fc1 = (net.value_fc1.weight.detach().clone(), net.value_fc1.bias.detach().clone())
            self.value_fc2 = (net.value_fc2.weight.detach().clone(), net.value_fc2.bias.detach().clone())

    @staticmethod
    def _conv(x: torch.Tensor, weight_bias: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        pad = weight_bias[0].shape[-1] // 2
        if pad:
            x = F.pad(x, (pad, pad), mode="circular")
        return F.conv1d(x, *weight_bias)

    def __call__(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = F.relu(self._conv(self.planes(obs), self.stem))
        for first, second in self.blocks:
            x = F.relu(x + self._conv(F.relu(self._conv(x, first)), second))
        logits = self.logits(F.conv1d(x, *self.policy))
        v = F.relu(F.conv1d(x, *self.value))
        value = torch.tanh(F.linear(F.relu(F.linear(self.pool(v), *self.value_fc1)), *self.value_fc2)).squeeze(-1)
        return logits, value


def make_evaluator(net: _ResidualNet) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """A numpy-in, numpy-out evaluator of ``net``'s current weights (a :class:`FoldedNet`) for
    :class:`agents.alphazero.mcts.BatchedSearch`."""
    folded = FoldedNet(net)

    def evaluate(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            logits, values = folded(torch.from_numpy(obs))
        return logits.numpy(), values.numpy()

    return evaluate


# --- checkpoints: state_dict + plain config, readable with torch.load(weights_only=True) --------------------------

CHECKPOINT_FORMAT = "awale_env.alphazero/1"


class CheckpointError(ValueError):
    """A file that is not a usable AlphaZero checkpoint of this project (missing, truncated, foreign, mismatched)."""


def save_checkpoint(path: str | Path, net: _ResidualNet, **extra: Any) -> None:
    """Write ``net`` with its config, game included (and any plain ``extra`` fields), to ``path`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"format": CHECKPOINT_FORMAT, "network": net.config.to_dict(), "state_dict": net.state_dict(), **extra}
    tmp = path.with_name(path.name + ".tmp")
    torch.save(payload, tmp)
    os.replace(tmp, path)


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """The checkpoint's contents, checked; never runs code from the file (``weights_only=True``)."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no AlphaZero checkpoint at {str(path)!r}: the file does not exist")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises RuntimeError, UnpicklingError, EOFError... depending on the damage
        raise CheckpointError(
            f"{str(path)!r} is not a readable AlphaZero checkpoint (truncated, corrupt or not a torch file): {error}"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise CheckpointError(f"{str(path)!r} is not an {CHECKPOINT_FORMAT!r} checkpoint (found format {found!r})")
    for key in ("network", "state_dict"):
        if not isinstance(payload.get(key), dict):
            raise CheckpointError(f"{str(path)!r} lacks its {key!r} entry")
    return payload


def checkpoint_network_config(payload: dict[str, Any]) -> dict[str, Any]:
    """The network config of a :func:`read_checkpoint` payload; checkpoints written before the other games were
    added name no game and hold a two-colour network."""
    return {"game": DEFAULT_GAME, **payload["network"]}


def network_from_checkpoint(
    payload: dict[str, Any], key: str = "state_dict", source: str = "checkpoint"
) -> AwaleNet | RingNet:
    """Rebuild the network stored under ``key`` of a :func:`read_checkpoint` payload."""
    try:
        net = build_network(NetworkConfig(**checkpoint_network_config(payload)))
        net.load_state_dict(payload[key])
    except (TypeError, ValueError, RuntimeError, KeyError) as error:
        raise CheckpointError(f"{source} does not match the AlphaZero network it describes: {error}") from None
    net.eval()
    return net


def check_game(net: _ResidualNet, game: str, source: str = "this network") -> None:
    """Raise CheckpointError unless ``net`` plays ``game`` (a network sees one game's observations only)."""
    if net.config.game != game:
        raise CheckpointError(
            f"{source} plays {net.config.game} only, not {game!r}: train a network for it with "
            f"`python -m training.alphazero --game {game}`"
        )


def load_network(path: str | Path, game: str | None = None) -> AwaleNet | RingNet:
    """The network saved at ``path`` by :func:`save_checkpoint`, in evaluation mode; with ``game``, a
    CheckpointError unless it plays that game."""
    net = network_from_checkpoint(read_checkpoint(path), source=repr(str(path)))
    if game is not None:
        check_game(net, get_game(game).name, f"the network of {str(path)!r}")
    return net
