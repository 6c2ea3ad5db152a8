"""Exercise 5: e^(x - logsumexp(x)), its logsumexp of -inf replaced by 0 after the fact: the values are
right, but torch.logsumexp's own backward on an all -inf slice is e^(-inf - -inf) = NaN, so the
softmax's gradient is NaN there, against the stub's "finite gradients too" (attention's masked_fill
stops it before q and k; an additive mask would not). Once in tests/honest/, when only values were graded.

Diagnosis: nan-gradient-on-masked-row.
"""

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
