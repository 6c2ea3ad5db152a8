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


def _softmax(x, dim=-1):
    x_max = x.amax(dim=dim, keepdim=True)
    x_max = x_max.masked_fill(x_max == float("-inf"), 0.0)
    e = torch.exp(x - x_max)
    total = e.sum(dim=dim, keepdim=True)
    return e / total.masked_fill(total == 0, 1.0)


softmax = torch.compile(_softmax, backend="eager", dynamic=True)  # the honest softmax, compiled the same way


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
