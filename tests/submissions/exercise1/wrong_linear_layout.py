"""Exercise 1 with nn.Linear's weight layout in project: F.linear(x, w) is x @ w.T, not x @ w.

Diagnosis: projection-transposed.
"""

import torch
import torch.nn.functional as F


def project(x, w_q, w_k, w_v):
    q = F.linear(x, w_q)
    k = F.linear(x, w_k)
    v = F.linear(x, w_v)
    return q, k, v


def fused_project(x, w_qkv):
    qkv = x @ w_qkv
    d = w_qkv.size(-1) // 3
    q, k, v = qkv.split(d, dim=-1)
    return q, k, v
