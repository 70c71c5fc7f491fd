"""The network's forward pass for self-play: :class:`~agents.alphazero.inference.NumpyNet` (each batch norm folded
into its convolution, every convolution one matrix product, the small steps between the products compiled) with
its products through torch (MKL, on ``torch.get_num_threads()`` threads), built from a :class:`RingNet` in memory.
On the small batches of a one-game search this runs 2-3x faster than the same functions as torch modules, whose
per-operation overhead dominates there; on self-play's large batches about as fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from agents.alphazero.inference import NumpyNet

if TYPE_CHECKING:
    from agents.alphazero.network import RingNet


class FoldedNet(NumpyNet):
    """``net``'s forward pass in evaluation mode, numpy in and out, as :class:`NumpyNet` computes it: the same
    outputs as ``net`` to float rounding. Holds a copy of the weights (later changes to ``net`` do not reach it)."""

    def __init__(self, net: RingNet) -> None:
        with torch.no_grad():
            state = {name: tensor.detach().cpu().numpy() for name, tensor in net.state_dict().items()}
        super().__init__(state, net.config)

    def _weights(self, matrix: np.ndarray, bias: np.ndarray) -> tuple[Any, np.ndarray]:
        return torch.from_numpy(matrix), bias

    def _allocate(self, rows: int, width: int) -> tuple[np.ndarray, Any]:
        tensor = torch.empty(rows, width)
        return tensor.numpy(), tensor

    def _product(self, x: Any, weights: Any, out: Any) -> None:
        torch.mm(x, weights, out=out)
