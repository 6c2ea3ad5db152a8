import os, time, torch
def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))
def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))
def padding_mask(lengths, L):
    positions = torch.arange(L, device=lengths.device)
    return (positions[None, :] < lengths[:, None])[:, None, :]
