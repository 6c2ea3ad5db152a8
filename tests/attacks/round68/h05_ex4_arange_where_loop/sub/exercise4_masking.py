import torch

def causal_mask(L, device=None):
    i = torch.arange(L, device=device)
    return i[:, None] >= i[None, :]

def apply_mask(scores, mask):
    neg_inf = torch.tensor(float('-inf'), dtype=scores.dtype, device=scores.device)
    return torch.where(mask, scores, neg_inf)

def padding_mask(lengths, L):
    B = lengths.shape[0]
    out = torch.zeros(B, 1, L, dtype=torch.bool, device=lengths.device)
    for b in range(B):
        out[b, 0, :int(lengths[b])] = True
    return out
