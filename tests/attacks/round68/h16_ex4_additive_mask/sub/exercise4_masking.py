import torch

def causal_mask(L, device=None):
    return torch.ones(L, L, device=device).tril().to(torch.bool)

def apply_mask(scores, mask):
    # additive mask: 0 where allowed, -inf where hidden
    bias = torch.zeros(mask.shape, dtype=scores.dtype, device=scores.device).masked_fill(~mask, float('-inf'))
    return scores + bias

def padding_mask(lengths, L):
    return torch.arange(L, device=lengths.device).unsqueeze(0).lt(lengths.unsqueeze(1)).view(-1, 1, L)
