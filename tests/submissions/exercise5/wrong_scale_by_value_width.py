"""Exercise 5, scaling the scores by the width of the values: d = v.shape[-1], not q's.

Diagnosis: scaled-by-value-width.
"""

import math

import torch


def softmax(x, dim=-1):
    top = x.amax(dim=dim, keepdim=True)
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
    e = torch.exp(x - top)
    total = e.sum(dim=dim, keepdim=True)
    return e / torch.where(total == 0, torch.ones_like(total), total)


def scaled_dot_product_attention(q, k, v, mask=None):
    d = v.shape[-1]  # the head width
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(d)
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
