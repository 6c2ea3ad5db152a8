"""Exercise 1 with einsum, a named tuple and unflatten/unbind."""

from typing import NamedTuple

import torch


class QKV(NamedTuple):
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor


def project(x, w_q, w_k, w_v):
    q, k, v = (torch.einsum("...ld,de->...le", x, w) for w in (w_q, w_k, w_v))
    return QKV(q, k, v)


def fused_project(x, w_qkv):
    d = w_qkv.shape[-1] // 3
    qkv = torch.matmul(x, w_qkv)                # (..., L, 3d): the one product
    q, k, v = qkv.unflatten(-1, (3, d)).unbind(dim=-2)
    return QKV(q, k, v)
