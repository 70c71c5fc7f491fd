"""The AlphaZero network: a small residual 1-D convolutional net over a game's circular board, one class for every
game (:class:`RingNet`), shaped by the game's data for learners (:class:`awale_env.games.base.Game`).

``board_planes`` gives, for each input channel, the observation entry of every board position in sowing order from
the mover's first position, so convolutions padded circularly let each position see its sowing neighbours. The other
observation entries (after ``board_entries``: stores, ply fraction) are broadcast as constant channels, and one more
constant channel marks ``own_positions``, the mover's. The policy head is a 1x1 convolution with
``actions_per_position`` channels (relative action ``a`` is position ``a // P``, channel ``a % P``) and the value
head pools the mover's positions and the others apart. When the game has a rotation symmetry (``symmetry_step``:
a rotation of the relative actions that maps its rules to themselves), the net is exactly equivariant under it and
:func:`rotate_samples` turns training samples. For instance the two-colour Awale has two planes (red, blue seeds)
over 16 holes, two actions per hole, the even relative holes the mover's, and its 8 rotations by two holes;
Hawalis's second plane holds, at each of the mover's 14 pits, the opponent's pit in the same grid column.

A :class:`NetworkConfig` names its game; checkpoints record it (checkpoints without one are the default game's).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from agents.alphazero.architecture import (
    CHECKPOINT_FORMAT,
    VALUE_FEATURES,
    NetworkConfig,
    check_payload,
    check_plays,
    checkpoint_file,
    checkpoint_search,
    input_channels,
    network_config_of,
)
from agents.alphazero.architecture import checkpoint_network_config as checkpoint_network_config
from agents.alphazero.architecture import tactic_channels as tactic_channels
from agents.alphazero.folded import FoldedNet
from agents.checkpoint import atomic_write, load_tensors
from awale_env.errors import CheckpointError
from awale_env.games import DEFAULT_GAME, Game, get_game


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


class RingNet(nn.Module):
    """Observation (B, obs_size) -> (logits over the *relative* actions (B, num_actions), value in [-1, 1] (B,)) for
    ``config.game``: a circular convolution stem, residual blocks, a 1x1 convolution policy head and a value head
    over pooled 1x1 features (see the module's docstring for the layout)."""

    def __init__(self, config: NetworkConfig | None = None) -> None:
        super().__init__()
        config = config or NetworkConfig()
        game = get_game(config.game)
        self.config = config
        board_index = torch.tensor(game.board_planes)
        positions = board_index.shape[1]
        own = torch.zeros(positions, dtype=torch.bool)
        own[list(game.own_positions)] = True
        own_index = sorted(set(game.own_positions))  # as lists, not torch.nonzero: a net also builds on the meta device
        other_index = [p for p in range(positions) if p not in own_index]
        in_channels = input_channels(config)
        c = config.channels
        self.stem = _conv(in_channels, c, 3)
        self.stem_bn = nn.BatchNorm1d(c)
        self.trunk = nn.Sequential(*(ResidualBlock(c) for _ in range(config.blocks)))
        self.policy_conv = nn.Conv1d(c, game.actions_per_position, 1)
        self.value_conv = nn.Conv1d(c, VALUE_FEATURES, 1, bias=False)
        self.value_bn = nn.BatchNorm1d(VALUE_FEATURES)
        self.value_fc1 = nn.Linear(2 * VALUE_FEATURES, config.value_hidden)
        self.value_fc2 = nn.Linear(config.value_hidden, 1)
        self.positions, self.board_entries, self.num_actions = positions, game.board_entries, game.num_actions
        self.obs_size, self.per_position = game.obs_size, game.actions_per_position
        self.register_buffer("board_index", board_index, persistent=False)
        self.register_buffer("own_plane", own.float().reshape(1, 1, positions), persistent=False)
        self.register_buffer("own_index", torch.tensor(own_index, dtype=torch.long), persistent=False)
        self.register_buffer("other_index", torch.tensor(other_index, dtype=torch.long), persistent=False)

    def planes(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, obs_size) observations (with ``tactics``, followed by their tactical features) -> (B, in_channels,
        positions) input planes."""
        batch = obs.shape[0]
        scalars = obs[:, self.board_entries : self.obs_size].unsqueeze(-1).expand(batch, -1, self.positions)
        planes = [obs[:, self.board_index], scalars, self.own_plane.expand(batch, 1, self.positions)]
        if self.config.tactics:
            width = self.positions * self.per_position
            for start in (self.obs_size, self.obs_size + self.num_actions):
                features = F.pad(obs[:, start : start + self.num_actions], (0, width - self.num_actions))
                planes.append(features.reshape(batch, self.positions, self.per_position).transpose(1, 2))
        return torch.cat(planes, dim=1)

    def logits(self, policy: torch.Tensor) -> torch.Tensor:
        """(B, actions_per_position, positions) policy map -> (B, num_actions) logits of the relative actions."""
        return policy.transpose(1, 2).reshape(policy.shape[0], -1)[:, : self.num_actions]

    def pool(self, v: torch.Tensor) -> torch.Tensor:
        """(B, 8, positions) value features -> (B, 16): the mover's positions and the others pooled apart (which
        keeps the equivariance under the game's rotations)."""
        return torch.cat([v[..., self.own_index].mean(-1), v[..., self.other_index].mean(-1)], dim=1)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = F.relu(self.stem_bn(self.stem(self.planes(obs))))
        x = self.trunk(x)
        logits = self.logits(self.policy_conv(x))
        v = F.relu(self.value_bn(self.value_conv(x)))
        value = torch.tanh(self.value_fc2(F.relu(self.value_fc1(self.pool(v))))).squeeze(-1)
        return logits, value


def build_network(config: NetworkConfig | None = None) -> RingNet:
    """A fresh network for ``config.game``."""
    return RingNet(config)


def __getattr__(name: str) -> Any:
    """``AwaleNet``, the two-colour game's network before every game shared :class:`RingNet`, still imports."""
    if name == "AwaleNet":
        warnings.warn("AwaleNet is RingNet now (one network for every game)", DeprecationWarning, stacklevel=2)
        return RingNet
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def num_rotations(game: str | Game = DEFAULT_GAME) -> int:
    """How many rotations of the relative actions by ``game.symmetry_step`` map the game to itself (1: only the
    identity, a game without symmetry)."""
    game = get_game(game)
    return game.num_actions // game.symmetry_step if game.symmetry_step else 1


def rotate_samples(
    obs: np.ndarray, policy: np.ndarray, shifts: np.ndarray, game: str | Game = DEFAULT_GAME
) -> tuple[np.ndarray, np.ndarray]:
    """Rotate each (observation, relative policy) pair of ``game`` by ``shifts[i]`` times its symmetry step
    (``shifts`` in ``0..num_rotations(game) - 1``).

    Relative action ``r`` becomes ``r + shift * symmetry_step`` and every board plane turns by as many positions;
    the mover's positions stay the mover's, so a rotated sample is as true as the original (e.g. the two-colour
    Awale turned by two holes: sowing, capture and starving are the same everywhere).
    """
    game = get_game(game)
    obs = np.asarray(obs)
    policy = np.asarray(policy)
    size, actions = game.obs_size, game.num_actions
    if obs.ndim != 2 or obs.shape[1] != size or policy.shape != (obs.shape[0], actions):
        raise ValueError(f"expected obs (B, {size}) and policy (B, {actions}), got {obs.shape}, {policy.shape}")
    count = num_rotations(game)
    shifts = np.asarray(shifts, dtype=np.int64)
    if shifts.shape != (obs.shape[0],) or shifts.min(initial=0) < 0 or shifts.max(initial=0) >= count:
        raise ValueError(f"shifts must be {obs.shape[0]} integers in 0-{count - 1}")
    planes = np.array(game.board_planes)  # (channels, positions) observation entries
    rows = np.arange(obs.shape[0])[:, None]
    step, n = game.symmetry_step, planes.shape[1]
    # new[(k + m) % n] = old[k]  <=>  new[j] = old[(j - m) % n], for positions (m = shift * step / P) and actions
    positions = (np.arange(n)[None, :] - step // game.actions_per_position * shifts[:, None]) % n
    new_obs = obs.copy()
    for plane in planes:
        new_obs[rows, plane[None, :]] = obs[rows, plane[positions]]
    source = (np.arange(actions)[None, :] - step * shifts[:, None]) % actions
    return new_obs, policy[rows, source]


def make_evaluator(net: RingNet) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """A numpy-in, numpy-out evaluator of ``net``'s current weights (a :class:`~agents.alphazero.folded.FoldedNet`)
    for :class:`agents.alphazero.mcts.BatchedSearch`."""
    return FoldedNet(net)


# --- checkpoints: state_dict + plain config, readable with torch.load(weights_only=True) --------------------------


def save_checkpoint(path: str | Path, net: RingNet, **extra: Any) -> None:
    """Write ``net`` with its config, game included (and any plain ``extra`` fields: tensors, numbers, strings and
    containers of them), to ``path`` atomically (:func:`agents.checkpoint.atomic_write`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"format": CHECKPOINT_FORMAT, "network": net.config.to_dict(), "state_dict": net.state_dict(), **extra}
    atomic_write(path, lambda file: torch.save(payload, file))


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """The checkpoint's contents, checked; never runs code from the file (:func:`agents.checkpoint.load_tensors`:
    ``weights_only=True``, sizes checked first)."""
    return check_payload(load_tensors(checkpoint_file(path), repr(str(path))), repr(str(path)))


def check_state_dict(state: Any, config: NetworkConfig, source: str = "checkpoint") -> None:
    """CheckpointError naming the first tensor of ``state`` that is missing, unexpected, or not of the name, shape
    and kind (finite floats, integer counters) of the network ``config`` describes. The expected shapes come from
    the network built on the meta device, which allocates nothing: a file cannot make us build a large network its
    tensors do not fill."""
    mismatch = f"{source} does not match the AlphaZero network it describes ({config})"
    if not isinstance(state, dict):
        raise CheckpointError(f"{mismatch}: its state dict is a {type(state).__name__}, not a dict of tensors")
    with torch.device("meta"):
        expected = RingNet(config).state_dict()
    for name, template in expected.items():
        tensor = state.get(name)
        wanted = f"a {template.dtype} tensor of shape {tuple(template.shape)}"
        if tensor is None:
            raise CheckpointError(f"{mismatch}: tensor {name!r} ({wanted}) is missing")
        if not isinstance(tensor, torch.Tensor) or tensor.shape != template.shape:
            found = f"shape {tuple(tensor.shape)}" if isinstance(tensor, torch.Tensor) else type(tensor).__name__
            raise CheckpointError(f"{mismatch}: tensor {name!r} should be {wanted}, found {found}")
        if tensor.is_floating_point() != template.is_floating_point() or tensor.is_complex():
            raise CheckpointError(f"{mismatch}: tensor {name!r} should be {wanted}, found {tensor.dtype}")
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise CheckpointError(f"{mismatch}: tensor {name!r} holds non-finite values (NaN or infinity)")
    unexpected = next((name for name in state if name not in expected), None)
    if unexpected is not None:
        raise CheckpointError(f"{mismatch}: tensor {unexpected!r} is not one of its tensors")


def network_from_checkpoint(payload: dict[str, Any], key: str = "state_dict", source: str = "checkpoint") -> RingNet:
    """Rebuild the network stored under ``key`` of a :func:`read_checkpoint` payload, its tensors checked against
    its config (:func:`check_state_dict`) before the network is built."""
    config = network_config_of(payload, source)
    check_state_dict(payload.get(key), config, source)
    net = build_network(config)
    try:
        net.load_state_dict(payload[key])
    except (TypeError, ValueError, RuntimeError, KeyError) as error:
        raise CheckpointError(f"{source} does not match the AlphaZero network it describes: {error}") from None
    net.eval()
    return net


def check_game(net: RingNet, game: str, source: str = "this network") -> None:
    """Raise CheckpointError unless ``net`` plays ``game`` (a network sees one game's observations only)."""
    check_plays(net.config, game, source)


def load_network(path: str | Path, game: str | None = None) -> RingNet:
    """The network saved at ``path`` by :func:`save_checkpoint`, in evaluation mode; with ``game``, a
    CheckpointError unless it plays that game."""
    return load_player(path, game)[0]


def load_player(path: str | Path, game: str | None = None) -> tuple[RingNet, dict[str, Any]]:
    """:func:`load_network` and the search settings the network was trained with (:func:`checkpoint_search`)."""
    payload = read_checkpoint(path)
    net = network_from_checkpoint(payload, source=repr(str(path)))
    if game is not None:
        check_game(net, get_game(game).name, f"the network of {str(path)!r}")
    return net, checkpoint_search(payload, repr(str(path)))
