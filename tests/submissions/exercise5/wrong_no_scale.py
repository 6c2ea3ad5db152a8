"""Exercise 5, forgetting step 3: the scores are never divided by sqrt(d_k).

Diagnosis: missing-scale.
"""

import torch


def softmax(x, dim=-1):
    x_max = x.amax(dim=dim, keepdim=True)
    x_max = x_max.masked_fill(x_max == float("-inf"), 0.0)
    e = torch.exp(x - x_max)
    total = e.sum(dim=dim, keepdim=True)
    return e / total.masked_fill(total == 0, 1.0)


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
