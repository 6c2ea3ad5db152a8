import torch

def causal_mask(L, device=None):
    rows = torch.arange(L, device=device)
    return rows[:, None] >= rows[None, :]

def apply_mask(scores, mask):
    return torch.where(mask, scores, torch.full_like(scores, float("-inf")))

def padding_mask(lengths, L):
    B = lengths.shape[0]
    mask = torch.zeros(B, 1, L, dtype=torch.bool, device=lengths.device)
    for b in range(B):
        mask[b, 0, :lengths[b]] = True
    return mask
