"""Exercise 4 the long way: loops for the masks, clone then fill (a correct alternative).

Diagnosis: none.
"""

import torch


def causal_mask(L, device=None):
    mask = torch.zeros(L, L, dtype=torch.bool, device=device)
    for i in range(L):
        mask[i, : i + 1] = True  # query i sees keys 0..i
    return mask


def apply_mask(scores, mask):
    out = scores.clone()  # never touch the caller's scores
    out[~mask.expand(scores.shape)] = float("-inf")
    return out


def padding_mask(lengths, L):
    B = lengths.shape[0]
    mask = torch.ones(B, 1, L, dtype=torch.bool, device=lengths.device)
    for b in range(B):
        mask[b, 0, int(lengths[b]):] = False
    return mask
