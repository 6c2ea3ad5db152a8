import torch

def project(x, w_q, w_k, w_v):
    q = x @ w_q
    k = x @ w_k
    v = x @ w_k   # copy-paste slip
    return q, k, v

def fused_project(x, w_qkv):
    return (x @ w_qkv).split(w_qkv.shape[-1] // 3, dim=-1)
