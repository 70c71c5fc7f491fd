"""The network's forward pass for search: each batch norm folded into its convolution, every convolution one matrix
product, and the small steps between the products compiled, so a call costs little more than its arithmetic.

A 3-wide circular convolution of the features ``x`` (one row per position, ``positions`` consecutive rows per
observation) is ``taps = x @ W``, ``W`` holding the three taps' weights side by side, followed by
:func:`ring_sum`: position ``p`` adds tap 0 of position ``p - 1``, tap 1 of ``p`` and tap 2 of ``p + 1`` (around
the ring), the bias, the block's input for a residual connection, and applies the ReLU. The products go through
torch (MKL, on ``torch.get_num_threads()`` threads); everything else is a numba kernel. On the small batches of a
one-game search this runs 2-3x faster than the same functions as torch modules, whose per-operation overhead
dominates there; on self-play's large batches about as fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch
from numba import njit
from torch import nn

if TYPE_CHECKING:
    from agents.alphazero.network import RingNet


@njit(cache=True)
def board_planes(obs, board_index, board_entries, obs_size, own, per_position, out):
    """The network's input, one row per (observation, position): each board plane's entry, the observation's
    entries from ``board_entries`` to ``obs_size`` (stores, ply fraction), 1 at the mover's positions (``own``), and
    for observations followed by tactical features (:class:`~agents.alphazero.network.RingNet`'s ``tactics``) the
    two of each relative action ``a`` at position ``a // per_position``, channels ``a % per_position`` and
    ``per_position + a % per_position`` after the others (0 where a position has no such action)."""
    channels, positions = board_index.shape
    extra = obs_size - board_entries
    num_actions = (obs.shape[1] - obs_size) // 2
    first = channels + extra + 1
    for b in range(obs.shape[0]):
        for p in range(positions):
            row = b * positions + p
            for c in range(channels):
                out[row, c] = obs[b, board_index[c, p]]
            for s in range(extra):
                out[row, channels + s] = obs[b, board_entries + s]
            out[row, channels + extra] = own[p]
            for c in range(first, out.shape[1]):
                out[row, c] = 0.0
        for a in range(num_actions):
            row = b * positions + a // per_position
            channel = first + a % per_position
            out[row, channel] = obs[b, obs_size + a]
            out[row, channel + per_position] = obs[b, obs_size + num_actions + a]


@njit(cache=True)
def ring_sum(taps, bias, residual, positions, out):
    """``out = relu(tap 0 at p - 1 + tap 1 at p + tap 2 at p + 1 + bias (+ residual))`` per position ``p`` of each
    ring of ``positions`` rows; ``residual`` with no rows adds nothing, else it may be ``out`` itself."""
    width = out.shape[1]
    add_residual = residual.shape[0] > 0
    for start in range(0, out.shape[0], positions):
        for p in range(positions):
            row = start + p
            left = start + (p + positions - 1) % positions
            right = start + (p + 1) % positions
            for o in range(width):
                total = taps[left, o] + taps[row, width + o] + taps[right, 2 * width + o] + bias[o]
                if add_residual:
                    total += residual[row, o]
                out[row, o] = max(total, 0.0)


@njit(cache=True)
def heads(
    features, bias, positions, per_position, own_index, other_index, fc1, fc1_bias, fc2, fc2_bias, logits, values
):
    """Both heads from ``features`` (rows of 1x1 convolutions, without ``bias``: ``per_position`` policy channels,
    then the value features): the logits of the relative actions (action ``a`` is position ``a // per_position``,
    channel ``a % per_position``), and the value, from the value features (ReLU) averaged over the mover's positions
    and the others apart, through two dense layers (ReLU, tanh)."""
    num_actions = logits.shape[1]
    value_features = features.shape[1] - per_position
    pooled = np.empty(2 * value_features, dtype=np.float32)
    hidden = np.empty(fc1.shape[0], dtype=np.float32)
    for b in range(logits.shape[0]):
        start = b * positions
        for a in range(num_actions):
            channel = a % per_position
            logits[b, a] = features[start + a // per_position, channel] + bias[channel]
        for side, index in enumerate((own_index, other_index)):
            for k in range(value_features):
                total = np.float32(0.0)
                for p in index:
                    total += max(features[start + p, per_position + k] + bias[per_position + k], 0.0)
                pooled[side * value_features + k] = total / len(index)
        for j in range(fc1.shape[0]):
            total = fc1_bias[j]
            for i in range(pooled.shape[0]):
                total += fc1[j, i] * pooled[i]
            hidden[j] = max(total, 0.0)
        total = fc2_bias[0]
        for j in range(hidden.shape[0]):
            total += fc2[0, j] * hidden[j]
        values[b] = np.tanh(total)


def _fold(conv: nn.Conv1d, bn: nn.BatchNorm1d | None = None) -> tuple[torch.Tensor, np.ndarray]:
    """``conv`` followed by ``bn`` (its running statistics) as one product: the weights ``(in, taps * out)`` (tap
    ``j`` in columns ``j * out:(j + 1) * out``) and the bias ``(out,)``."""
    weight, bias = conv.weight, conv.bias
    if bn is not None:
        scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
        weight = weight * scale[:, None, None]
        bias = bn.bias - bn.running_mean * scale + (0.0 if bias is None else bias * scale)
    out_channels, in_channels, taps = weight.shape
    matrix = weight.permute(1, 2, 0).reshape(in_channels, taps * out_channels)
    return matrix.detach().clone().contiguous(), bias.detach().numpy().astype(np.float32)


class FoldedNet:
    """``net``'s forward pass in evaluation mode, numpy in and out (observations ``(B, obs_size)``, with ``tactics``
    followed by their tactical features, -> relative
    logits ``(B, num_actions)``, values ``(B,)``): the same outputs to float rounding. Holds a copy of the weights
    (later changes to ``net`` do not reach it) and work buffers reused from call to call, so one FoldedNet serves
    one thread."""

    def __init__(self, net: RingNet) -> None:
        with torch.no_grad():
            self.stem = _fold(net.stem, net.stem_bn)
            self.blocks = [(_fold(b.conv1, b.bn1), _fold(b.conv2, b.bn2)) for b in net.trunk]
            policy_weight, policy_bias = _fold(net.policy_conv)
            value_weight, value_bias = _fold(net.value_conv, net.value_bn)
            self.head = (
                torch.cat([policy_weight, value_weight], dim=1).contiguous(),
                np.concatenate([policy_bias, value_bias]),
            )
            self.fc1 = (net.value_fc1.weight.detach().numpy().copy(), net.value_fc1.bias.detach().numpy().copy())
            self.fc2 = (net.value_fc2.weight.detach().numpy().copy(), net.value_fc2.bias.detach().numpy().copy())
        self.board_index = net.board_index.numpy().astype(np.int64)
        self.board_entries, self.obs_size = net.board_entries, net.obs_size
        self.input_size = net.obs_size + (2 * net.num_actions if net.config.tactics else 0)
        self.own = net.own_plane.numpy().reshape(-1).copy()
        self.own_index = net.own_index.numpy().astype(np.int64)
        self.other_index = net.other_index.numpy().astype(np.int64)
        self.positions = net.positions
        self.per_position = policy_weight.shape[1]
        self.num_actions = net.num_actions
        self.channels = net.config.channels
        self.in_channels = self.stem[0].shape[0]
        self.capacity = 0
        self.views: dict[int, tuple] = {}

    def _buffers(self, batch: int) -> tuple:
        """Work buffers for ``batch`` observations (views into buffers grown as needed): numpy arrays and the
        torch tensors sharing their memory."""
        views = self.views.get(batch)
        if views is None:
            if batch > self.capacity:
                self.capacity = max(batch, 2 * self.capacity)
                rows = self.capacity * self.positions
                c = self.channels
                self.tensors = [
                    torch.empty(rows, width) for width in (self.in_channels, 3 * c, c, c, self.head[0].shape[1])
                ]
                self.views = {}
            rows = batch * self.positions
            tensors = [t[:rows] for t in self.tensors]
            views = self.views[batch] = (tensors, [t.numpy() for t in tensors])
        return views

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.input_size:
            raise ValueError(f"expected observations of shape (B, {self.input_size}), got {obs.shape}")
        batch = obs.shape[0]
        (planes_t, taps_t, x_t, y_t, head_t), (planes, taps, x, y, head) = self._buffers(batch)
        positions, none = self.positions, x[:0]
        board_planes(obs, self.board_index, self.board_entries, self.obs_size, self.own, self.per_position, planes)
        torch.mm(planes_t, self.stem[0], out=taps_t)
        ring_sum(taps, self.stem[1], none, positions, x)
        for (first, first_bias), (second, second_bias) in self.blocks:
            torch.mm(x_t, first, out=taps_t)
            ring_sum(taps, first_bias, none, positions, y)
            torch.mm(y_t, second, out=taps_t)
            ring_sum(taps, second_bias, x, positions, x)
        torch.mm(x_t, self.head[0], out=head_t)
        logits = np.empty((batch, self.num_actions), dtype=np.float32)
        values = np.empty(batch, dtype=np.float32)
        heads(head, self.head[1], positions, self.per_position, self.own_index, self.other_index, *self.fc1, *self.fc2,
              logits, values)  # fmt: skip
        return logits, values
