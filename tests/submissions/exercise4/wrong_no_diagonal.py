"""Exercise 4 where "no peeking" went one step too far: token i may not see itself.

Diagnosis: mask-excludes-diagonal.
"""

import torch


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=-1)


def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))


def padding_mask(lengths, L):
    positions = torch.arange(L, device=lengths.device)
    return (positions < lengths[:, None])[:, None, :]
