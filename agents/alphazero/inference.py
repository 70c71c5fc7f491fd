"""AlphaZero's network for play, numpy in and out, without torch: the weights of a checkpoint read as numpy arrays
(:func:`agents.torch_file.load_tensor_arrays`), each batch norm folded into its convolution, every convolution one
matrix product (numpy's, on one BLAS thread: the batches of a one-game search are small) and the small steps between
the products compiled. Importing torch alone takes seconds; a fresh process (``awale bot``'s engine) plays a shipped
network within a second or two of its start this way, and its outputs are the torch network's to float rounding.

A 3-wide circular convolution of the features ``x`` (one row per position, ``positions`` consecutive rows per
observation) is ``taps = x @ W``, ``W`` holding the three taps' weights side by side, followed by
:func:`ring_sum`: position ``p`` adds tap 0 of position ``p - 1``, tap 1 of ``p`` and tap 2 of ``p + 1`` (around
the ring), the bias, the block's input for a residual connection, and applies the ReLU. :class:`NumpyNet` is that
forward pass; :class:`agents.alphazero.folded.FoldedNet` is the same one with torch's products, for self-play's
networks in training.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from threadpoolctl import threadpool_limits

from agents.alphazero.architecture import (
    NetworkConfig,
    check_arrays,
    check_payload,
    check_plays,
    checkpoint_file,
    checkpoint_search,
    network_config_of,
)
from agents.torch_file import load_tensor_arrays
from awale_env.games import get_game

#: The batch norms' epsilon (torch's default, which the network's batch norms keep; a state dict does not hold it).
BATCH_NORM_EPS = 1e-5


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


def fold(state: dict[str, np.ndarray], conv: str, bn: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The convolution ``conv`` of ``state`` (a state dict as numpy arrays) followed by the batch norm ``bn`` (its
    running statistics) as one product: the weights ``(in, taps * out)`` (tap ``j`` in columns ``j * out:(j + 1) *
    out``) and the bias ``(out,)``, float32 copies."""
    weight = np.asarray(state[f"{conv}.weight"], dtype=np.float32)
    bias = state.get(f"{conv}.bias")
    bias = np.zeros(weight.shape[0], np.float32) if bias is None else np.asarray(bias, dtype=np.float32)
    if bn is not None:
        variance = np.asarray(state[f"{bn}.running_var"], dtype=np.float32)
        scale = np.asarray(state[f"{bn}.weight"], dtype=np.float32) / np.sqrt(variance + np.float32(BATCH_NORM_EPS))
        weight = weight * scale[:, None, None]
        mean = np.asarray(state[f"{bn}.running_mean"], dtype=np.float32)
        bias = np.asarray(state[f"{bn}.bias"], dtype=np.float32) - mean * scale + bias * scale
    out_channels, in_channels, taps = weight.shape
    matrix = weight.transpose(1, 2, 0).reshape(in_channels, taps * out_channels)
    return np.array(matrix, dtype=np.float32, order="C"), np.array(bias, dtype=np.float32)


class NumpyNet:
    """The forward pass of the network of ``config`` with the weights ``state`` (its state dict as numpy arrays) in
    evaluation mode: observations ``(B, obs_size)`` (with ``tactics``, followed by their tactical features) ->
    relative logits ``(B, num_actions)``, values ``(B,)``, as :class:`~agents.alphazero.network.RingNet` gives them
    to float rounding. Holds copies of the weights and work buffers reused from call to call, so one instance serves
    one thread. ``config`` is the network's :class:`NetworkConfig` (its game: ``config.game``)."""

    def __init__(self, state: dict[str, np.ndarray], config: NetworkConfig) -> None:
        self.config = config
        game = get_game(config.game)
        self.stem = self._weights(*fold(state, "stem", "stem_bn"))
        self.blocks = [
            tuple(self._weights(*fold(state, f"trunk.{b}.conv{i}", f"trunk.{b}.bn{i}")) for i in (1, 2))
            for b in range(config.blocks)
        ]
        policy_weight, policy_bias = fold(state, "policy_conv")
        value_weight, value_bias = fold(state, "value_conv", "value_bn")
        self.head = self._weights(np.concatenate([policy_weight, value_weight], axis=1),
                                  np.concatenate([policy_bias, value_bias]))  # fmt: skip
        self.fc1, self.fc2 = (
            tuple(np.array(state[f"{layer}.{part}"], dtype=np.float32) for part in ("weight", "bias"))
            for layer in ("value_fc1", "value_fc2")
        )
        self.board_index = np.array(game.board_planes, dtype=np.int64)
        self.positions = self.board_index.shape[1]
        self.board_entries, self.obs_size, self.num_actions = game.board_entries, game.obs_size, game.num_actions
        self.input_size = game.obs_size + (2 * game.num_actions if config.tactics else 0)
        self.own_index = np.array(sorted(set(game.own_positions)), dtype=np.int64)
        self.other_index = np.array([p for p in range(self.positions) if p not in set(game.own_positions)],
                                    dtype=np.int64)  # fmt: skip
        self.own = np.zeros(self.positions, dtype=np.float32)
        self.own[self.own_index] = 1.0
        self.per_position = policy_weight.shape[1]
        self.channels = config.channels
        self.in_channels = self.stem[0].shape[0]
        self.capacity = 0
        self.views: dict[int, tuple] = {}

    def _weights(self, matrix: np.ndarray, bias: np.ndarray) -> tuple[Any, np.ndarray]:
        """A product's weights as :meth:`_product` takes them, and its bias."""
        return matrix, bias

    def _allocate(self, rows: int, width: int) -> tuple[np.ndarray, Any]:
        """A work buffer: the array the compiled steps write, and the same memory as :meth:`_product` takes it."""
        array = np.empty((rows, width), dtype=np.float32)
        return array, array

    def _product(self, x: Any, weights: Any, out: Any) -> None:
        """``out = x @ weights`` (a view of a work buffer, weights from :meth:`_weights`, a view of a buffer)."""
        np.matmul(x, weights, out=out)

    def _buffers(self, batch: int) -> tuple:
        """Work buffers for ``batch`` observations (views into buffers grown as needed): the arrays and the same
        memory as :meth:`_product` takes it."""
        views = self.views.get(batch)
        if views is None:
            if batch > self.capacity:
                self.capacity = max(batch, 2 * self.capacity)
                rows, c = self.capacity * self.positions, self.channels
                widths = (self.in_channels, 3 * c, c, c, self.head[0].shape[1])
                self.buffers = [self._allocate(rows, width) for width in widths]
                self.views = {}
            rows = batch * self.positions
            views = self.views[batch] = tuple(zip(*((a[:rows], b[:rows]) for a, b in self.buffers)))
        return views

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.input_size:
            raise ValueError(f"expected observations of shape (B, {self.input_size}), got {obs.shape}")
        batch = obs.shape[0]
        (planes, taps, x, y, head), (planes_p, taps_p, x_p, y_p, head_p) = self._buffers(batch)
        positions, none, product = self.positions, x[:0], self._product
        board_planes(obs, self.board_index, self.board_entries, self.obs_size, self.own, self.per_position, planes)
        product(planes_p, self.stem[0], taps_p)
        ring_sum(taps, self.stem[1], none, positions, x)
        for (first, first_bias), (second, second_bias) in self.blocks:
            product(x_p, first, taps_p)
            ring_sum(taps, first_bias, none, positions, y)
            product(y_p, second, taps_p)
            ring_sum(taps, second_bias, x, positions, x)
        product(x_p, self.head[0], head_p)
        logits = np.empty((batch, self.num_actions), dtype=np.float32)
        values = np.empty(batch, dtype=np.float32)
        heads(head, self.head[1], positions, self.per_position, self.own_index, self.other_index, *self.fc1, *self.fc2,
              logits, values)  # fmt: skip
        return logits, values


def read_checkpoint_arrays(path: str | Path) -> dict[str, Any]:
    """An AlphaZero checkpoint's contents, its tensors as numpy arrays, read without torch and checked as
    :func:`agents.alphazero.network.read_checkpoint` checks them (CheckpointError naming the file)."""
    return check_payload(load_tensor_arrays(checkpoint_file(path), repr(str(path))), repr(str(path)))


def load_player(path: str | Path, game: str | None = None) -> tuple[NumpyNet, dict[str, Any]]:
    """The network of the AlphaZero checkpoint ``path`` for play, read and checked without torch, and the search
    settings it was trained with (:func:`~agents.alphazero.architecture.checkpoint_search`); with ``game``, a
    CheckpointError unless it plays that game."""
    source = repr(str(path))
    payload = read_checkpoint_arrays(path)
    config = network_config_of(payload, source)
    check_arrays(payload["state_dict"], config, source)
    if game is not None:
        check_plays(config, get_game(game).name, f"the network of {source}")
    return NumpyNet(payload["state_dict"], config), checkpoint_search(payload, source)


def set_threads(threads: int) -> None:
    """Run the network's products on ``threads`` threads: numpy's BLAS (``threadpoolctl``), and torch's when torch
    is loaded (a network given in memory). Small batches run fastest on one: a BLAS that spreads a product of a few
    hundred rows over every core waits on them, the more so on a busy machine."""
    threadpool_limits(threads, user_api="blas")
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)
