"""Exercise 5 — Softmax and scaled dot-product attention.

Chapter section: "Step 4 — Softmax: turn scores into weights".

Softmax turns a row of scores into weights: non-negative, summing to 1,

    softmax(s)_j = e^{s_j} / Σ_m e^{s_m}

Write it yourself, and make it safe:

- Stable: e^{1e4} overflows to inf. Subtracting the slice's maximum first changes nothing
  mathematically (it cancels between top and bottom) but keeps every e^{...} <= 1.
- Fully masked rows: a slice that is entirely -inf (a query that may see no key at all) must give
  zeros, not 0/0 = NaN. That is the chapter's "classic bug" with careless padding masks.

Then put the steps together into the chapter's `scaled_dot_product_attention`:
scores (step 2), scale (step 3), mask, softmax (step 4), weighted sum of the values (step 5).

Off limits here (the grader refuses them while your code runs): every torch function whose name
contains "softmax" (torch.softmax, torch.nn.functional.softmax and log_softmax, Tensor.softmax,
torch.special.softmax, nn.Softmax, torch.ops.aten._softmax, ...), torch's fused attention
(torch.nn.functional.scaled_dot_product_attention), nn.MultiheadAttention, and as in every exercise
the answer key (lumen_ref, solutions/) and the grader's own code. Everything else is allowed:
torch.exp, amax, sum, masked_fill, torch.where, and torch.logsumexp too.

Every function leaves its inputs unchanged and returns tensors in the inputs' dtype (float32 or
float64; float16 and bfloat16 too) and on their device.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
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
    x_max = x.amax(dim=dim, keepdim=True)  # (..., 1, ...) largest score of each slice
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
    False gets zero weights and a zero output, and the gradients through it are zeros, not NaN.
    Use your own `softmax` above (and not torch's fused attention).
    """
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # steps 2 + 3: (..., L_q, L_k)
    weights = softmax(scores, dim=-1)  # step 4
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # zero the hidden keys
    return weights @ v, weights  # step 5, blend the values: (..., L_q, d_v), (..., L_q, L_k)
