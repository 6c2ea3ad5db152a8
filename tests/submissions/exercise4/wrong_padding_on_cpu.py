"""Exercise 4 with the padding mask's positions built on the CPU (`torch.arange(L)` without
`device=`): comparing them with lengths on a GPU raises.

Diagnosis: built-on-cpu.
"""

import torch


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))


def padding_mask(lengths, L):
    positions = torch.arange(L)
    return (positions[None, :] < lengths[:, None])[:, None, :]
