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
    """exp(x - logsumexp(x)): torch.logsumexp is allowed. A slice of only -inf is set to 0 first
    (so neither its value nor its gradient is 0/0) and its weights to 0 after."""
    dead = (x == float("-inf")).all(dim=dim, keepdim=True)
    safe = x.masked_fill(dead, 0.0)
    lse = torch.logsumexp(safe, dim=dim, keepdim=True)
    return torch.exp(safe - lse).masked_fill(dead, 0.0)


def scaled_dot_product_attention(q, k, v, mask=None):
    """Scale q first, einsum for both products, torch.where for the mask."""
    scores = torch.einsum("...qd,...kd->...qk", q * (q.size(-1) ** -0.5), k)
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
    weights = softmax(scores, dim=-1)
    return torch.einsum("...qk,...kd->...qd", weights, v), weights


