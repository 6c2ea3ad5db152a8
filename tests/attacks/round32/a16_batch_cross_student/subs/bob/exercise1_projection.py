import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    q, k, v = (x @ w_qkv).split(w_qkv.size(-1) // 3, dim=-1)
    return q, k, v
