import torch

def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, device=device))      # float 1/0, not bool

def apply_mask(scores, mask):
    return scores.masked_fill(mask == 0, float('-inf'))

def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] < lengths[:, None])[:, None, :]
