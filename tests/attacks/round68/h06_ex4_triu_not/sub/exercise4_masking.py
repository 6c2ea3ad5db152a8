import torch

def causal_mask(L, device=None):
    # "future" positions are the strict upper triangle; the mask is its complement
    future = torch.triu(torch.ones(L, L, device=device), diagonal=1).bool()
    return ~future

def apply_mask(scores, mask):
    out = scores.clone()
    out[~mask.expand_as(scores)] = float('-inf')
    return out

def padding_mask(lengths, L):
    pos = torch.arange(L, device=lengths.device).expand(lengths.shape[0], L)
    return (pos < lengths.unsqueeze(1)).unsqueeze(1)
