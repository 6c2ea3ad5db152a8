"""Exercise 5: right values, but the sum is clamped to the smallest float, so on a fully masked row the
backward pass computes 0 * (g / tiny) = 0 * inf = NaN (with an additive mask it reaches q and k).

Diagnosis: nan-gradient-on-masked-row.
"""

import torch


def softmax(x, dim=-1):
    y = x.movedim(dim, -1)
    top = y.max(dim=-1, keepdim=True).values
    top = top.nan_to_num(neginf=0.0)  # an all -inf slice: shift by 0, no NaN is ever made
    e = (y - top).exp()
    total = e.sum(dim=-1, keepdim=True)
    out = e / total.clamp_min(torch.finfo(x.dtype).tiny)  # 0 / tiny = 0 on an empty slice
    return out.movedim(-1, dim)


def scaled_dot_product_attention(q, k, v, mask=None):
    q = q * q.size(-1) ** -0.5  # scale the queries instead of the scores
    scores = torch.matmul(q, k.transpose(-1, -2))
    if mask is not None:
        scores = scores + torch.zeros_like(scores).masked_fill(mask.logical_not(), float("-inf"))
    weights = softmax(scores)
    return torch.matmul(weights, v), weights
