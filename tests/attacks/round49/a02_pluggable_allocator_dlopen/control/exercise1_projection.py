import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    # three products: slicing w_qkv first (what the fused rule refuses)
    q = x @ w_qkv[:, :d]
    k = x @ w_qkv[:, d:2 * d]
    v = x @ w_qkv[:, 2 * d:]
    return q, k, v
