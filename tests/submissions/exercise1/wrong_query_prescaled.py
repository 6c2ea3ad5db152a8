"""Exercise 1 scaling the queries by 1/√d_k in the projection, as Hugging Face's BART and T5 attention
does before its scores (here that is Step 3's job, on the scores).

Diagnosis: query-prescaled.
"""

import torch


def project(x, w_q, w_k, w_v):
    q = x @ w_q * w_q.size(-1) ** -0.5  # pre-scaled, as in the ported code
    return q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    q, k, v = (x @ w_qkv).split(d, dim=-1)
    return q, k, v
