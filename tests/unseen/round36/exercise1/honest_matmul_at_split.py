"""Exercise 1 — Project: queries, keys and values.

Plain chapter style: one `@` per projection, and Tensor.split for the fused weight.
"""

import torch


def project(x, w_q, w_k, w_v):
    """Q = X W_Q, K = X W_K, V = X W_V (one `@` each)."""
    q = x @ w_q  # (..., L, d_k)
    k = x @ w_k  # (..., L, d_k)
    v = x @ w_v  # (..., L, d_v)
    return q, k, v


def fused_project(x, w_qkv):
    """One product x @ [W_Q | W_K | W_V], then cut the last dim into three equal parts."""
    d = w_qkv.size(-1) // 3
    qkv = x @ w_qkv  # (..., L, 3d)
    q, k, v = qkv.split(d, dim=-1)
    return q, k, v
