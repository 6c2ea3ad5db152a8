"""Exercise 4 with the causal mask marking what to hide (True above the diagonal), not what to see.

Diagnosis: mask-inverted.
"""

import torch


def causal_mask(L, device=None):
    return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=1)


def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))


def padding_mask(lengths, L):
    positions = torch.arange(L, device=lengths.device)
    return (positions < lengths[:, None])[:, None, :]
