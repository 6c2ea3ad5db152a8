import math
import torch


def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True).detach()
    m = m.masked_fill(torch.isinf(m), 0.0)
    e = torch.exp(x - m)
    s = e.sum(dim=dim, keepdim=True)
    return e / s.masked_fill(s == 0, 1.0)


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
