"""Exercise 1 where fused_project reads the columns as [W_Q | W_V | W_K].

Diagnosis: qkv-order-swapped.
"""

import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    q, v, k = (x @ w_qkv).split(d, dim=-1)
    return q, k, v
