import torch

def causal_mask(L, device=None):
    # WRONG: ignores `device` (built on the CPU)
    return torch.tril(torch.ones(L, L, dtype=torch.bool))

def apply_mask(scores, mask):
    # WRONG: edits the caller's scores in place
    return scores.masked_fill_(~mask, float("-inf"))

def padding_mask(lengths, L):
    # WRONG: built on the CPU
    positions = torch.arange(L)
    return (positions[None, :] < lengths[:, None].cpu())[:, None, :]
