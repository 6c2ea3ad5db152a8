"""Exercise 5, with the textbook softmax: exp / sum, no max subtracted, no guard.

Diagnosis: softmax-unstable.
"""

import math

import torch


def softmax(x, dim=-1):
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores)
    return weights @ v, weights
