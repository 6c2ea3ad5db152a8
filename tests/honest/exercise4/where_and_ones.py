import torch


def causal_mask(L, device=None):
    return torch.ones(L, L, device=device).tril().bool()


def apply_mask(scores, mask):
    return torch.where(mask, scores, torch.full_like(scores, float("-inf")))


def padding_mask(lengths, L):
    rows = [torch.arange(L, device=lengths.device) < int(n) for n in lengths]
    return torch.stack(rows).view(len(rows), 1, L) if rows else torch.zeros(0, 1, L, dtype=torch.bool)
