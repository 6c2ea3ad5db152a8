"""Exercise 4 with a padding mask one key too long: j <= length instead of j < length.

Diagnosis: padding-off-by-one.
"""

import torch


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))


def padding_mask(lengths, L):
    positions = torch.arange(L, device=lengths.device)
    return (positions[None, :] <= lengths[:, None])[:, None, :]  # keys 0 .. length
