import torch

def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v

def fused_project(x, w_qkv):
    qkv = x @ w_qkv
    # student thinks the columns are interleaved q,k,v,q,k,v,...
    q = qkv[..., 0::3]
    k = qkv[..., 1::3]
    v = qkv[..., 2::3]
    return q, k, v
