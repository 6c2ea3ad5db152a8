"""Exercise 5, with softmax over the queries (dim=-2) instead of the keys.

Diagnosis: softmax-wrong-dim.
"""

import math

import torch


def softmax(x, dim=-1):
    x_max = x.amax(dim=dim, keepdim=True)
    x_max = x_max.masked_fill(x_max == float("-inf"), 0.0)
    e = torch.exp(x - x_max)
    total = e.sum(dim=dim, keepdim=True)
    return e / total.masked_fill(total == 0, 1.0)


def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-2)  # normalise each column
    return weights @ v, weights
