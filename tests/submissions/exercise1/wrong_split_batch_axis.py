"""Exercise 1 where fused_project cuts dim=1 into three: right for x (L, d_model), wrong once batched.

Diagnosis: fused-split-wrong-axis.
"""

import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    qkv = x @ w_qkv  # (L, 3d) in my notebook, so the columns are dim 1
    q, k, v = qkv.chunk(3, dim=1)
    return q, k, v
