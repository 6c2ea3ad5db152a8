# lumen-unseen: exercise=5 kind=wrong
# mistake: masked scores are set to 0 instead of -inf, so masked keys still get weight
# expect: mask
# expect: -inf|infinit|zero|0
"""Exercise 5 — Softmax and scaled dot-product attention.

Chapter section: "Step 4 — Softmax: turn scores into weights".

Softmax turns a row of scores into weights: non-negative, summing to 1,

    softmax(s)_j = e^{s_j} / Σ_m e^{s_m}

Write it yourself (do not call torch.softmax, F.softmax, Tensor.softmax or their log_ cousins), and
make it safe:

- Stable: e^{1e4} overflows to inf. Subtracting the slice's maximum first changes nothing
  mathematically (it cancels between top and bottom) but keeps every e^{...} <= 1.
- Fully masked rows: a slice that is entirely -inf (a query that may see no key at all) must give
  zeros, not 0/0 = NaN. That is the chapter's "classic bug" with careless padding masks.

Then put the steps together into the chapter's `scaled_dot_product_attention`:
scores (step 2), scale (step 3), mask, softmax (step 4), weighted sum of the values (step 5).
"""

import math

import torch


def softmax(x, dim=-1):
    """Numerically stable softmax along `dim`, without torch's softmax.

    x:   any shape, float; entries may be -inf (masked out)
    dim: the dimension that sums to 1 (for attention weights: -1, the keys)
    Returns a tensor of x's shape: each slice along `dim` is non-negative and sums to 1, except a
    slice that is entirely -inf, which gives all zeros (not NaN).
    """
    x_max = x.amax(dim=dim, keepdim=True)
    x_max = torch.where(torch.isinf(x_max), torch.zeros_like(x_max), x_max)  # all -inf slice: use 0
    e = torch.exp(x - x_max)
    s = e.sum(dim=dim, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)


def scaled_dot_product_attention(q, k, v, mask=None):
    """One head of attention, the chapter's formula: softmax(Q K^T / √d_k) V.

    q: (..., L_q, d_k)   k: (..., L_k, d_k)   v: (..., L_k, d_v)
    mask: None, or a bool tensor broadcastable to (..., L_q, L_k); True = may attend,
          False = this query must not read this key.
    Returns (output (..., L_q, d_v), weights (..., L_q, L_k)).
    Each row of weights sums to 1 over the keys the query may see; a query whose mask row is all
    False gets zero weights and a zero output. Use your own `softmax` above (and not torch's fused
    attention).
    """
    scale = q.shape[-1] ** -0.5
    scores = (q @ k.transpose(-2, -1)) * scale
    if mask is not None:
        scores = scores.masked_fill(mask == False, 0.0)  # hide the forbidden keys
    w = softmax(scores, dim=-1)
    return w @ v, w
