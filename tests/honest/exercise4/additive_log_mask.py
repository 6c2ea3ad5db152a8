import torch


def causal_mask(L, device=None):
    positions = torch.arange(L, device=device)
    return positions[:, None] >= positions[None, :]  # query i sees key j when j <= i


def apply_mask(scores, mask):
    # add 0 where allowed and -inf where not: log(1) = 0, log(0) = -inf
    return scores + torch.log(mask.to(scores.dtype))


def padding_mask(lengths, L):
    keys = torch.arange(L, device=lengths.device).expand(lengths.shape[0], L)
    return (keys < lengths.unsqueeze(1)).unsqueeze(1)
