"""Exercise 5 — Softmax and scaled dot-product attention.

A student who likes in-place ops, used only on fresh intermediates that autograd does not keep
(the output of a subtraction, of a sum, of a matmul), never on the inputs and never on a tensor
a backward formula still needs. The softmax works on the last axis after movedim, and moves the
result back. Scores are built with torch.matmul, then scaled and masked in place.
"""

import math

import torch


def _softmax_last(x):
    if x.size(-1) == 0:  # empty rows: nothing to normalise (amax refuses an empty dim)
        return x.clone()
    m = x.amax(dim=-1, keepdim=True)
    m = m.masked_fill(m == float("-inf"), 0.0)  # out of place: m is a fresh tensor anyway
    z = x - m  # new tensor; sub's backward needs neither operand
    e = z.exp_()  # in place on z: exp_'s backward uses its own result, which is e itself
    s = e.sum(dim=-1, keepdim=True)  # sum's backward needs no values
    s.masked_fill_(s == 0, 1.0)  # in place on s: nothing saved it
    return e / s


def softmax(x, dim=-1):
    """Stable softmax along dim (any dim: moved to the end and back)."""
    if x.dim() == 0:
        return _softmax_last(x.reshape(1)).reshape(())
    dim = dim % x.dim()
    return _softmax_last(x.movedim(dim, -1)).movedim(-1, dim)


def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(Q Kᵀ / √d_k) V; the score tensor is scaled and masked in place."""
    scores = torch.matmul(q, k.transpose(-1, -2))  # fresh (..., L_q, L_k); matmul saves q, k only
    scores.mul_(1.0 / math.sqrt(q.size(-1)))
    if mask is not None:
        # mask may have fewer leading dims than scores; masked_fill_ broadcasts it to scores
        scores.masked_fill_(mask.logical_not(), float("-inf"))
    weights = softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights
