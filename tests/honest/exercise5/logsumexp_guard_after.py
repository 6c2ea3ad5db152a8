import math

import torch


def softmax(x, dim=-1):
    # e^(x - logsumexp(x)); a slice that is all -inf has logsumexp -inf: use 0 there, so e^(-inf) = 0
    log_total = torch.logsumexp(x, dim=dim, keepdim=True)
    log_total = torch.where(torch.isneginf(log_total), torch.zeros_like(log_total), log_total)
    return torch.exp(x - log_total)


def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    weights = softmax(scores)
    return torch.matmul(weights, v), weights
