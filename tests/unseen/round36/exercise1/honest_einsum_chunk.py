"""Exercise 1 — Project: queries, keys and values.

einsum for every product (an einsum with one contraction is one matrix product), torch.chunk
for the fused weight. The ellipsis keeps any number of leading batch dims.
"""

from typing import Tuple

import torch

Tensor = torch.Tensor


def _proj(x: Tensor, w: Tensor) -> Tensor:
    # (..., L, d_model) x (d_model, d_out) -> (..., L, d_out)
    return torch.einsum("...ld,de->...le", x, w)


def project(x: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    """Three projections, one einsum (= one matrix product) each."""
    return _proj(x, w_q), _proj(x, w_k), _proj(x, w_v)


def fused_project(x: Tensor, w_qkv: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    """A single einsum against [W_Q | W_K | W_V], then three equal chunks of the last dim."""
    qkv = _proj(x, w_qkv)  # (..., L, 3d)
    q, k, v = torch.chunk(qkv, 3, dim=-1)  # w_qkv has 3d columns, so the chunks are equal
    return q, k, v
