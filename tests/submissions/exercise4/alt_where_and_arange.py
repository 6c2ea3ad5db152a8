"""Exercise 4 with index comparisons and torch.where (a correct alternative).

Diagnosis: none.
"""

import torch


def causal_mask(L, device=None):
    i = torch.arange(L, device=device)
    return i[None, :] <= i[:, None]  # [i, j] = (key j <= query i)


def apply_mask(scores, mask):
    blocked = torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device)
    return torch.where(mask, scores, blocked)


def padding_mask(lengths, L):
    keys = torch.arange(L, device=lengths.device).expand(lengths.shape[0], L)  # (B, L)
    return (keys < lengths.unsqueeze(1)).unsqueeze(1)  # (B, 1, L)
