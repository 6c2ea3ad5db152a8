"""Exercise 5 — Softmax and scaled dot-product attention.

softmax(x) = exp(x - logsumexp(x)). torch.logsumexp is stable on its own, but on a slice that
is entirely -inf it returns -inf and -inf - (-inf) is NaN, so such slices are swapped for zeros
before the logsumexp and their result is forced to 0 afterwards.

The attention returns a NamedTuple, which unpacks exactly like (output, weights).
Set SOFTMAX_DEBUG=1 to log how many fully masked slices each call sees.
"""

import logging
import math
import os
from typing import NamedTuple, Optional

import torch

logger = logging.getLogger(__name__)
_DEBUG = os.getenv("SOFTMAX_DEBUG") == "1"


class Attention(NamedTuple):
    output: torch.Tensor
    weights: torch.Tensor


def softmax(x, dim=-1):
    """Stable softmax along dim without torch's softmax; all -inf slices -> zeros."""
    dead = torch.isneginf(x).all(dim=dim, keepdim=True)  # slices with no finite entry
    if _DEBUG:
        logger.debug("softmax: %d fully masked slice(s)", int(dead.sum()))
    safe = x.masked_fill(dead, 0.0)  # keep logsumexp (and its backward) away from -inf - -inf
    lse = torch.logsumexp(safe, dim=dim, keepdim=True)
    probs = torch.exp(x - lse)  # dead slices: exp(-inf - log n) = 0
    return probs.masked_fill(dead, 0.0)


def scaled_dot_product_attention(q, k, v, mask: Optional[torch.Tensor] = None) -> Attention:
    """One head: softmax(Q K^T / sqrt(d_k)) V. Returns (output, weights) as a NamedTuple."""
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), -math.inf)
    weights = softmax(scores, dim=-1)
    return Attention(torch.matmul(weights, v), weights)


if __name__ == "__main__":
    logging.basicConfig(level=logging.DEBUG)
    x = torch.tensor([[1.0, 2.0, 3.0], [-math.inf] * 3], requires_grad=True)
    y = softmax(x)
    y[:, 0].sum().backward()
    print(y, x.grad, sep="\n")
    res = scaled_dot_product_attention(torch.randn(4, 2), torch.randn(6, 2), torch.randn(6, 3))
    print(res.output.shape, res.weights.sum(-1))
