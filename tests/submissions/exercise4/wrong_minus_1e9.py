"""Exercise 4 filling with -1e9, "a big negative number", instead of -inf.

Diagnosis: mask-fill-finite.
"""

import torch


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def apply_mask(scores, mask):
    return scores.masked_fill(~mask, -1e9)


def padding_mask(lengths, L):
    positions = torch.arange(L, device=lengths.device)
    return (positions < lengths[:, None])[:, None, :]
