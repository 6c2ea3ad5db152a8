"""Exercise 5: softmax on the last axis after movedim, queries scaled before the product, an additive mask.

Diagnosis: none.
"""

import torch


def softmax(x, dim=-1):
    y = x.movedim(dim, -1)
    top = y.max(dim=-1, keepdim=True).values
    top = top.nan_to_num(neginf=0.0)  # an all -inf slice: shift by 0, no NaN is ever made
    e = (y - top).exp()
    total = e.sum(dim=-1, keepdim=True)
    out = e / (total + (total == 0).to(total.dtype))  # an empty slice: 0 / (0 + 1) = 0
    return out.movedim(-1, dim)


def scaled_dot_product_attention(q, k, v, mask=None):
    q = q * q.size(-1) ** -0.5  # scale the queries instead of the scores
    scores = torch.matmul(q, k.transpose(-1, -2))
    if mask is not None:
        scores = scores + torch.zeros_like(scores).masked_fill(mask.logical_not(), float("-inf"))
    weights = softmax(scores)
    return torch.matmul(weights, v), weights
