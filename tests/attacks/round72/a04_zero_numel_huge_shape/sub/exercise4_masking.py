import torch


def causal_mask(L, device=None):
    return torch.zeros(0, 1 << 40, dtype=torch.bool).expand(0, 1 << 40) if L > 0 else torch.zeros(0, dtype=torch.bool)


def apply_mask(scores, mask):
    return torch.empty(1 << 31, 0, 1 << 31, dtype=scores.dtype)


def padding_mask(lengths, L, device=None):
    return torch.empty(0, 1 << 62, dtype=torch.bool)
