import math

import torch


def softmax(x, dim=-1):
    # backward-stable: e^(x - logsumexp(x)). A slice that is all -inf has no logsumexp: compute it
    # on zeros there (so that no NaN appears, forwards or backwards) and give that slice zeros.
    dead = torch.isneginf(x).all(dim=dim, keepdim=True)
    safe = torch.where(dead, torch.zeros_like(x), x)
    log_total = torch.logsumexp(safe, dim=dim, keepdim=True)
    return torch.where(dead, torch.zeros_like(x), torch.exp(safe - log_total))


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
