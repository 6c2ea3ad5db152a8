"""Exercise 4 whose apply_mask builds the masked scores and then returns the original ones.

Diagnosis: mask-ignored.
"""

import torch


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def apply_mask(scores, mask):
    masked = scores.masked_fill(~mask, float("-inf"))  # noqa: F841 (the mistake: it is never used)
    return scores.clone()


def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] < lengths[:, None]).unsqueeze(1)
