"""Exercise 4 with a causal mask built on the CPU: `torch.ones(L, L)` without `device=`, right on
a CPU machine, a crash on a GPU.

Diagnosis: built-on-cpu.
"""

import torch


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool))


def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))


def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] < lengths[:, None])[:, None, :]
