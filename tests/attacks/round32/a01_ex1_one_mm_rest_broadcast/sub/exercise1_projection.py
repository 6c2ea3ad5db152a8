import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    # three separate projections: one matmul for Q, K and V as broadcast multiply + sum (no aten product)
    d = w_qkv.size(-1) // 3
    w_q, w_k, w_v = w_qkv.split(d, dim=-1)
    q = x @ w_q
    k = (x.unsqueeze(-1) * w_k).sum(-2)
    v = (x.unsqueeze(-1) * w_v).sum(-2)
    return q, k, v
