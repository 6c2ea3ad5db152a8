"""Exercise 5 with torch.where everywhere and einsum for the products.

Diagnosis: none.
"""

import math

import torch


def softmax(x, dim=-1):
    biggest = torch.amax(x, dim=dim, keepdim=True)
    biggest = torch.where(torch.isfinite(biggest), biggest, torch.zeros_like(biggest))
    e = torch.exp(x - biggest)
    total = torch.sum(e, dim=dim, keepdim=True)
    safe_total = torch.where(total > 0, total, torch.ones_like(total))
    return e / safe_total


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = torch.einsum("...qd,...kd->...qk", q, k) * (1.0 / math.sqrt(q.shape[-1]))
    if mask is not None:
        scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
    weights = softmax(scores, dim=-1)
    out = torch.einsum("...qk,...kd->...qd", weights, v)
    return out, weights
