# lumen-unseen: exercise=5 kind=wrong
# mistake: softmax as exp(x - logsumexp(x)), fully masked slices fixed up with torch.where afterwards: the values are right, but logsumexp of an all -inf slice differentiates e^(-inf - -inf), so the gradients of a fully masked row are NaN (the stub asks for finite gradients too). Written as honest by the corpus's author; reclassified by the lead once gradients were graded (issue 20).
# expect: grad|backward
# expect: nan|inf
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
    lse = torch.logsumexp(x, dim=dim, keepdim=True)
    dead = torch.isinf(lse) & (lse < 0)               # every entry -inf
    out = torch.exp(x - torch.where(dead, torch.zeros_like(lse), lse))
    return torch.where(dead, torch.zeros_like(out), out)


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
    scores = torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    weights = softmax(scores)
    return torch.einsum("...qk,...kd->...qd", weights, v), weights
