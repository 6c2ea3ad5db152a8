"""Exercise 5: the max for the shift taken over the last axis, the sum over dim.

Diagnosis: softmax-max-over-last-axis.
"""

import math

import torch


def softmax(x, dim=-1):
    """Numerically stable softmax along `dim`, without torch's softmax.

    x:   any shape, float; entries may be -inf (masked out) or huge (±1e4: e^1e4 overflows)
    dim: the dimension that sums to 1 (for attention weights: -1, the keys)
    Returns a new tensor of x's shape, dtype and device: each slice along `dim` is non-negative and
    sums to 1, except a slice that is entirely -inf, which gives all zeros (not NaN), with finite
    gradients too.
    """
    x_max = x.max(-1, keepdim=True).values  # (..., 1) largest score of each row
    x_max = x_max.masked_fill(x_max == float("-inf"), 0.0)  # (..., 1, ...) an all -inf slice: shift by 0
    e = torch.exp(x - x_max)  # (x's shape) every entry <= 1: no overflow; e^-inf = 0
    total = e.sum(dim=dim, keepdim=True)  # (..., 1, ...) > 0 unless the slice was all -inf
    return e / total.masked_fill(total == 0, 1.0)  # (x's shape) an all -inf slice: 0 / 1 = 0


def scaled_dot_product_attention(q, k, v, mask=None):
    """One head of attention, the chapter's formula: softmax(Q K^T / √d_k) V.

    q: (..., L_q, d_k)   k: (..., L_k, d_k)   v: (..., L_k, d_v)
    mask: None (every query reads every key: no causal mask is added), or a bool tensor on q's
          device broadcastable to (..., L_q, L_k); True = may attend, False = this query must not
          read this key. d_k is q.size(-1).
    Returns (output (..., L_q, d_v), weights (..., L_q, L_k)).
    Each row of weights sums to 1 over the keys the query may see; a query whose mask row is all
    False gets zero weights and a zero output. Use your own `softmax` above (and not torch's fused
    attention).
    """
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # steps 2 + 3: (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed: (..., L_q, L_k)
    weights = softmax(scores, dim=-1)  # step 4: (..., L_q, L_k) rows sum to 1 (0 if fully masked)
    return weights @ v, weights  # step 5, blend the values: (..., L_q, d_v), (..., L_q, L_k)
