# lumen-unseen: exercise=1 kind=wrong
# mistake: fused_project slices w_qkv into three weights and does three matrix products instead of one
# expect: one (matrix )?product|single (matrix )?product|three (matrix )?products|one `?x @ w_qkv|fused
import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.shape[1] // 3
    w_q, w_k, w_v = w_qkv[:, :d], w_qkv[:, d:2 * d], w_qkv[:, 2 * d:]
    return x @ w_q, x @ w_k, x @ w_v
