import torch


def _slow_mask(L):
    # deliberately slow: one Python comparison per element (L*L of them)
    return torch.tensor([[j <= i for j in range(L)] for i in range(L)], dtype=torch.bool)


def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))


def padding_mask(lengths, L):
    positions = torch.arange(L, device=lengths.device)
    return (positions < lengths[:, None])[:, None, :]


def causal_mask(L, device=None):
    m = _slow_mask(L)
    return m.to(device) if device is not None else m
