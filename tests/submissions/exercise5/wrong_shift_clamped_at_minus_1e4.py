"""Exercise 5 guarding an all -inf slice by clamping its max at -1e4, not by shifting only that slice by 0
(round 84's a05: full marks while the suites' scores stayed above -1e4): a slice far below -1e4 sums to 0.

Diagnosis: none.
"""

import math

import torch


def softmax(x, dim=-1):
    """Numerically stable softmax along `dim`, without torch's softmax.

    x:   any shape, float; entries may be -inf (masked out) or huge (±1e4: e^1e4 overflows)
    dim: the dimension that sums to 1 (for attention weights: -1, the keys)
    Returns a new tensor of x's shape, dtype and device: each slice along `dim` is non-negative and
    sums to 1, except a slice that is entirely -inf, which gives all zeros (not NaN), with finite
    gradients too: the gradient w.r.t. every entry of that slice is 0.
    """
    # BEGIN SOLUTION
    # HINT: Exercise 5: subtract the max along dim before torch.exp (use 0 instead of a max of -inf), then divide by the sum (guarding a sum of 0) — see 'Step 4 — Softmax: turn scores into weights' in the chapter
    x_max = x.amax(dim=dim, keepdim=True)  # (..., 1, ...) largest score of each slice
    x_max = x_max.clamp(min=-1e4)  # (..., 1, ...) an all -inf slice: shift by -1e4
    e = torch.exp(x - x_max)  # (x's shape) every entry <= 1: no overflow; e^-inf = 0
    total = e.sum(dim=dim, keepdim=True)  # (..., 1, ...) > 0 unless the slice was all -inf
    return e / total.masked_fill(total == 0, 1.0)  # (x's shape) an all -inf slice: 0 / 1 = 0
    # END SOLUTION


def scaled_dot_product_attention(q, k, v, mask=None):
    """One head of attention, the chapter's formula: softmax(Q K^T / √d_k) V.

    q: (..., L_q, d_k)   k: (..., L_k, d_k)   v: (..., L_k, d_v)
    mask: None (every query reads every key: no causal mask is added), or a bool tensor on q's
          device broadcastable to (..., L_q, L_k); True = may attend, False = this query must not
          read this key. d_k is q.size(-1).
    Returns (output (..., L_q, d_v), weights (..., L_q, L_k)).
    Each row of weights sums to 1 over the keys the query may see; a query whose mask row is all
    False gets zero weights and a zero output, and the gradients through it are zeros, not NaN.
    Use your own `softmax` above (and not torch's fused attention).
    """
    # BEGIN SOLUTION
    # HINT: Exercise 5: scores = Q Kᵀ / √d_k, -inf where the mask is False, your softmax over the keys (dim=-1), then weights @ v — see 'Step 4 — Softmax: turn scores into weights' in the chapter
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # steps 2 + 3: (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed: (..., L_q, L_k)
    weights = softmax(scores, dim=-1)  # step 4: (..., L_q, L_k) rows sum to 1 (0 if fully masked)
    return weights @ v, weights  # step 5, blend the values: (..., L_q, d_v), (..., L_q, L_k)
    # END SOLUTION
