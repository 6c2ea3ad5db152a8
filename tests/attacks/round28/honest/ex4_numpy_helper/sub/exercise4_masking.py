import numpy as np
import torch


def _lower_triangle(n):
    """numpy helper: a boolean lower triangle, True on and below the diagonal"""
    return np.tril(np.ones((n, n), dtype=bool))


def causal_mask(L, device=None):
    return torch.from_numpy(_lower_triangle(L)).to(device=device)


def apply_mask(scores, mask):
    return torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))


def padding_mask(lengths, L):
    cols = torch.arange(L, device=lengths.device).unsqueeze(0)  # (1, L)
    keep = cols < lengths.unsqueeze(1)  # (B, L)
    return keep.unsqueeze(1)  # (B, 1, L)
