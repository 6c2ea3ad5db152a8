"""Exercise 5, stable against overflow but NaN where a whole row is -inf (no guard).

Diagnosis: softmax-nan-on-masked-row.
"""

import math

import torch


def softmax(x, dim=-1):
    x = x - x.max(dim=dim, keepdim=True).values  # -inf - (-inf) = NaN on an empty row
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)


def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.size(-1)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))  # noqa: E712
    weights = softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights
