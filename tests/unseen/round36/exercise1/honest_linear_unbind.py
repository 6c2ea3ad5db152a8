"""Exercise 1 — Project: queries, keys and values.

Uses torch.nn.functional.linear (y = x Aᵀ, so we pass the weight transposed: still ONE matrix
product, F.linear is just matmul with the weight laid out the nn.Linear way). The fused output is
unflattened to (..., L, 3, d) and unbound along the "which projection" axis.
"""

import torch
import torch.nn.functional as F


def project(x, w_q, w_k, w_v):
    """Q, K, V with one F.linear (one matrix product) each. w.t() is a view, not a copy."""
    return tuple(F.linear(x, w.t()) for w in (w_q, w_k, w_v))


def fused_project(x, w_qkv):
    """One F.linear against the fused weight; columns [0, d) are W_Q, [d, 2d) W_K, [2d, 3d) W_V."""
    three_d = w_qkv.shape[-1]
    d = three_d // 3
    qkv = F.linear(x, w_qkv.t())  # (..., L, 3d)
    # (..., L, 3d) -> (..., L, 3, d): the 3 axis is exactly the column blocks W_Q | W_K | W_V
    q, k, v = qkv.unflatten(-1, (3, d)).unbind(dim=-2)
    return q, k, v
