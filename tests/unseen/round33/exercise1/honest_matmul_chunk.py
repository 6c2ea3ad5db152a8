"""Exercise 1 — projections with torch.matmul; the fused one cut with Tensor.chunk."""

import torch


def project(x, w_q, w_k, w_v):
    """Three separate matrix products, one per projection."""
    q = torch.matmul(x, w_q)
    k = torch.matmul(x, w_k)
    v = torch.matmul(x, w_v)
    return q, k, v


def fused_project(x, w_qkv):
    """A single torch.matmul against the side-by-side weights, then three equal chunks."""
    assert w_qkv.size(-1) % 3 == 0, "w_qkv must have 3*d columns"
    qkv = torch.matmul(x, w_qkv)          # (..., L, 3d)
    q, k, v = torch.chunk(qkv, 3, dim=-1)  # each (..., L, d)
    return q, k, v
