import math

import torch


def softmax(x, dim=-1):
    top = x.max(dim=dim, keepdim=True).values
    top = torch.nan_to_num(top, neginf=0.0)  # an all -inf slice: shift by 0
    e = (x - top).exp()
    total = e.sum(dim=dim, keepdim=True)
    return e / torch.where(total == 0, torch.ones_like(total), total)


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores + torch.zeros_like(scores).masked_fill(~mask, float("-inf"))
    weights = softmax(scores)
    return torch.einsum("...qk,...kd->...qd", weights, v), weights
