"""Exercise 1 — projections written with torch.einsum.

The fused version computes all three projections with one einsum, then reshapes the last axis
(3d) into (3, d) and unbinds it: column block 0 is W_Q, block 1 is W_K, block 2 is W_V.
"""

import torch


def project(x, w_q, w_k, w_v):
    # "...ld,de->...le": every row of x (a token) times the weight matrix
    q = torch.einsum("...ld,de->...le", x, w_q)
    k = torch.einsum("...ld,de->...le", x, w_k)
    v = torch.einsum("...ld,de->...le", x, w_v)
    return q, k, v


def fused_project(x, w_qkv):
    d_model, three_d = w_qkv.shape
    d = three_d // 3
    qkv = torch.einsum("...ld,de->...le", x, w_qkv)  # (..., L, 3d), the only product
    # (..., L, 3d) -> (..., L, 3, d): columns [0, d) then [d, 2d) then [2d, 3d)
    qkv = qkv.reshape(*qkv.shape[:-1], 3, d)
    q, k, v = qkv.unbind(dim=-2)
    return q, k, v
