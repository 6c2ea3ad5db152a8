import logging
import math
import warnings

import torch

log = logging.getLogger(__name__)


class Scores:
    """A thin wrapper so the attention reads like the maths: (Q @ K.T) / scale."""

    def __init__(self, t):
        self.t = t

    def __truediv__(self, other):
        return Scores(self.t / other)

    def __matmul__(self, other):
        return self.t @ other

    def __repr__(self):
        return f"Scores(shape={tuple(self.t.shape)})"


def softmax(x, dim=-1):
    if not x.is_floating_point():
        warnings.warn("softmax of an integer tensor: converting to float", stacklevel=2)
        x = x.float()
    peak = x.amax(dim=dim, keepdim=True)
    peak = peak.masked_fill(~torch.isfinite(peak), 0.0)
    e = (x - peak).exp()
    total = e.sum(dim=dim, keepdim=True)
    log.debug("softmax over %d entries", x.shape[dim] if x.dim() else 1)
    return e / total.masked_fill(total == 0, 1.0)


def scaled_dot_product_attention(q, k, v, mask=None):
    s = Scores(q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    raw = s.t
    if mask is not None:
        raw = raw.masked_fill(~mask, float("-inf"))
    weights = softmax(raw, dim=-1)
    return weights @ v, weights
