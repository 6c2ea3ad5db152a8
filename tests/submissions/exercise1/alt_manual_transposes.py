"""Exercise 1, the long way round: (Wᵀ Xᵀ)ᵀ = X W, and chunk instead of split (a correct alternative).

Diagnosis: none.
"""

import torch


def _times(x, w):
    # (d_out, d_model) @ (..., d_model, L) -> (..., d_out, L), then back to (..., L, d_out)
    return torch.matmul(w.transpose(0, 1), x.transpose(-2, -1)).transpose(-2, -1)


def project(x, w_q, w_k, w_v):
    return _times(x, w_q), _times(x, w_k), _times(x, w_v)


def fused_project(x, w_qkv):
    qkv = _times(x, w_qkv)
    q, k, v = torch.chunk(qkv, 3, dim=-1)
    return q, k, v
