"""Exercise 4 — Causal and padding masks.

Written the way I would put it in a model: a tiny nn.Module that owns a (non-persistent)
causal-mask buffer and grows it when a longer sequence comes in. The three graded functions are
plain functions below it; `torch.where` does the masking.
"""

import logging
import os
from dataclasses import dataclass, field

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)
if os.environ.get("MASK_DEBUG"):
    logging.basicConfig(level=logging.DEBUG)


def causal_mask(L, device=None):
    """Bool (L, L) on `device` (None: the CPU): True on and below the diagonal."""
    i = torch.arange(L, device=device)
    return i[None, :] <= i[:, None]  # key j visible from query i when j <= i


def apply_mask(scores, mask):
    """A new tensor: scores where mask is True, -inf where it is False."""
    minus_inf = torch.full((), float("-inf"), dtype=scores.dtype, device=scores.device)
    return torch.where(mask, scores, minus_inf)


def padding_mask(lengths, L):
    """(B, 1, L) bool on lengths' device: True for real keys (j < lengths[b])."""
    j = torch.arange(L, device=lengths.device)
    return (j.view(1, 1, L) < lengths.view(-1, 1, 1))


@dataclass
class MaskStats:
    calls: int = 0
    sizes: list = field(default_factory=list)


class CausalMask(nn.Module):
    """Keeps a causal mask buffer (not in the state dict) and slices it for each length."""

    def __init__(self, max_len: int = 16):
        super().__init__()
        self.register_buffer("mask", causal_mask(max_len), persistent=False)
        self.stats = MaskStats()

    def forward(self, L: int) -> torch.Tensor:
        if L > self.mask.size(0):
            logger.debug("growing causal mask %d -> %d", self.mask.size(0), L)
            self.mask = causal_mask(L, self.mask.device)
        self.stats.calls += 1
        self.stats.sizes.append(L)
        return self.mask[:L, :L]

    def extra_repr(self) -> str:
        return f"max_len={self.mask.size(0)}"


if __name__ == "__main__":
    cm = CausalMask(4)
    assert torch.equal(cm(3), torch.tril(torch.ones(3, 3, dtype=torch.bool)))
    assert torch.equal(cm(9), causal_mask(9))
    print(cm, cm.stats)
    scores = torch.randn(2, 5, 5)
    mask = padding_mask(torch.tensor([5, 2]), 5) & causal_mask(5)
    print(apply_mask(scores, mask)[1])
