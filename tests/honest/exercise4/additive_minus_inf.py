import torch


def causal_mask(L, device=None):
    return ~torch.ones(L, L, dtype=torch.bool, device=device).triu(diagonal=1)


def apply_mask(scores, mask):
    penalty = torch.zeros(mask.shape, dtype=scores.dtype, device=scores.device)
    return scores + penalty.masked_fill(~mask, float("-inf"))


def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, None, :] < lengths[:, None, None])
