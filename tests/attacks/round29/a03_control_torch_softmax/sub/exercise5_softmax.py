import math

import torch


def _torch_softmax(x, dim):
    return torch.softmax(x, dim)


def softmax(x, dim=-1):
    dead = (x == float("-inf")).all(dim=dim, keepdim=True)
    out = _torch_softmax(x.masked_fill(dead, 0.0), dim)
    return out.masked_fill(dead, 0.0)


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
