"""Exercise 1 where fused_project copies the chapter's split(D): pieces d_model wide, not 3d / 3.

Diagnosis: fused-split-d-model.
"""

import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    D = x.size(-1)
    return (x @ w_qkv).split(D, dim=-1)  # like the chapter's MultiHeadAttention
