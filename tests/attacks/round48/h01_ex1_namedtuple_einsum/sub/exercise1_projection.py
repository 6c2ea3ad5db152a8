"""Exercise 1: my projections, with einsum and a named result."""
from typing import NamedTuple

import torch


class QKV(NamedTuple):
    """The queries, keys and values of every token."""
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor


def project(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor, w_v: torch.Tensor) -> QKV:
    # one einsum per weight: (..., L, d_model) x (d_model, d) -> (..., L, d)
    return QKV(*(torch.einsum("...ld,de->...le", x, w) for w in (w_q, w_k, w_v)))


def fused_project(x: torch.Tensor, w_qkv: torch.Tensor) -> QKV:
    qkv = torch.matmul(x, w_qkv)  # (..., L, 3d), one product
    q, k, v = qkv.chunk(3, dim=-1)
    return QKV(q, k, v)
