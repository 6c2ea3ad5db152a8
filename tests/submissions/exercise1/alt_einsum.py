"""Exercise 1, written with einsum and explicit column slices (a correct alternative).

Diagnosis: none.
"""

import torch


def project(x, w_q, w_k, w_v):
    # "...ld,de->...le": every token row times the weight matrix, any batch dims in front
    q = torch.einsum("...ld,de->...le", x, w_q)
    k = torch.einsum("...ld,de->...le", x, w_k)
    v = torch.einsum("...ld,de->...le", x, w_v)
    return q, k, v


def fused_project(x, w_qkv):
    qkv = torch.einsum("...ld,de->...le", x, w_qkv)
    d = w_qkv.shape[1] // 3
    return qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
