"""Exercise 4 with the padding mask's axis of size 1 in the wrong place: (B, L, 1) masks queries.

Diagnosis: padding-mask-masks-queries.
"""

import torch


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))


def padding_mask(lengths, L):
    real = torch.arange(L, device=lengths.device) < lengths.unsqueeze(-1)  # (B, L)
    return real.unsqueeze(-1)
