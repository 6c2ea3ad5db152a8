"""Exercise 1 — projections; the fused version slices its product with a generator."""

import torch


def _matmul_all(x, *weights):
    """One product per weight matrix."""
    return tuple(x @ w for w in weights)


def project(x, w_q, w_k, w_v):
    q, k, v = _matmul_all(x, w_q, w_k, w_v)
    return q, k, v


def _column_blocks(t, width, n):
    """Yield n consecutive blocks of `width` columns of t's last axis."""
    for i in range(n):
        yield t[..., i * width:(i + 1) * width]


def fused_project(x, w_qkv):
    width = w_qkv.size(-1) // 3
    qkv = x @ w_qkv                      # the single matrix product
    q, k, v = _column_blocks(qkv, width, 3)
    return q, k, v
