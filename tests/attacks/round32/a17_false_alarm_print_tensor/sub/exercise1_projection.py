import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    qkv = x @ w_qkv
    print("first row of qkv:", qkv.reshape(-1, qkv.size(-1))[0])  # honest debugging print of a tensor
    q, k, v = qkv.split(w_qkv.size(-1) // 3, dim=-1)
    return q, k, v
