"""Exercise 4 that masks by multiplying: scores * mask is 0 where the mask is False, and e^0 = 1.

Diagnosis: mask-fill-zero.
"""

import torch


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def apply_mask(scores, mask):
    return scores * mask.to(scores.dtype)


def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] < lengths[:, None]).unsqueeze(1)
